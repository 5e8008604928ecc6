"""A multiplex, the organiser's side (issue 26, part 1; docs/multiplex.md): the organiser plays a game live in
its hall and opens it to the event's registered centres, which play it with it at the same time.

- ``game_open``: a head arbitrator of the game who is an organiser of the event opens it to the event's centres
  (logged ``multiplex_open`` in the game's log). It becomes one of the event's games (``EventGame.live_game``),
  named by ``game_id`` as a pack's game is, with a relay id (random) in place of a pack's SHA-256: the centres'
  results files carry it, and are refused with another.
- The relay (``relay_items``): what the centres read, with their push token, through ``GET
  /api/events/{id}/relay?after=<seq>``. Each round's rack appears once the organiser **started** the round
  (never before: a rack drawn and not started is nobody's business but the hall's), and its master once the
  round is closed there. Items are numbered from the organiser's rounds (``seq``: twice the round's row id for
  its rack, one more for its master), so a cancelled round's new rack is a new item and a centre that asks
  again with the last ``seq`` it applied misses nothing.
- ``wait_for_items``: the long poll. It answers at once when there is something after ``seq``, else watches the
  game's version in the shared cache (one cache read per tick, the database only when the game changed) for
  at most ``ARBITER_RELAY_WAIT_SECONDS``.
- ``live_game_file``: the game as it stands (its closed rounds' racks and masters, checked by the engine), what
  the centres' results files are judged against, round by round, and the merged standings count.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from engine.pregame import PregameError, replay_game
from tournaments import packs, services
from tournaments.errors import Conflict, ServiceError
from tournaments.event_models import Event, EventGame
from tournaments.events import CENTRE_CODE, is_organiser, require_organiser
from tournaments.limits import CENTRE_CODE_MAX
from tournaments.models import Game, Round
from tournaments.versions import game_version

RELAY_FORMAT = "duplicate-arbiter/relay"
TICK = 0.2  # seconds between two looks at the game's version while a centre waits


def game_open(*, event: Event, game: Game, game_id: str, actor) -> EventGame:
    """Open the organiser's ``game`` to the event's centres as the event's game ``game_id``: by a head arbitrator
    of the game who runs the event. Refused (nothing changed): ``head_only``, ``bad_centre_code`` for an id that
    is not one (the same form as a centre's), ``event_game_twice``, ``multiplex_game_over``."""
    require_organiser(event.pk, actor)
    services.act_as(services.require_head, game.pk, actor)
    game_id = str(game_id or "").strip()
    if not game_id or len(game_id) > CENTRE_CODE_MAX or not CENTRE_CODE.match(game_id):
        raise ServiceError("bad_centre_code", fields={"game_id": ["format"]}, params={"max": CENTRE_CODE_MAX})
    if game.status == Game.Status.OVER:
        raise Conflict("multiplex_game_over", params={"game": game_id})
    relay_id = hashlib.sha256(secrets.token_bytes(32)).hexdigest()
    try:
        with transaction.atomic():
            opened = EventGame.objects.create(event=event, game_id=game_id, pack="", sha256=relay_id,
                                              live_game=game, opened_at=timezone.now(), opened_by=actor)
            services.log(game=game, action="multiplex_open", actor=actor,
                         after={"event": event.name, "event_id": event.pk, "game_id": game_id, "relay": relay_id})
    except IntegrityError:
        raise Conflict("event_game_twice", params={"game": game_id}) from None
    return opened


def live_of(event: Event) -> EventGame:
    """The event's game opened last to its centres; 409 ``multiplex_none`` when none is."""
    found = event.games.filter(live_game__isnull=False).select_related("live_game__tournament").order_by("-id").first()
    if found is None:
        raise Conflict("multiplex_none", params={"event": event.pk})
    return found


def header(opened: EventGame) -> dict:
    """What a centre needs to follow the game: the event's and game's names, the relay id its results files
    carry, and the settings its game is played with (as a pack's clear part gives them)."""
    tournament = opened.live_game.tournament
    return {"format": RELAY_FORMAT, "event": opened.event.name, "game_id": opened.game_id, "relay": opened.sha256,
            "settings": {"lexicon": tournament.lexicon, "tileset": tournament.tileset,
                         "coordinates": tournament.coordinates, "ruleset": tournament.ruleset,
                         "rule_overrides": dict(tournament.rule_overrides or {}),
                         "round_seconds": tournament.round_seconds}}


def relay_items(opened: EventGame, after: int = 0) -> list[dict]:
    """The relay's items after ``after``, in order (see the module's docstring)."""
    items = []
    rounds = (Round.objects.filter(game_id=opened.live_game_id, started_at__isnull=False)
              .order_by("pk").values("pk", "number", "rack", "rejected", "started_at", "status", "master"))
    for r in rounds:
        seq = 2 * r["pk"]
        if seq > after:
            items.append({"seq": seq, "kind": "rack", "round": r["number"], "rack": r["rack"],
                          "rejected": list(r["rejected"] or ()), "started_at": r["started_at"].isoformat()})
        if r["status"] == Round.Status.CLOSED and r["master"] and seq + 1 > after:
            master = r["master"]
            items.append({"seq": seq + 1, "kind": "master", "round": r["number"],
                          "master": {"word": master["word"], "ref": master["ref"], "score": master["score"]}})
    return items


def wait_seconds(asked) -> float:
    """The wait a centre asked for, within 0 and ``ARBITER_RELAY_WAIT_SECONDS``; 400 ``bad_relay_query`` for a
    value that is not a number."""
    limit = float(settings.ARBITER_RELAY_WAIT_SECONDS)
    if asked in (None, ""):
        return limit
    try:
        value = float(asked)
    except (TypeError, ValueError):
        raise ServiceError("bad_relay_query", fields={"wait": ["not a number"]}, params={"name": "wait"}) from None
    if value != value:  # NaN
        raise ServiceError("bad_relay_query", fields={"wait": ["not a number"]}, params={"name": "wait"})
    return max(0.0, min(limit, value))


def read_after(asked) -> int:
    if asked in (None, ""):
        return 0
    try:
        value = int(str(asked))
    except ValueError:
        raise ServiceError("bad_relay_query", fields={"after": ["not a whole number"]},
                           params={"name": "after"}) from None
    if value < 0 or value >= 2**62:
        raise ServiceError("bad_relay_query", fields={"after": ["out of range"]}, params={"name": "after"})
    return value


def wait_for_items(opened: EventGame, after: int, seconds: float) -> list[dict]:
    """The items after ``after``: at once when there are some, else the first that come within ``seconds``
    (an empty list when none did)."""
    end = time.monotonic() + seconds
    items = relay_items(opened, after)
    version = game_version(opened.live_game_id)
    while not items and time.monotonic() < end:
        # A waiting centre holds no database connection: a hundred centres waiting must not empty the pool.
        if not connection.in_atomic_block:
            connection.close()
        time.sleep(min(TICK, max(0.0, end - time.monotonic())))
        now = game_version(opened.live_game_id)
        if now != version:
            version, items = now, relay_items(opened, after)
    if not items and seconds > 0:  # a change the cache did not tell (no cache): one last look
        items = relay_items(opened, after)
    return items


def live_game_file(opened: EventGame) -> packs.GameFile:
    """The live game as it stands: its closed rounds (cancelled ones left out) replayed by the engine."""
    game = opened.live_game
    tournament = game.tournament
    played = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number")
                  .values_list("rack", "master", "rejected"))
    words = packs._lexicon(tournament.lexicon)
    from engine.tiles import load_tileset

    tileset = load_tileset(tournament.tileset)
    try:
        pregame = replay_game(played, words, tileset, tournament.rules, tournament.coordinates)
    except PregameError as error:
        raise ServiceError("bad_game_file", params={"detail": str(error)}) from None
    return packs.GameFile(pregame, tournament.rules, tileset.name, tournament.coordinates, words.name, words.sha256)


def may_open(event: Event, user) -> bool:
    return is_organiser(event.pk, user)
