"""Slips: handed in while the round is open (decided by the server's clock), corrected by the arbitrator."""

from __future__ import annotations

import copy
import json
import uuid
from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from engine.notation import canonical_ref
from tournaments.errors import Conflict, NotFound, ServiceError, input_refused
from tournaments.limits import (
    MESSAGE_MAX,
    REF_MAX,
    SCORE_MAX,
    SENT_AHEAD_MAX_SECONDS,
    SENT_MS_MAX,
    SEQ_MAX,
    SLIP_KEY_MAX,
)
from tournaments.logchain import GENESIS, rows_of
from tournaments.models import Game, LateSlip, LogEntry, Player, Result, Round, Slip
from tournaments.reasons import JUDGED_AFTER_CLOSE, PAPER_AFTER_CLOSE, PAPER_CHOICES
from tournaments.topping_selectors import is_topping
from tournaments.versions import notify_game_changed, notify_progress

from .clock import round_close_if_due
from .close import judge
from .incidents import clock_stopped_at
from .logbook import flush_pending, head, lock_game_if_free, log, log_pending
from .paper import round_slips_complete_if_all_in
from .results_hooks import results_changed
from .roles import act_as, require_arbitrator, require_head
from .rounds import late_message
from .setting import placement, setting_of


class HandedIn(NamedTuple):
    """What a slip carries as the player handed it in (read already: _clean_slip): its word, reference and
    claimed score, the key that makes a resend the same slip, and the device's order (``seq``, or None)."""

    word: str
    ref: str
    score: int | None
    key: str
    seq: int | None


class StaleSlip(Conflict):
    """A slip made before the one the server holds for the player: refused, the held slip is in ``held``."""

    def __init__(self, held: Slip):
        shown = " ".join(part for part in (held.word, held.ref, "" if held.claimed is None else str(held.claimed))
                          if part)
        super().__init__("stale_slip", fields={"seq": [f"older than the held slip's ({held.seq})"]},
                         params={"slip": shown})
        self.held = held


def _clean_slip(tournament, word, ref, score) -> tuple[str, str, int | None]:
    """The slip's text as handed in, refused when it cannot be read at all (bad_word, bad_ref, bad_score)."""
    from engine.notation import RefError, WordError, parse_ref, parse_word

    if not isinstance(word, str):
        raise ServiceError("bad_word", fields={"word": ["not text"]})
    try:
        word = parse_word(word, tournament.tiles)
    except WordError as error:
        raise input_refused(error, "word") from None
    if ref is not None and not isinstance(ref, str):
        raise ServiceError("bad_ref", fields={"ref": ["not text"]})
    ref = " ".join((ref or "").split())
    if len(ref) > REF_MAX:
        raise ServiceError("bad_ref", fields={"ref": ["too long"]}, params={"ref": ref[:20], "why": "shape"})
    if ref:
        try:
            parse_ref(ref, tournament.coordinates)
        except RefError as error:
            raise input_refused(error, "ref") from None
    if score is not None and (isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= SCORE_MAX):
        raise ServiceError("bad_score", fields={"score": ["out of range"]},
                           params={"max": SCORE_MAX})
    return word, ref, score


def _check_player(round: Round, player) -> Player:
    game = round.game
    if not isinstance(player, Player) or player.pk is None:
        raise NotFound("unknown_player", fields={"player": ["unknown"]}, params={"why": "none"})
    ok = Player.objects.filter(
        pk=player.pk, tournament_id=game.tournament_id, first_game__number__lte=game.number
    ).exists()
    if not ok:
        raise NotFound("unknown_player", fields={"player": ["unknown"]})
    return player


def slip_submit(  # noqa: PLR0913 - keyword-only: each argument is named at the call
    *, round: Round, player: Player, word: str, ref: str | None, score: int | None, key: str,
    now: datetime | None = None, entered_by=None, seq: int | None = None, several: bool = False,
    reason: str = "", ask_second: bool = False, sent_ms: int | None = None,
) -> tuple[Slip, bool]:
    """Hand in a slip; return (slip, created). The same key again returns the first slip unchanged; a new
    key replaces the player's earlier slip (kept, linked).

    ``now`` is the slip's arrival (arbiter.arrival.received_at: stamped before any queue in the server).
    A slip is in time when it arrived before the deadline (or was on its way at it: in_transit) and before
    the round was closed: it is accepted even when it is served after the close (a crowd at the deadline),
    and then judged at once, its result replacing the one the close wrote. Else 409 round_closed; a slip
    arriving past the deadline (and its transit) of a round still open closes it (whoever comes first after
    the deadline closes the round).

    ``seq`` is the order in which the device made its slips. A new key whose seq is lower than the held
    slip's was made before it (a request delayed on the network): it is refused with 409 stale_slip
    (StaleSlip, carrying the held slip) and changes nothing. A slip without seq, or a held slip without
    one, replaces as above.

    ``several`` (the arbitrator's paper entry): this slip is a second, different one of the player, not a
    typing correction: it replaces the held slip and pays 0 (several slips). ``reason`` goes to the log.
    ``ask_second`` (a paper entry): a different slip held for the player under another key is refused with
    409 ``second_slip`` (checked under the player's lock).

    While the arbitrator has paused the clock, a slip that arrived after the pause is refused with 409
    ``paused`` (the phone sends it again once the clock runs).

    ``sent_ms``: when the phone says it sent the slip (ms since the epoch on its server-corrected clock).
    It decides only for a slip on its way at the deadline (in_transit: sent before it, arriving at most
    ARBITER_TRANSIT_SECONDS after it); else the arrival does. A whole number out of 0..SENT_MS_MAX is refused
    (400 ``bad_sent_ms``); a late slip keeps it as ``sent_at`` when it is plausible (see _claimed_sent_at),
    and the 409 ``round_closed`` then carries ``sent_before``, the seconds it was sent before the end call.

    In a topping tournament the ``round`` given gets the tops the try was judged against (``tops_ready``,
    ``top_score``; computed here when the draw's task has not yet done it): its answer is built from them.
    """
    now = now or timezone.now()  # the time received, before any wait for the round's lock
    given = round  # the caller's copy: a topping try's answer is built from it (with the tops, below)
    if "game" not in round._state.fields_cache or "tournament" not in round.game._state.fields_cache:
        round = Round.objects.select_related("game__tournament").get(pk=round.pk)
    if not isinstance(player, Player) or player.pk is None:
        raise NotFound("unknown_player", fields={"player": ["unknown"]}, params={"why": "none"})
    if not isinstance(key, str) or not key.strip() or len(key) > SLIP_KEY_MAX:
        raise ServiceError("bad_key", fields={"key": ["bad"]},
                           params={"max": SLIP_KEY_MAX})
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= SEQ_MAX):
        raise ServiceError("bad_seq", fields={"seq": ["out of range"]},
                           params={"max": SEQ_MAX})
    if sent_ms is not None and (isinstance(sent_ms, bool) or not isinstance(sent_ms, int)
                                or not 0 <= sent_ms <= SENT_MS_MAX):
        raise ServiceError("bad_sent_ms", fields={"sent_ms": ["out of range"]}, params={"max": SENT_MS_MAX})
    word, ref, score = _clean_slip(round.game.tournament, word, ref, score)
    if round.status == Round.Status.OPEN and round.deadline is not None and now > round.deadline:
        round_close_if_due(round_id=round.pk, now=now, wait=False)
    if is_topping(round.game.tournament):
        from .topping import with_tops

        round = with_tops(round)  # each try is judged at once: the top is needed now
        given.tops_ready, given.top_score = round.tops_ready, round.top_score
    handed = HandedIn(word, ref, score, key, seq)
    try:
        return _write_slip(round, player, handed, now=now, entered_by=entered_by, several=several, reason=reason,
                           ask_second=ask_second, sent_ms=sent_ms)
    except _Late as late:
        # Refused, and kept on record (once per key), never judged: the player's result reads late.
        recorded = _record_late(late.round, player, handed, arrived=now, entered_by=entered_by,
                                sent_at=_claimed_sent_at(late.round, sent_ms, now))
        fields = {"late_by": recorded.late_by}
        if recorded.sent_at is not None and recorded.sent_at < _end_call(late.round):
            fields["sent_before"] = _seconds((_end_call(late.round) - recorded.sent_at).total_seconds())
        raise Conflict("round_closed", fields=fields, params={"late_by": recorded.late_by, "why": "slip"}) from None


def _claimed_sent_at(round: Round, sent_ms: int | None, arrived: datetime) -> datetime | None:
    """The phone's claimed send time as a time, or None when it is not plausible: before the round started,
    or after the slip arrived by more than the phone's clock correction can be off (SENT_AHEAD_MAX_SECONDS).
    An implausible claim is kept as absent, not refused: the slip is judged on its arrival anyway."""
    if sent_ms is None:
        return None
    sent = datetime.fromtimestamp(sent_ms / 1000, tz=arrived.tzinfo or timezone.get_current_timezone())
    slack = timedelta(seconds=SENT_AHEAD_MAX_SECONDS)
    started = round.started_at
    if started is None or sent < started - slack or sent > arrived + slack:
        return None
    return min(sent, arrived)


def paper_player(*, game: Game, player: int | None = None, table: int | None = None) -> Player:
    """The player a paper slip is for, named by id or by table. A table where several players sit names no
    one (409 ``shared_table``: the tables must be corrected first)."""
    players = Player.objects.in_game(game)
    if player is not None:
        found = players.filter(pk=player).first()
        if found is None:
            raise NotFound("unknown_player", fields={"player": ["not a player of this game"]}, params={"player": player})
        return found
    if table is None:
        raise ServiceError("player_required", fields={"player": ["required (or table)"]})
    found = list(players.filter(table=table).order_by("id")[:2])
    if not found:
        raise NotFound("unknown_table", fields={"table": ["no player at this table"]}, params={"table": table})
    if len(found) > 1:
        raise Conflict("shared_table", fields={"table": ["shared"]}, params={"table": table})
    return found[0]


def slip_text(slip: Slip) -> str:
    """A slip as the arbitrator reads it: word, reference, score (the parts written)."""
    ref = canonical_ref(slip.ref or "", slip.round.game.tournament.coordinates, strict=False)
    return " ".join(part for part in (slip.word, ref, "" if slip.claimed is None else str(slip.claimed)) if part)


def _other_slip(round: Round, player: Player, key: str, word: str, ref: str | None, score) -> Slip | None:
    """The player's slip held in the round when the one typed differs from it (another key, another
    content), else None."""
    held = Slip.objects.filter(round=round, player=player, current=True).select_related("round__game__tournament").first()
    if held is None or held.key == key:
        return None
    coordinates = round.game.tournament.coordinates
    typed = (word.strip(), canonical_ref(ref or "", coordinates, strict=False), score)
    if (held.word, canonical_ref(held.ref or "", coordinates, strict=False), held.claimed) == typed:
        return None  # the same slip typed again
    return held


def slip_enter_paper(  # noqa: PLR0913 - keyword-only: each argument is named at the call
    *, round: Round, word: str, ref: str | None, score: int | None, actor, player: int | None = None,
    table: int | None = None, key: str | None = None, choice: str | None = "", reasons: dict | None = None,
    now: datetime | None = None, seq: int | None = None,
) -> tuple[Slip, bool, Player]:
    """A paper slip typed by an arbitrator, for the player named by id or table: what the API and the
    console both call.

    In a closed round it is a slip handed in before the end call and typed after the close: added at once
    (slip_add), judged and logged with the reason PAPER_AFTER_CLOSE; 409 ``slip_exists`` when the player
    already has one (correct it instead). A slip handed in after the end call is entered as late instead
    (slip_enter_late).

    A different slip already held for the player (another key, another content) is refused with 409
    ``second_slip`` until the arbitrator says which it is (rules §4): ``choice="replace"`` (a typing
    correction: it replaces the held one) or ``"second"`` (a second slip: paid 0, several_slips). The
    choice is logged with the slip (``reasons`` gives its words in the arbitrator's language). With
    ``choice=None`` nothing is asked: the newer slip replaces the held one, as a phone's newer slip does (the
    API without a ``choice``). A slip without a key gets one of its own (``paper:``), so that the same entry
    sent twice is written once."""
    act_as(require_arbitrator, round.game_id, actor)
    found = paper_player(game=round.game, player=player, table=table)
    if Round.objects.filter(pk=round.pk, status=Round.Status.CLOSED).exists():
        slip = slip_add(round=round, player=found, word=word, ref=ref, score=score, reason=PAPER_AFTER_CLOSE,
                        actor=actor)
        return slip, True, found
    key = key or f"paper:{uuid.uuid4().hex}"
    held = _other_slip(round, found, key, word, ref, score) if choice is not None else None
    if held is not None and choice not in PAPER_CHOICES:
        raise _second_slip(found, held)
    reason = ""
    if held is not None:
        reason = (reasons or PAPER_CHOICES)[choice]
    # Asked and none held yet: another arbitrator may be typing the same table at this moment. The check is
    # made again under the player's lock, so one of two entries for a table is always caught.
    ask = choice is not None and held is None
    slip, created = slip_submit(round=round, player=found, word=word, ref=ref, score=score, key=key,
                                entered_by=actor, several=held is not None and choice == "second", reason=reason,
                                now=now, seq=seq, ask_second=ask)
    return slip, created, found


def _second_slip(player: Player, held: Slip) -> Conflict:
    shown = slip_text(held)
    return Conflict("second_slip",
                    f"table {player.table} already holds {shown}: a typing correction (replace) or a second "
                    "slip, paid 0 (second)?",
                    fields={"slip": [shown], "choice": ["replace or second"]},
                    params={"table": player.table, "slip": shown})


class _Late(Exception):
    def __init__(self, round: Round):
        self.round = round


def _write_slip(round: Round, player: Player, handed: HandedIn, *, now: datetime, entered_by, several: bool = False,
                reason: str = "", ask_second: bool = False, sent_ms: int | None = None) -> tuple[Slip, bool]:
    """Write the slip ``handed`` in at ``now`` (slip_submit's work, under the round's and the player's locks).
    ``sent_ms``: when the phone says it sent it, for a slip in transit at the deadline."""
    word, ref, score, key, seq = handed
    with transaction.atomic():
        # Checks too that the player plays this game; ``arrival``: the log chain's head, for the receipt.
        locked, held, arrival = _lock_round_for_slip(round, player, key)
        mine = {s.key: s for s in held}
        existing = mine.get(key)
        if existing is not None:
            if (existing.word, existing.ref, existing.claimed) != (word, ref, score):
                raise Conflict("key_reused", fields={"key": ["reused"]})
            return existing, False
        if locked.status == Round.Status.DRAWN:
            raise Conflict("round_not_open")
        if locked.status == Round.Status.OPEN and clock_stopped_at(locked, now):
            raise Conflict("paused", params={"round": round.number})
        if not _in_time(locked, now, _claimed_sent_at(locked, sent_ms, now)):
            if locked.status in (Round.Status.OPEN, Round.Status.CLOSED) and locked.deadline is not None:
                raise _Late(locked)
            raise Conflict("round_closed", params={"why": "slip"})
        previous = next((s for s in mine.values() if s.current), None)
        if ask_second and previous is not None and _other_slip(locked, player, key, word, ref, score) is not None:
            raise _second_slip(player, previous)
        if previous is not None and seq is not None and previous.seq is not None and seq < previous.seq:
            raise StaleSlip(previous)
        if previous is not None and is_topping(round.game.tournament):
            from .topping import refuse_after_top

            refuse_after_top(locked, previous)  # a try after the found top: 409 top_found
        if previous is not None:
            Slip.objects.filter(pk=previous.pk).update(current=False)
        slip = _insert_slip(Slip(
            round=locked, player=player, word=word, ref=ref, claimed=score, key=key, seq=seq, received_at=now,
            entered_by=entered_by if getattr(entered_by, "is_authenticated", False) else None,
            replaces=previous, several=several and previous is not None, chain_seq=arrival[0], chain_hash=arrival[1],
        ))
        # Served after the close (a crowd at the deadline): judged before the game's lock is asked for. With
        # ARBITER_DEFER_LATE_SLIP_LOG its entries wait beside it while another slip holds the lock, and are
        # chained with the crowd's after the commit (flush_pending); off by default: measured slower than
        # queueing for the lock (1,000 slips: 609 served after the close drained in 10 s against 282 in 3 s),
        # the waiting slips' polls costing more than they save. The clock's close waiting for the slips still
        # arriving (tournaments/arriving.py) is what keeps them few.
        closed = locked.status == Round.Status.CLOSED
        judged = _write_result(setting_of(round.game.tournament), locked, player, slip, corrected=None) if closed else None
        deferred = closed and settings.ARBITER_DEFER_LATE_SLIP_LOG and not lock_game_if_free(round.game_id)
        write_log = log_pending if deferred else log
        pending = None
        if entered_by is not None or previous is not None:
            action = "slip_enter" if previous is None else ("slip_several" if slip.several else "slip_replace")
            pending = write_log(game=round.game, round=locked, slip=slip, player=player, action=action,
                                actor=entered_by, before=_slip_dict(previous), after=_slip_dict(slip), reason=reason,
                                by="player", rows=rows_of(slips=[slip]))
        if closed:
            pending = _log_judged_late(locked, player, slip, judged, write_log)
            notify_game_changed(round.game_id)
        else:  # a first slip moves the count; a replaced one the arbitrators' lists of entries
            notify_progress(round.game_id)
    if deferred:
        flush_pending(round.game_id, mine=pending.pk)  # answered once its entries are in the chain
    return slip, True


def _end_call(round: Round):
    """When the round ended for the players: its deadline, or an earlier close by the arbitrator."""
    if round.closed_at is not None and round.closed_at < round.deadline:
        return round.closed_at
    return round.deadline


def _record_late(round: Round, player: Player, handed: HandedIn, *, arrived: datetime, entered_by=None,  # noqa: PLR0913 - keyword-only: each argument is named at the call
                 sent_at: datetime | None = None, logged: dict | None = None) -> LateSlip:
    """Keep a late slip on record (once per key: the first attempt's times) and make the player's result
    read late. ``sent_at``: when the phone says it sent it (plausible, or None). ``logged``: the log entry of
    the caller (its action, actor, after), written with the late slip and the result changed, chained; without
    it, a result made to read late is logged (``result_late``)."""
    late_by = _late_by(round, arrived)
    with transaction.atomic():
        late, _ = LateSlip.objects.get_or_create(
            round_id=round.pk, player=player, key=handed.key,
            defaults={"word": handed.word, "ref": handed.ref, "claimed": handed.score, "seq": handed.seq,
                      "received_at": arrived,
                      "late_by": late_by, "sent_at": sent_at,
                      "entered_by": entered_by if getattr(entered_by, "is_authenticated", False) else None},
        )
        changed = _mark_result_late(round, player)
        if changed is not None:
            notify_game_changed(round.game_id)
        if logged is not None or changed is not None:
            entry = logged or {"action": "result_late", "by": "player",
                               "after": {"reason": changed.reason, "late_by": late.late_by}}
            log(game=round.game, round=round, player=player, **entry,
                rows=rows_of(results=[changed], lates=[late]))
    return late


def _late_by(round: Round, arrived: datetime) -> float:
    return _seconds((arrived - _end_call(round)).total_seconds())


def _seconds(value: float) -> float:
    return round(value, 3)  # the builtin: no parameter of this function is called round


def _mark_result_late(round: Round, player: Player) -> Result | None:
    """A closed round's ``no_slip`` result of a player with a late slip reads ``late`` (how late: the
    first late slip). Returns the result changed, or None."""
    result = Result.objects.select_for_update().filter(round_id=round.pk, player=player, reason="no_slip").first()
    first = LateSlip.objects.filter(round_id=round.pk, player=player).order_by("received_at").first()
    if result is None or first is None:
        return None
    result.reason, result.message = "late", late_message(first.late_by)
    result.save(update_fields=["reason", "message"])
    return result


def _handed_in(round: Round, received_at, now: datetime) -> datetime:
    """When a late paper slip was handed in, as the arbitrator says (``None``: now). Refused (400
    ``bad_received_at``) when it is not a time with its zone, is in the future or is before the round
    started."""
    if received_at is None:
        return now
    if not isinstance(received_at, datetime) or timezone.is_naive(received_at):
        raise ServiceError("bad_received_at", fields={"received_at": ["not a time"]}, params={"why": "shape"})
    shown = timezone.localtime(received_at).strftime("%H:%M:%S")
    if received_at > now:
        raise ServiceError("bad_received_at", fields={"received_at": ["in the future"]}, params={"why": "future", "time": shown})
    started = round.started_at
    if started is not None and received_at < started:
        start = timezone.localtime(started).strftime("%H:%M:%S")
        raise ServiceError("bad_received_at", fields={"received_at": ["before the round started"]},
                           params={"why": "before_start", "time": shown, "started": start})
    return received_at


def slip_enter_late(*, round: Round, player: Player, word: str, ref: str | None, score: int | None, actor,
                    received_at: datetime | None = None) -> LateSlip:
    """A paper slip handed in after the end call, entered by the arbitrator: on record, paid 0 (late).

    ``received_at``: when it was handed in, as the arbitrator says (default now): its late by is counted
    from it, not from when it was typed. A time in the future or before the round started is refused
    (400 ``bad_received_at``); a time before the end call counts as handed in at the end call."""
    act_as(require_arbitrator, round.game_id, actor)
    round = Round.objects.select_related("game__tournament").get(pk=round.pk)
    player = _check_player(round, player)
    word, ref, score = _clean_slip(round.game.tournament, word, ref, score)
    if round.status != Round.Status.CLOSED:
        raise Conflict("round_not_closed", params={"why": "late_paper"})
    arrived = _handed_in(round, received_at, timezone.now())
    handed = HandedIn(word, ref, score, key=f"paper-late:{uuid.uuid4()}", seq=None)
    at = max(arrived, _end_call(round))
    late = _record_late(round, player, handed, arrived=at, entered_by=actor, logged={
        "action": "late_enter", "actor": actor,
        "after": {"word": word, "ref": ref, "claimed": score, "late_by": _late_by(round, at),
                  "received_at": at.isoformat()}})
    round_slips_complete_if_all_in(round)  # a late slip is what the player handed in: entered
    return late


def late_slip_admit(*, late: LateSlip, reason: str, actor) -> Slip:
    """The arbitrator admits a late slip (the fault was the venue's): it becomes the player's slip of the
    closed round, judged at once, logged like any correction."""
    act_as(require_head, late.round.game_id, actor)
    reason_text = " ".join(str(reason or "").split())
    if not reason_text:
        raise ServiceError("reason_required", fields={"reason": ["required"]}, params={"why": "admit"})
    with transaction.atomic():
        late = LateSlip.objects.select_for_update().select_related("round__game__tournament", "player").get(pk=late.pk)
        round = Round.objects.select_for_update().select_related("game__tournament").get(pk=late.round_id)
        if late.admitted_id is not None:
            raise Conflict("already_admitted")
        if round.status != Round.Status.CLOSED:
            raise Conflict("round_not_closed", params={"why": "late"})
        if Slip.objects.filter(round=round, player=late.player, current=True).exists():
            raise Conflict("slip_exists")
        chain_seq, chain_hash = head(round.game_id)  # the head as the slip is written
        slip = Slip.objects.create(
            round=round, player=late.player, word=late.word, ref=late.ref, claimed=late.claimed,
            key=f"admitted:{late.pk}", seq=late.seq, received_at=late.received_at,
            entered_by=actor if getattr(actor, "is_authenticated", False) else None,
            chain_seq=chain_seq, chain_hash=chain_hash,
        )
        held, result = _write_result(setting_of(round.game.tournament), round, late.player, slip, corrected=True)
        before = {"result": held}
        late.admitted = slip
        late.save(update_fields=["admitted"])
        log(game=round.game, round=round, slip=slip, player=late.player, action="late_admit", actor=actor,
            before=before, after={"slip": _slip_dict(slip), "result": _result_dict(result),
                                  "late_by": late.late_by}, reason=reason_text,
            rows=rows_of(slips=[slip], results=[result], lates=[late]))
        notify_game_changed(round.game_id)
        results_changed(round.game_id)
    return slip


def _lock_round_for_slip(round: Round, player: Player, key: str) -> tuple[Round, list[Slip], tuple[int, str]]:
    """Lock the round against a close while this slip is written, and the player against their own other
    slips; then read the player's slip with this key and their current slip (_slips_of). On PostgreSQL the
    round is locked FOR SHARE: slips of different players are written side by side, and the close's
    conditional update (which needs the row exclusively) waits for those under way, while slips arriving
    meanwhile wait for the close and then see it. Elsewhere the round is locked whole (SQLite writes one
    transaction at a time anyway). Returns the round, those slips and the log chain's head (seq, hash): the
    slip's arrival, as its receipt carries it."""
    from django.db import connection

    game = round.game
    if connection.vendor != "postgresql":
        locked = Round.objects.select_for_update().get(pk=round.pk)
        _check_player(round, player)
        locked.game = game
        return locked, _slips_of(locked, player, key), head(game.pk)
    # The round first, then the player: the close holds the round and then checks the player rows its
    # results point at (a key-share lock, which NO KEY UPDATE lets through): no cycle can form. The state a
    # slip depends on, read again under the lock (the rest of the row was read before). Plain queries: every
    # slip of a hall runs them. The player's row only is locked (the games it may play are a subquery, not a
    # join). The three statements go in one round trip (client-side binding: several statements with
    # parameters in one call); the server runs them one after the other, each with its own snapshot, so the
    # slips are read once the player's lock is held, as when they were sent one by one. The fourth reads the
    # log chain's head (the receipt's), by the index on the game's places: no round trip of its own.
    params = ([round.pk], [player.pk, game.tournament_id, game.tournament_id, game.number],
              [round.pk, player.pk, key], [game.pk])
    with connection.cursor() as cursor:
        if _several_statements(cursor):
            cursor.execute(";\n".join(_LOCK_SQL), [value for group in params for value in group])
            state = cursor.fetchone()
            cursor.nextset()
            plays_here = cursor.fetchone() is not None
            cursor.nextset()
            rows = cursor.fetchall()
            cursor.nextset()
            last = cursor.fetchone()
        else:
            cursor.execute(_LOCK_SQL[0], params[0])
            state = cursor.fetchone()
            cursor.execute(_LOCK_SQL[1], params[1])
            plays_here = cursor.fetchone() is not None
            cursor.execute(_LOCK_SQL[2], params[2])
            rows = cursor.fetchall()
            cursor.execute(_LOCK_SQL[3], params[3])
            last = cursor.fetchone()
    if not plays_here:
        raise NotFound("unknown_player", fields={"player": ["unknown"]})
    locked = copy.copy(round)
    locked.status, locked.deadline, locked.closed_at, locked.paused_at, incidents = state
    locked.incidents = json.loads(incidents) if isinstance(incidents, str) else (incidents or [])
    locked.game = game
    return locked, [_slip_from_row(row) for row in rows], (last[0], last[1]) if last else (0, GENESIS)


_SLIP_FIELDS = Slip._meta.concrete_fields
_SLIP_COLUMNS = ", ".join(f'"{f.column}"' for f in _SLIP_FIELDS)
_LOCK_SQL = (
    f'SELECT "status", "deadline", "closed_at", "paused_at", "incidents" FROM "{Round._meta.db_table}" '
    'WHERE "id" = %s FOR SHARE',
    f'SELECT "id" FROM "{Player._meta.db_table}" WHERE "id" = %s AND "tournament_id" = %s AND "first_game_id" IN '
    f'(SELECT "id" FROM "{Game._meta.db_table}" WHERE "tournament_id" = %s AND "number" <= %s) FOR NO KEY UPDATE',
    f'SELECT {_SLIP_COLUMNS} FROM "{Slip._meta.db_table}" '
    'WHERE "round_id" = %s AND "player_id" = %s AND ("key" = %s OR "current")',
    f'SELECT "seq", "hash" FROM "{LogEntry._meta.db_table}" WHERE "game_id" = %s ORDER BY "seq" DESC LIMIT 1',
)


def _several_statements(cursor) -> bool:
    """Whether the connection's cursor binds its parameters itself (psycopg's ClientCursor, Django's
    default), and so takes several statements in one call."""
    import psycopg

    return isinstance(getattr(cursor, "cursor", None), psycopg.ClientCursor)


def _slip_from_row(row) -> Slip:
    from tournaments.selectors import _load

    return _load(Slip, _SLIP_FIELDS, row)


_INSERT_FIELDS = [f for f in _SLIP_FIELDS if not f.primary_key]
_INSERT_COLUMNS = ", ".join(f'"{f.column}"' for f in _INSERT_FIELDS)
_INSERT_SQL = (f'INSERT INTO "{Slip._meta.db_table}" ({_INSERT_COLUMNS}) '
               f'VALUES ({", ".join(["%s"] * len(_INSERT_FIELDS))}) RETURNING "id"')


def _insert_slip(slip: Slip) -> Slip:
    """Save a new slip as ``Slip.objects.create`` does, in one plain INSERT on PostgreSQL: every slip of a
    hall is written here, and the ORM's insert (compiling the statement each time) cost a fifth of the
    slip's server time. Elsewhere, or when anything listens to the model's save signals, the ORM's save."""
    from django.db import connection
    from django.db.models.signals import post_save, pre_save

    if connection.vendor != "postgresql" or pre_save.has_listeners(Slip) or post_save.has_listeners(Slip):
        slip.save(force_insert=True)
        return slip
    values = [field.get_db_prep_save(field.pre_save(slip, True), connection) for field in _INSERT_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_SQL, values)
        slip.pk = cursor.fetchone()[0]
    slip._state.adding, slip._state.db = False, connection.alias
    return slip


def _slips_of(round: Round, player: Player, key: str) -> list[Slip]:
    """The player's slip with this key and their current slip, in this round (a plain query)."""
    fields = Slip._meta.concrete_fields
    columns = ", ".join(f'"{f.column}"' for f in fields)
    slips = Slip.objects.raw(
        f'SELECT {columns} FROM "{Slip._meta.db_table}" WHERE "round_id" = %s AND "player_id" = %s '
        'AND ("key" = %s OR "current")', [round.pk, player.pk, key])
    return list(slips)


def _in_time(round: Round, arrived: datetime, sent: datetime | None = None) -> bool:
    """Arrived before the deadline, or in transit at it (in_transit), and before the round was closed (the
    arbitrator may close it early: then no slip is in transit)."""
    if round.status not in (Round.Status.OPEN, Round.Status.CLOSED) or round.deadline is None:
        return False
    if arrived > round.deadline and not in_transit(round, arrived, sent):
        return False
    return round.status == Round.Status.OPEN or (round.closed_at is not None and arrived <= round.closed_at)


def in_transit(round: Round, arrived: datetime, sent: datetime | None) -> bool:
    """A phone's slip on its way at the deadline (docs/rules.md §4, in transit): sent before it, by the phone's word
    (sent_ms on its server-corrected clock, plausible), and arrived at most ARBITER_TRANSIT_SECONDS after it.
    The clock's close waits that long (services/clock.wait_for_arriving), so that no result is shown before."""
    transit = timedelta(seconds=settings.ARBITER_TRANSIT_SECONDS)
    return (sent is not None and round.deadline is not None and sent <= round.deadline
            and arrived <= round.deadline + transit)


def _log_judged_late(round: Round, player: Player, slip: Slip, judged: tuple[dict | None, Result], write_log):
    """A slip that arrived in time but was served after the close is judged at once (``judged``: the result
    held before and its own, from _write_result), its result replacing the one the close wrote (``no_slip``
    or the player's earlier slip): logged by ``write_log`` (``log``, or ``log_pending`` while another slip
    holds the game's lock: then chained after the commit)."""
    before, result = judged
    return write_log(game=round.game, round=round, slip=slip, player=player, action="slip_judged_late",
                       before={"result": before}, after={"slip": _slip_dict(slip), "result": _result_dict(result),
                                                         "received_at": slip.received_at.isoformat()},
                       reason=JUDGED_AFTER_CLOSE, rows=rows_of(slips=[slip], results=[result]))


def _slip_dict(slip: Slip | None) -> dict | None:
    if slip is None:
        return None
    return {"id": slip.pk, "word": slip.word, "ref": slip.ref, "claimed": slip.claimed}


def _write_result(setting, round: Round, player: Player, slip: Slip, corrected: bool | None) -> tuple[dict | None, Result]:
    """Judge the slip and make it the player's result of the closed round (created, or replacing the
    result held, locked); return (the result held before, as the log keeps it, and the result).
    ``corrected``: the arbitrator's doing (True) or not; None leaves the mark as it was."""
    result = Result.objects.select_for_update().filter(round=round, player=player).first()
    before = _result_dict(result)
    judgement = judge(setting, round, slip)
    fields = {"slip": slip, "paid": judgement.paid, "outcome": judgement.outcome, "reason": judgement.reason,
              "message": judgement.message[:MESSAGE_MAX], "placement": placement(setting, judgement)}
    if corrected is not None:
        fields["corrected"] = corrected
    if result is None:
        result = Result.objects.create(round=round, player=player, **fields)
    else:
        for name, value in fields.items():
            setattr(result, name, value)
        result.save()
    return before, result


def _result_dict(result: Result | None) -> dict | None:
    if result is None:
        return None
    return {"paid": result.paid, "outcome": result.outcome, "reason": result.reason}


def slip_correct(
    *, slip: Slip, reason: str, actor, word: str | None = None, ref: str | None = None, score: int | None = None
) -> Slip:
    """Correct a slip (the arbitrator's decision, logged with why): the corrected slip replaces it, and a
    closed round's result is judged again, so the standings follow. Return the corrected slip."""
    act_as(require_arbitrator, slip.round.game_id, actor)
    reason_text = " ".join(str(reason or "").split())
    if not reason_text:
        raise ServiceError("reason_required", fields={"reason": ["required"]})
    slip = Slip.objects.select_related("round__game__tournament", "player").get(pk=slip.pk)
    tournament = slip.round.game.tournament
    new_word = slip.word if word is None else word
    new_ref = slip.ref if ref is None else ref
    new_score = slip.claimed if score is None else score
    new_word, new_ref, new_score = _clean_slip(tournament, new_word, new_ref, new_score)
    with transaction.atomic():
        round = Round.objects.select_for_update().get(pk=slip.round_id)
        Game.objects.select_for_update().get(pk=round.game_id)
        original = Slip.objects.select_for_update().get(pk=slip.pk)
        if not original.current:
            raise Conflict("slip_replaced")
        Slip.objects.filter(pk=original.pk).update(current=False)
        chain_seq, chain_hash = head(round.game_id)
        corrected = Slip.objects.create(
            round=round, player=original.player, word=new_word, ref=new_ref, claimed=new_score,
            key=f"correction:{uuid.uuid4()}", seq=original.seq, received_at=original.received_at,
            entered_by=actor if getattr(actor, "is_authenticated", False) else None, replaces=original,
            chain_seq=chain_seq, chain_hash=chain_hash,
        )
        before = {"slip": _slip_dict(original)}
        after = {"slip": _slip_dict(corrected)}
        result = None
        if round.status == Round.Status.CLOSED:
            before["result"], result = _write_result(setting_of(tournament), round, original.player, corrected,
                                                     corrected=True)
            after["result"] = _result_dict(result)
        log(game=round.game, round=round, slip=corrected, player=original.player, action="slip_correct",
            actor=actor, before=before, after=after, reason=reason_text,
            rows=rows_of(slips=[corrected], results=[result]))
        notify_game_changed(round.game_id)
        if round.status == Round.Status.CLOSED:
            results_changed(round.game_id)
    return corrected


def slip_add(
    *, round: Round, player: Player, word: str, ref: str | None, score: int | None, reason: str, actor
) -> Slip:
    """The arbitrator enters a slip for a player who has none in a closed round (a paper slip handed in
    on time but entered late); it is judged at once and logged. While the round is open, use slip_submit."""
    act_as(require_arbitrator, round.game_id, actor)
    reason_text = " ".join(str(reason or "").split())
    if not reason_text:
        raise ServiceError("reason_required", fields={"reason": ["required"]}, params={"why": "added"})
    round = Round.objects.select_related("game__tournament").get(pk=round.pk)
    player = _check_player(round, player)
    tournament = round.game.tournament
    word, ref, score = _clean_slip(tournament, word, ref, score)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round.pk)
        if locked.status != Round.Status.CLOSED:
            raise Conflict("round_not_closed", params={"why": "open"})
        if Slip.objects.filter(round=locked, player=player, current=True).exists():
            raise Conflict("slip_exists")
        chain_seq, chain_hash = head(round.game_id)  # the head as the slip is written
        slip = Slip.objects.create(
            round=locked, player=player, word=word, ref=ref, claimed=score, key=f"added:{uuid.uuid4()}",
            received_at=locked.deadline or timezone.now(),
            entered_by=actor if getattr(actor, "is_authenticated", False) else None,
            chain_seq=chain_seq, chain_hash=chain_hash,
        )
        held, result = _write_result(setting_of(tournament), locked, player, slip, corrected=True)
        before = {"slip": None, "result": held}
        log(game=round.game, round=locked, slip=slip, player=player, action="slip_add", actor=actor,
            before=before, after={"slip": _slip_dict(slip), "result": _result_dict(result)}, reason=reason_text,
            rows=rows_of(slips=[slip], results=[result]))
        round_slips_complete_if_all_in(locked)  # the last paper slip missing: the standings are final
        notify_game_changed(round.game_id)
        results_changed(round.game_id)
    return slip


def result_override(*, result: Result, paid: int, outcome: str, reason: str, actor) -> Result:
    """The arbitrator's own ruling on a result, whatever the engine judged (logged with why)."""
    reason_text = " ".join(str(reason or "").split())
    if not reason_text:
        raise ServiceError("reason_required", fields={"reason": ["required"]}, params={"why": "ruling"})
    if isinstance(paid, bool) or not isinstance(paid, int) or not 0 <= paid <= SCORE_MAX:
        raise ServiceError("bad_score", fields={"paid": ["bad"]},
                           params={"max": SCORE_MAX})
    if outcome not in Result.Outcome.values:
        raise ServiceError("bad_outcome", fields={"outcome": ["unknown"]},
                           params={"choices": ", ".join(Result.Outcome.values)})
    if outcome == Result.Outcome.ZERO and paid:
        raise ServiceError("bad_outcome", fields={"outcome": ["zero pays 0"]}, params={"why": "zero"})
    with transaction.atomic():
        current = Result.objects.select_for_update().select_related("round").get(pk=result.pk)
        before = _result_dict(current)
        current.paid, current.outcome, current.reason = paid, outcome, "arbitrator"
        current.message, current.corrected = reason_text[:MESSAGE_MAX], True
        current.save()
        log(game=current.round.game, round=current.round, player=current.player, action="result_override",
            actor=actor, before=before, after=_result_dict(current), reason=reason_text, rows=rows_of(results=[current]))
        notify_game_changed(current.round.game_id)
        results_changed(current.round.game_id)
    return current
