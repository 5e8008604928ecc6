"""A multiplex, the centre's side (issue 26, part 1; docs/multiplex.md): a game of this centre follows the
organiser's live game through the relay (tournaments/multiplex.py at the organiser).

- ``follow``: a head arbitrator makes a new game of a tournament that follows the organiser's game opened to
  the event (the organiser set by ``ARBITER_ORGANISER_URL``, ``_EVENT``, ``_TOKEN``, as for the results' push):
  the tournament takes the organiser's word list, tile set, labelling, rules and round time, as a pack's import
  does. Logged ``relay_follow``.
- The link (``link_once``, looped by ``run_links`` in a thread of the centre's worker: ``make run`` / ``arbiter
  run`` start it when the organiser is set) connects **out** to the organiser (a long poll: no inbound port at
  the centre) and records each contact. No answer for ``ARBITER_RELAY_SILENT_SECONDS``: the link is down
  (``down_since``) and the console says so through its live stream; the first answer after it, up again.
- A rack received is kept (RelayRack). When the game can take it (no round in play, the last master
  confirmed) it is drawn through the typed-rack path (services.round_draw with the rack), and the clock is
  started at once when the console's "start the clock when the rack arrives" is on; otherwise the arbitrator
  presses start. The centre's clock is its own: its round lasts its full time from its own start.
- A rack for a round already drawn here (typed by the arbitrator from the rack read over the phone while the link
  was down) is compared: the same letters are noted (``relay_rack_equal``); others are shown on the console and
  logged (``relay_rack_mismatch``), and the round's rack is never replaced.
- A master received: once the centre's round is closed, the organiser's master is confirmed here (another tied
  top chosen through services.round_choose_master when the centre proposed another): the same game on every
  board. Logged ``relay_master``.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter

from django.conf import settings
from django.db import IntegrityError, close_old_connections, transaction
from django.utils import timezone

from tournaments import services
from tournaments.errors import Conflict, ServiceError
from tournaments.limits import PUSH_ANSWER_MAX
from tournaments.models import Game, Round, Tournament
from tournaments.relay_models import RelayLink, RelayRack
from tournaments.versions import notify_game_changed

logger = logging.getLogger(__name__)

SETTINGS = ("lexicon", "tileset", "coordinates", "ruleset", "rule_overrides", "round_seconds")
IDLE_SECONDS = 2.0  # between two looks for a link when this centre follows no game
RETRY_SECONDS = 0.5  # between two attempts while the organiser does not answer
STALE_SECONDS = 60.0  # no contact recorded for this long: the console says the link is down all the same


class Unreachable(Exception):
    """The organiser did not answer (refused, reset, timed out, a 5xx)."""


# ---- the organiser's relay over HTTP -------------------------------------------------------------------------


def relay_address() -> tuple[str, str, str] | None:
    """(url, event, token) of the organiser, or None when this centre has none set."""
    url = str(getattr(settings, "ARBITER_ORGANISER_URL", "") or "").strip().rstrip("/")
    event = str(getattr(settings, "ARBITER_ORGANISER_EVENT", "") or "").strip()
    token = str(getattr(settings, "ARBITER_ORGANISER_TOKEN", "") or "")
    if not url or not event:
        return None
    return url, event, token


def fetch(after: int, wait: float, timeout: float | None = None) -> dict:
    """One long poll of the organiser's relay: its answer, or Unreachable; a refusal (4xx) is a ServiceError
    ``relay_refused`` with the organiser's words. ``timeout``: by default the wait asked for plus
    ``ARBITER_RELAY_SILENT_SECONDS`` (at least 2 s): an organiser silent that long is not answering."""
    if timeout is None:
        timeout = wait + max(2.0, float(settings.ARBITER_RELAY_SILENT_SECONDS))
    address = relay_address()
    if address is None:
        raise Conflict("relay_none")
    url, event, token = address
    query = urllib.parse.urlencode({"after": int(after), "wait": f"{wait:g}"})
    request = urllib.request.Request(f"{url}/api/events/{urllib.parse.quote(event, safe='')}/relay?{query}",
                                     headers={"Accept": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read(4 * 1024 * 1024))
    except urllib.error.HTTPError as error:
        body = error.read(64 * 1024) if error.fp else b""
        if 400 <= error.code < 500:
            try:
                found = json.loads(body)
                words = (found.get("error") or {}).get("message") or found.get("detail") or ""
            except (ValueError, AttributeError):
                words = body.decode("utf-8", "replace")
            raise ServiceError("relay_refused", status=409,
                               params={"detail": f"{error.code} {words}"[:PUSH_ANSWER_MAX]}) from None
        raise Unreachable(f"{error.code}") from None
    except (OSError, ValueError) as error:  # refused, reset, timed out; an answer that is not JSON
        raise Unreachable(str(error)[:PUSH_ANSWER_MAX]) from None


# ---- following a game ------------------------------------------------------------------------------------------


def follow(*, tournament: Tournament, actor=None, auto_start: bool = False) -> Game:
    """A new game of ``tournament`` following the organiser's live game (see the module's docstring). Refused:
    ``relay_none`` (no organiser set), ``relay_unreachable``, ``relay_refused`` (the organiser's words: a wrong
    token, no game opened), ``pack_settings`` (a started tournament with other settings)."""
    if actor is not None:
        services.require_tournament_head(tournament.pk, actor)
    try:
        relay = fetch(0, 0, timeout=float(settings.ARBITER_RESULTS_PUSH_TIMEOUT))
    except Unreachable as error:
        raise ServiceError("relay_unreachable", status=409, params={"detail": str(error)}) from None
    wanted = {name: relay["settings"][name] for name in SETTINGS}
    differ = [name for name in SETTINGS if getattr(tournament, name) != wanted[name]]
    if differ and services.tournament_started(tournament):
        raise Conflict("pack_settings", fields={name: ["the organiser's differs"] for name in differ},
                       params={"settings": ", ".join(differ)})
    with transaction.atomic():
        if differ:
            tournament = services.tournament_update(tournament=tournament, changes=wanted, actor=actor)
        game = services.game_create(tournament=tournament, actor=actor)
        RelayLink.objects.create(game=game, organiser_event=relay_address()[1], event=str(relay["event"])[:200],
                                 event_game=str(relay["game_id"])[:100], relay_id=str(relay["relay"])[:64],
                                 auto_start=bool(auto_start), last_contact_at=timezone.now())
        services.log(game=game, action="relay_follow", actor=actor,
                     after={"event": relay["event"], "game_id": relay["game_id"], "relay": relay["relay"],
                            "auto_start": bool(auto_start)})
    return game


def set_auto_start(*, game: Game, auto_start: bool, actor=None) -> RelayLink:
    """The console's "start the clock when the rack arrives", by the game's head arbitrator (logged)."""
    services.act_as(services.require_head, game.pk, actor)
    link = RelayLink.objects.filter(game_id=game.pk).first()
    if link is None:
        raise Conflict("relay_none")
    if link.auto_start != bool(auto_start):
        link.auto_start = bool(auto_start)
        link.save(update_fields=["auto_start"])
        services.log(game=game, action="relay_auto_start", actor=actor, after={"auto_start": link.auto_start})
        notify_game_changed(game.pk)
    return link


# ---- the link's state -------------------------------------------------------------------------------------------


def contact(link: RelayLink) -> None:
    """The organiser answered: the link is up (said on the console when it was down)."""
    was_down = link.down_since is not None
    link.last_contact_at, link.down_since, link.last_error = timezone.now(), None, ""
    RelayLink.objects.filter(pk=link.pk).update(last_contact_at=link.last_contact_at, down_since=None, last_error="")
    if was_down:
        logger.info("link to the organiser up again (game %s)", link.game_id)
        notify_game_changed(link.game_id)


def no_contact(link: RelayLink, error: str) -> None:
    """The organiser did not answer: the link is down once it has been silent ARBITER_RELAY_SILENT_SECONDS."""
    now = timezone.now()
    last = link.last_contact_at or link.created_at
    link.last_error = str(error)[:300]
    if link.down_since is None and (now - last).total_seconds() >= float(settings.ARBITER_RELAY_SILENT_SECONDS):
        link.down_since = last
        logger.warning("link to the organiser down since %s (game %s): %s", last.isoformat(), link.game_id, error)
        RelayLink.objects.filter(pk=link.pk).update(down_since=last, last_error=link.last_error)
        notify_game_changed(link.game_id)
    else:
        RelayLink.objects.filter(pk=link.pk).update(last_error=link.last_error)


def store(link: RelayLink, items: list[dict]) -> None:
    """Keep the relay's items (idempotent by ``seq``): racks as RelayRack rows, masters on their round's rack."""
    for item in items:
        seq = int(item["seq"])
        if item["kind"] == "rack":
            try:
                with transaction.atomic():
                    RelayRack.objects.create(link=link, seq=seq, number=int(item["round"]), rack=str(item["rack"])[:40],
                                             rejected=list(item.get("rejected") or ()))
            except IntegrityError:
                pass
        elif item["kind"] == "master":
            RelayRack.objects.filter(link=link, seq=seq - 1, master__isnull=True).update(master=item["master"])
        link.after = max(link.after, seq)
    RelayLink.objects.filter(pk=link.pk).update(after=link.after)


# ---- applying what was received --------------------------------------------------------------------------------


def letters(rack: str) -> Counter:
    return Counter(ch for ch in str(rack).upper() if ch.isalpha() or ch == "?")


def _apply_masters(link: RelayLink, game: Game) -> None:
    for relayed in link.racks.filter(master__isnull=False, master_applied=False).order_by("seq"):
        local = (game.rounds.filter(number=relayed.number, status=Round.Status.CLOSED).order_by("-pk").first())
        if local is None:
            continue  # the centre's round is not closed yet
        master, before = relayed.master, local.master or {}
        try:
            if (before.get("word"), before.get("ref")) != (master["word"], master["ref"]):
                services.round_choose_master(round=local, word=master["word"], ref=master["ref"], actor=None)
            outcome = "confirmed"
        except Conflict as error:  # another rack was played here, or the next round is drawn
            outcome = error.code
        with transaction.atomic():
            RelayRack.objects.filter(pk=relayed.pk).update(master_applied=True)
            services.log(game=game, round=local, action="relay_master", after={
                "round": relayed.number, "organiser": master, "proposed": {k: before.get(k) for k in ("word", "ref")},
                "outcome": outcome})
        notify_game_changed(game.pk)


def _compare(link: RelayLink, game: Game, relayed: RelayRack, local: Round) -> None:
    """The organiser's rack for a round already drawn here (typed by hand): noted when equal, shown and logged
    when not; the round's rack is never replaced."""
    same = letters(local.rack) == letters(relayed.rack)
    outcome = RelayRack.Check.EQUAL if same else RelayRack.Check.MISMATCH
    with transaction.atomic():
        RelayRack.objects.filter(pk=relayed.pk).update(compared=outcome, played=local.rack)
        services.log(game=game, round=local, action="relay_rack_equal" if same else "relay_rack_mismatch",
                     after={"round": relayed.number, "organiser": relayed.rack, "played": local.rack,
                            "typed": local.typed})
    if not same:
        logger.warning("game %s round %s: the rack played (%s) is not the organiser's (%s)", game.pk,
                       relayed.number, local.rack, relayed.rack)
    notify_game_changed(game.pk)


def _apply_rack(link: RelayLink, game: Game) -> None:
    relayed = link.racks.filter(compared=RelayRack.Check.NONE).order_by("seq").first()
    if relayed is None:
        return
    local = (game.rounds.filter(number=relayed.number).exclude(status=Round.Status.CANCELLED)
             .order_by("-pk").first())
    if local is not None:
        _compare(link, game, relayed, local)
        return
    if game.status == Game.Status.OVER or game.rounds.in_play().exists():
        return  # the centre's round before is still in play: the rack waits
    if link.racks.filter(number__lt=relayed.number, master__isnull=False, master_applied=False).exists():
        return  # the last master is not confirmed yet
    try:
        drawn = services.round_draw(game=game, rack=relayed.rack.replace("+", ""), actor=None,
                                    after_rejection=bool(relayed.rejected))
    except Conflict as error:
        if error.code == "too_soon":
            return  # the pause between rounds: tried again on the next pass
        raise
    RelayRack.objects.filter(pk=relayed.pk).update(compared=RelayRack.Check.RELAYED, played=drawn.rack)
    if RelayLink.objects.filter(pk=link.pk, auto_start=True).exists():  # the console's setting as it is now
        services.round_start(round=drawn, actor=None)


def advance(link: RelayLink) -> None:
    """Apply what the relay brought that the game can take now (see the module's docstring)."""
    game = Game.objects.filter(pk=link.game_id).first()
    if game is None:
        return
    _apply_masters(link, game)
    try:
        _apply_rack(link, game)
    except ServiceError as error:  # a rack this game's bag cannot give: shown on the console, tried again
        RelayLink.objects.filter(pk=link.pk).update(last_error=f"{error.code}: {error.params}"[:300])
    _apply_masters(link, game)


def link_once(link: RelayLink) -> bool:
    """One contact with the organiser for ``link`` (a long poll of ``ARBITER_RELAY_POLL_SECONDS``), then what
    can be applied; True when the organiser answered."""
    answered = True
    try:
        relay = fetch(link.after, float(settings.ARBITER_RELAY_POLL_SECONDS))
    except Unreachable as error:
        no_contact(link, str(error))
        answered = False
    except ServiceError as error:  # refused: the organiser answered, but not with the relay
        contact(link)
        RelayLink.objects.filter(pk=link.pk).update(last_error=str(error.params.get("detail", ""))[:300])
        answered = False
    else:
        contact(link)
        store(link, relay.get("items") or [])
    advance(link)
    return answered


def links_to_follow() -> list[RelayLink]:
    return list(RelayLink.objects.exclude(game__status=Game.Status.OVER).order_by("id"))


def run_links(stop: threading.Event | None = None) -> None:
    """The link's loop (a thread of the centre's worker): each game that follows the organiser, one contact at a
    time, each bounded by its timeout; until ``stop`` is set or the process ends."""
    stop = stop or threading.Event()
    while not stop.is_set():
        close_old_connections()
        try:
            links = links_to_follow() if relay_address() is not None else []
            if not links:
                stop.wait(IDLE_SECONDS)
                continue
            answered = all([link_once(link) for link in links])
            if not answered:
                stop.wait(RETRY_SECONDS)
        except Exception:  # the database away a moment: logged, tried again
            logger.exception("the link to the organiser failed; trying again")
            stop.wait(RETRY_SECONDS)


def start_link_thread() -> threading.Thread | None:
    """The link's loop in a daemon thread, when an organiser is set (None otherwise)."""
    if relay_address() is None:
        return None
    thread = threading.Thread(target=run_links, name="relay-link", daemon=True)
    thread.start()
    return thread


def console_state(game: Game) -> dict | None:
    """What the console shows of the game's link: up, or down since when; the racks compared, mismatches first."""
    link = RelayLink.objects.filter(game_id=game.pk).first()
    if link is None:
        return None
    now = timezone.now()
    silent = float(settings.ARBITER_RELAY_SILENT_SECONDS)
    last = link.last_contact_at or link.created_at
    # No contact recorded at all for a long while: the link's loop itself is not running (the worker stopped).
    stale = max(STALE_SECONDS, 3 * silent + float(settings.ARBITER_RELAY_POLL_SECONDS))
    down_since = link.down_since or (last if (now - last).total_seconds() >= stale else None)
    racks = list(link.racks.order_by("seq"))
    return {"link": link, "up": down_since is None, "down_since": down_since, "last_contact_at": link.last_contact_at,
            "mismatches": [r for r in racks if r.compared == RelayRack.Check.MISMATCH],
            "equal": [r for r in racks if r.compared == RelayRack.Check.EQUAL],
            "waiting": [r for r in racks if r.compared == RelayRack.Check.NONE],
            "error": link.last_error}
