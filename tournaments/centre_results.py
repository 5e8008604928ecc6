"""A centre's results file from its live game, and its push to the organiser (issue 25, part 4; docs/packs.md).

A game played from a sealed pack (tournaments/centre.py, services/sealed.py) gives the organiser, after each
closed round and at the end, a results file (tournaments/results_files.py): every player's identity, their slip
and the verdict that counts round by round (a correction's, an arbitrator's ruling), their total and warnings;
the centre's corrections with who made them and why, read from the game's log; the centre's identity (settings
``ARBITER_CENTRE_ID``, default this installation's key fingerprint, and ``ARBITER_CENTRE_NAME``); the event, the
pack's game id and SHA-256. It is signed with this installation's key (tournaments/seal.py).

``keep_results`` keeps a version (CentreResults) when the results changed since the last one, with a
``sequence`` one more than the last; it is ``final`` once the game is over. The worker keeps one after each
closed round, each correction of a closed round and the end (services/results_hooks.py queues it by name), and
the console's "Results file" button downloads the latest (the offline path: a USB key, an e-mail).

``push_results`` makes one attempt to send a version to the organiser (``ARBITER_ORGANISER_URL``, its event
``ARBITER_ORGANISER_EVENT``, this centre's ``ARBITER_ORGANISER_TOKEN``): ``POST {url}/api/events/{event}/results``
with the file's canonical JSON. A 2xx (including the organiser's "already received") is the acknowledgement; a
4xx is a refusal, logged and shown on the console, not tried again (a file above ``RESULTS_FILE_MAX_BYTES``, which
the organiser refuses unread, is refused here without being sent); anything else (a 5xx, the organiser down or
silent) is tried again by the worker after ``retry_delay`` seconds, at most ``ARBITER_RESULTS_PUSH_ATTEMPTS``
times. A version superseded by a later one is not pushed (the later one is).

This module stands beside the services, as tournaments/centre.py does: it reads packs' results files, which read
the packs.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from dataclasses import dataclass
from types import SimpleNamespace

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from tournaments import results_files, seal, selectors
from tournaments.errors import Conflict
from tournaments.limits import PUSH_ANSWER_MAX, RESULTS_FILE_MAX_BYTES
from tournaments.models import CentreResults, Game, GamePack, LateSlip, LogEntry, Player, Result, Round
from tournaments.packs import fingerprint, public_text
from tournaments.relay_models import RelayLink
from tournaments.services.schedule import schedule_push

logger = logging.getLogger(__name__)

# The log's actions that change a closed round's verdicts: the centre's corrections, sent with who and why.
CORRECTIONS = ("slip_correct", "slip_add", "result_override", "late_admit")


def centre_identity() -> dict:
    """This centre as its results files name it: ``ARBITER_CENTRE_ID`` (default: the fingerprint of this
    installation's key, which the organiser registers) and ``ARBITER_CENTRE_NAME`` (default: the id)."""
    centre_id = str(getattr(settings, "ARBITER_CENTRE_ID", "") or "").strip()
    if not centre_id:
        centre_id = fingerprint(public_text(seal.server_key()[0]))
    name = str(getattr(settings, "ARBITER_CENTRE_NAME", "") or "").strip() or centre_id
    return {"id": centre_id, "name": name}


def _pack(game: Game):
    """What the results file names as its origin (event, pack_game, sha256): the game's sealed pack, or the
    organiser's live game it follows (a multiplex: tournaments/relay.py, the relay's id for the pack's SHA-256)."""
    pack = GamePack.objects.filter(game_id=game.pk).first()
    if pack is not None:
        return pack
    link = RelayLink.objects.filter(game_id=game.pk).first()
    if link is None:
        raise Conflict("pack_none")
    return SimpleNamespace(event=link.event, pack_game=link.event_game, sha256=link.relay_id)


def _player_rounds(game: Game, rounds: list[Round]) -> dict[int, list[dict]]:
    """Each player's rounds: the slip that counts (a late one marked ``late``, several marked ``several``)
    and the verdict that counts."""
    numbers = {r.pk: r.number for r in rounds}
    late: dict[tuple[int, int], LateSlip] = {}
    for slip in LateSlip.objects.filter(round__in=rounds).order_by("-received_at"):
        late[(slip.round_id, slip.player_id)] = slip  # the first received wins
    out: dict[int, list[dict]] = {}
    for result in Result.objects.filter(round__in=rounds).select_related("slip").order_by("round__number", "id"):
        slip = None
        if result.slip is not None:
            slip = {"word": result.slip.word, "ref": result.slip.ref, "claimed": result.slip.claimed,
                    "several": result.slip.several}
        elif result.reason == "late" and (result.round_id, result.player_id) in late:
            kept = late[(result.round_id, result.player_id)]
            slip = {"word": kept.word, "ref": kept.ref, "claimed": kept.claimed, "late": True}
        out.setdefault(result.player_id, []).append({
            "round": numbers[result.round_id], "slip": slip,
            "verdict": {"paid": result.paid, "outcome": result.outcome, "reason": result.reason}})
    return out


def _who(entry: LogEntry) -> str:
    if entry.actor_id is not None:
        return entry.actor.get_username()
    return str((entry.after or {}).get("by") or "server")


def corrections(game: Game) -> list[dict]:
    """The centre's corrections of closed rounds, from the game's log, in order: the round, the player, who
    (an arbitrator's login), why, when, and the slip and verdict before and after."""
    out = []
    for entry in (LogEntry.objects.filter(game_id=game.pk, action__in=CORRECTIONS).select_related("actor", "round")
                  .order_by("seq")):
        after = {k: v for k, v in (entry.after or {}).items() if k != "by"}
        out.append({"action": entry.action, "round": entry.round.number if entry.round else None,
                    "player": str(entry.player_id or ""), "by": _who(entry), "why": entry.reason,
                    "at": entry.at.isoformat(), "before": entry.before, "after": after})
    return out


def build_results(game: Game, *, sequence: int = 1, signer=None) -> dict:
    """The results file of ``game`` (played from a sealed pack; 409 ``pack_none`` otherwise) as it stands:
    its closed rounds, final once the game is over."""
    game = Game.objects.select_related("tournament").get(pk=game.pk)
    pack = _pack(game)
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    played = _player_rounds(game, rounds)
    players = [results_files.player_results(player, played.get(player.pk, []))
               for player in Player.objects.in_game(game)]
    return results_files.make_results_file(
        event=pack.event, game_id=pack.pack_game, pack_sha256=pack.sha256, centre=centre_identity(),
        players=players, corrections=corrections(game), sequence=sequence,
        final=game.status == Game.Status.OVER, signer=signer,
        chain=selectors.chain_heads_text([game]))


def _content(results: dict) -> tuple:
    """What a new version must change to be kept: the centre, the players, the corrections, final."""
    return (results["centre"], results["players"], results["corrections"], bool(results.get("final")))


def latest(game_id: int) -> CentreResults | None:
    return CentreResults.objects.filter(game_id=game_id).order_by("-sequence").first()


def keep_results(game: Game) -> CentreResults:
    """The latest version of the game's results file, a new one kept first when the results changed since."""
    for _attempt in range(3):  # two keeps at once: the second sees the first's version
        held = latest(game.pk)
        results = build_results(game, sequence=(held.sequence + 1) if held else 1)
        if held is not None and _content(json.loads(held.text)) == _content(results):
            return held
        try:
            with transaction.atomic():
                return CentreResults.objects.create(
                    game_id=game.pk, sequence=results["sequence"], final=bool(results["final"]),
                    sha256=results_files.results_sha256(results),
                    text=results_files.results_bytes(results).decode())
        except IntegrityError:
            continue
    return latest(game.pk)


# --------------------------------------------------------------------------------------------------
# The push


def organiser_address() -> str | None:
    """Where this centre's files are pushed (``{ARBITER_ORGANISER_URL}/api/events/{ARBITER_ORGANISER_EVENT}/results``),
    or None when no organiser is set (the files are then carried: the console's download)."""
    url = str(getattr(settings, "ARBITER_ORGANISER_URL", "") or "").strip().rstrip("/")
    event = str(getattr(settings, "ARBITER_ORGANISER_EVENT", "") or "").strip()
    if not url or not event:
        return None
    return f"{url}/api/events/{urllib.request.quote(event, safe='')}/results"


def retry_delay(attempt: int) -> float:
    """Seconds before attempt ``attempt + 1``: doubling from ``ARBITER_RESULTS_PUSH_FIRST_DELAY``, at most
    ``ARBITER_RESULTS_PUSH_MAX_DELAY``."""
    first = float(settings.ARBITER_RESULTS_PUSH_FIRST_DELAY)
    return min(float(settings.ARBITER_RESULTS_PUSH_MAX_DELAY), first * 2 ** max(0, attempt - 1))


def _answer(status: int | None, body: bytes) -> dict:
    try:
        parsed = json.loads(body or b"null")
    except ValueError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) else {}
    message = error.get("message") or (parsed.get("detail") or parsed.get("status") if isinstance(parsed, dict)
                                       else None) or body.decode("utf-8", "replace")
    return {"status": status, "code": str(error.get("code") or ""), "message": str(message or "")[:PUSH_ANSWER_MAX]}


@dataclass(frozen=True)
class Pushed:
    """One attempt's outcome: ``sent`` (acknowledged), ``refused`` (4xx: not tried again), ``retry`` (tried
    again later), ``superseded`` (a later version is kept, its own push under way or done), ``none`` (no organiser set)."""

    outcome: str
    answer: dict | None = None


def _record(version: CentreResults, state: str, answer: dict | None) -> None:
    CentreResults.objects.filter(pk=version.pk).update(
        push_state=state, push_answer=answer, pushed_at=timezone.now(), push_attempts=version.push_attempts + 1)


def push_results(results_id: int, *, last_attempt: bool = False) -> Pushed:
    """One attempt to push the version ``results_id`` to the organiser (see the module's docstring).
    ``last_attempt``: a failure that would be tried again is recorded ``failed`` instead."""
    version = CentreResults.objects.filter(pk=results_id).first()
    address = organiser_address()
    if version is None or address is None:
        return Pushed("none")
    if version.push_state == CentreResults.Push.SENT:
        return Pushed("sent", version.push_answer)
    newest = latest(version.game_id)
    if newest is not None and newest.sequence > version.sequence:
        # A later version is pushed instead, unless its own push is under way or done.
        if not CentreResults.objects.filter(pk=newest.pk, push_state=CentreResults.Push.NONE).update(
                push_state=CentreResults.Push.PENDING):
            return Pushed("superseded")
        version = CentreResults.objects.get(pk=newest.pk)
    data = version.text.encode()
    if len(data) > RESULTS_FILE_MAX_BYTES:
        # The organiser refuses it before reading it (413, often seen here as a reset connection): sending it
        # again would never land. Refused here, shown on the tab; nothing is sent.
        answer = {"status": 413, "code": "results_too_large",
                  "message": f"the results file weighs {len(data)} bytes, above the {RESULTS_FILE_MAX_BYTES} bytes "
                             "an organiser receives: it was not sent"[:PUSH_ANSWER_MAX]}
        _record(version, CentreResults.Push.REFUSED, answer)
        logger.warning("results of game %s v%s not pushed: %s bytes, above %s", version.game_id, version.sequence,
                       len(data), RESULTS_FILE_MAX_BYTES)
        return Pushed("refused", answer)
    token = str(getattr(settings, "ARBITER_ORGANISER_TOKEN", "") or "")
    request = urllib.request.Request(address, data=data, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json",
        **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=float(settings.ARBITER_RESULTS_PUSH_TIMEOUT)) as response:
            answer = _answer(response.status, response.read(64 * 1024))
    except urllib.error.HTTPError as error:
        answer = _answer(error.code, error.read(64 * 1024) if error.fp else b"")
    except (OSError, ValueError) as error:  # refused, reset, timed out, a name not found
        answer = {"status": None, "code": "", "message": str(error)[:PUSH_ANSWER_MAX]}
    status = answer["status"]
    if status is not None and 200 <= status < 300:
        _record(version, CentreResults.Push.SENT, answer)
        logger.info("results of game %s v%s acknowledged by the organiser (%s)", version.game_id,
                    version.sequence, status)
        return Pushed("sent", answer)
    if status is not None and 400 <= status < 500:
        _record(version, CentreResults.Push.REFUSED, answer)
        logger.warning("results of game %s v%s refused by the organiser: %s %s %s", version.game_id,
                       version.sequence, status, answer["code"], answer["message"])
        return Pushed("refused", answer)
    _record(version, CentreResults.Push.FAILED if last_attempt else CentreResults.Push.PENDING, answer)
    logger.warning("results of game %s v%s not acknowledged (%s %s)%s", version.game_id, version.sequence,
                   status or "no answer", answer["message"][:120], "; given up" if last_attempt else "; tried again")
    return Pushed("retry", answer)


def results_changed(game_id: int) -> CentreResults | None:
    """Keep a new version when the game's results changed, and mark it to be pushed when an organiser is set;
    return the version to push (None: nothing to push)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not (GamePack.objects.filter(game_id=game_id).exists()
                            or RelayLink.objects.filter(game_id=game_id).exists()):
        return None
    version = keep_results(game)
    if organiser_address() is None:
        return None
    # Marked once: a version already pending has its attempts under way.
    marked = CentreResults.objects.filter(pk=version.pk, push_state=CentreResults.Push.NONE).update(
        push_state=CentreResults.Push.PENDING)
    return version if marked else None


def push_again(game: Game) -> CentreResults | None:
    """The arbitrator's "push again" (after a refusal, or attempts that ran out): the latest version pushed
    anew, its attempts counted from nought. None when no organiser is set."""
    if organiser_address() is None:
        return None
    version = keep_results(game)
    CentreResults.objects.filter(pk=version.pk).update(push_state=CentreResults.Push.PENDING, push_attempts=0)
    schedule_push(version.pk)
    return version
