"""Incidents in the hall, handled by the head arbitrator while a round is under way: the clock paused and
resumed, a round extended, a round cancelled (and drawn again under the same number), a mistyped rack
replaced before the start.

Every action is logged with who and why and appended to the round's ``incidents``; every screen is told
(``notify_game_changed``). A paused round never closes: the clock's task, the sweep and the close made on
the way by a request all skip it, and resuming sets a new deadline from the time that was left.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from engine.drawing import RackError
from tournaments.errors import Conflict, ServiceError
from tournaments.limits import REASON_MAX, TYPED_RACK_MAX
from tournaments.models import Game, Round, Slip
from tournaments.versions import notify_game_changed

from .draw import rack_refused, typed_draw
from .logbook import log
from .roles import act_as, require_head
from .schedule import schedule_close, schedule_tops
from .sealed import refuse_if_sealed
from .setting import setting_of, sorted_letters

PAUSE = "pause"
RESUME = "resume"
EXTEND = "extend"
CANCEL = "cancel"
RACK_FIX = "rack_fix"


def _reason(reason, *, required: bool = True) -> str:
    text = " ".join(str(reason or "").split())
    if required and not text:
        raise ServiceError("reason_required", fields={"reason": ["required"]}, params={"why": "incident"})
    if len(text) > REASON_MAX:
        raise ServiceError("reason_too_long", fields={"reason": ["too long"]}, params={"max": REASON_MAX})
    return text


def _by(actor) -> str | None:
    return actor.get_username() if getattr(actor, "is_authenticated", False) else None


def _record(round: Round, action: str, actor, reason: str, now: datetime, **details) -> list[dict]:
    """The round's incidents with this one appended (to be saved by the caller)."""
    entry = {"action": action, "at": now.isoformat(), "by": _by(actor), "reason": reason, **details}
    return [*round.incidents, entry]


def _locked(round: Round) -> Round:
    return Round.objects.select_for_update().select_related("game__tournament").get(pk=round.pk)


def _refuse_unless_open(round: Round) -> None:
    if round.status == Round.Status.DRAWN:
        raise Conflict("round_not_open", params={"round": round.number})
    if round.status != Round.Status.OPEN:
        raise Conflict("round_closed", params={"round": round.number})


def _seconds(value: float) -> float:
    return round(max(0.0, value), 3)  # the builtin: no parameter of this function is called round


def clock_stopped_at(round: Round, now: datetime) -> bool:
    """Whether the round's clock stood still at ``now``: paused since before it, or in a pause resumed
    since (a slip that arrived during a pause and is handled after the resume is refused all the same)."""
    if round.paused_at is not None and now >= round.paused_at:
        return True
    started = None
    for entry in round.incidents or ():
        if entry.get("action") == PAUSE:
            started = datetime.fromisoformat(entry["at"])
        elif entry.get("action") == RESUME and started is not None:
            if started <= now < datetime.fromisoformat(entry["at"]):
                return True
            started = None
    return False


def refuse_if_paused(round: Round) -> None:
    """409 ``paused`` for an action a paused round does not allow (its close): resume it first."""
    if Round.objects.filter(pk=round.pk, paused_at__isnull=False).exists():
        raise Conflict("paused", params={"round": round.number, "why": "resume"})


def round_pause(*, round: Round, reason: str, actor=None, now: datetime | None = None) -> Round:
    """Stop the clock of an open round: the time left is kept, slips are refused (409 ``paused``) and the
    round does not close until it is resumed. 409 ``paused`` when already paused, ``deadline_passed``
    when the deadline has come (the round closes)."""
    act_as(require_head, round.game_id, actor)
    text = _reason(reason)
    now = now or timezone.now()
    with transaction.atomic():
        current = _locked(round)
        _refuse_unless_open(current)
        if current.paused_at is not None:
            raise Conflict("paused", params={"round": current.number, "why": "already"})
        left = (current.deadline - now).total_seconds()
        if left <= 0:
            raise Conflict("deadline_passed", params={"round": current.number})
        left = _seconds(left)
        incidents = _record(current, PAUSE, actor, text, now, time_left=left)
        Round.objects.filter(pk=current.pk).update(paused_at=now, time_left=left, incidents=incidents)
        log(game=current.game, round=current, action="round_pause", actor=actor, reason=text,
            before={"deadline": current.deadline.isoformat()}, after={"time_left": left})
        notify_game_changed(current.game_id)
    current.refresh_from_db()
    return current


def round_resume(*, round: Round, reason: str = "", actor=None, now: datetime | None = None) -> Round:
    """Start the clock again: the new deadline is now plus the time that was left. 409 ``not_paused``."""
    act_as(require_head, round.game_id, actor)
    text = _reason(reason, required=False)
    now = now or timezone.now()
    with transaction.atomic():
        current = _locked(round)
        _refuse_unless_open(current)
        if current.paused_at is None:
            raise Conflict("not_paused", params={"round": current.number})
        deadline = now + timedelta(seconds=current.time_left or 0)
        paused_for = _seconds((now - current.paused_at).total_seconds())
        incidents = _record(current, RESUME, actor, text, now, time_left=current.time_left,
                            paused_seconds=paused_for, deadline=deadline.isoformat())
        Round.objects.filter(pk=current.pk).update(paused_at=None, time_left=None, deadline=deadline,
                                                   incidents=incidents)
        log(game=current.game, round=current, action="round_resume", actor=actor, reason=text,
            before={"deadline": current.deadline.isoformat(), "time_left": current.time_left},
            after={"deadline": deadline.isoformat(), "paused_seconds": paused_for})
        notify_game_changed(current.game_id)
        round_id = current.pk
        transaction.on_commit(lambda: schedule_close(round_id, deadline))
    current.refresh_from_db()
    return current


def max_extend_seconds() -> int:
    return int(settings.ARBITER_MAX_EXTEND_SECONDS)


def round_extend(*, round: Round, seconds: int, reason: str, actor=None, now: datetime | None = None) -> Round:
    """Add ``seconds`` to the clock of an open round, before its deadline (to the time left while paused).
    400 ``bad_seconds`` outside 1..ARBITER_MAX_EXTEND_SECONDS; 409 ``deadline_passed`` once it has come."""
    act_as(require_head, round.game_id, actor)
    most = max_extend_seconds()
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= most:
        raise ServiceError("bad_seconds", fields={"extra_seconds": ["out of range"]}, params={"max": most})
    text = _reason(reason)
    now = now or timezone.now()
    with transaction.atomic():
        current = _locked(round)
        _refuse_unless_open(current)
        paused = current.paused_at is not None
        if not paused and current.deadline <= now:
            raise Conflict("deadline_passed", params={"round": current.number})
        deadline = current.deadline + timedelta(seconds=seconds)
        changes = {"deadline": deadline, "extended_seconds": current.extended_seconds + seconds}
        if paused:
            changes["time_left"] = _seconds((current.time_left or 0) + seconds)
        changes["incidents"] = _record(current, EXTEND, actor, text, now, seconds=seconds,
                                       deadline=None if paused else deadline.isoformat(),
                                       time_left=changes.get("time_left"))
        Round.objects.filter(pk=current.pk).update(**changes)
        log(game=current.game, round=current, action="round_extend", actor=actor, reason=text,
            before={"deadline": current.deadline.isoformat(), "time_left": current.time_left},
            after={"seconds": seconds, "deadline": deadline.isoformat(), "time_left": changes.get("time_left")})
        notify_game_changed(current.game_id)
        if not paused:
            round_id = current.pk
            transaction.on_commit(lambda: schedule_close(round_id, deadline))
    current.refresh_from_db()
    return current


def round_cancel(*, round: Round, reason: str, actor=None, now: datetime | None = None) -> Round:
    """Cancel a drawn or open round (the wrong rack was announced, the bag was mishandled).

    Its slips are kept, void (a cancelled round is never judged); the letters drawn for it go back into the
    bag and the letters kept from the round before stay kept, so the round is drawn again under the same
    number, from the same letters. Phones are told; the log and the game record show it with its reason.
    409 ``round_closed`` for a closed round."""
    act_as(require_head, round.game_id, actor)
    text = _reason(reason)
    now = now or timezone.now()
    with transaction.atomic():
        current = _locked(round)
        if current.status not in (Round.Status.DRAWN, Round.Status.OPEN):
            raise Conflict("round_closed", params={"round": current.number, "why": "cancel"})
        game = Game.objects.select_for_update().select_related("tournament").get(pk=current.game_id)
        slips = Slip.objects.filter(round=current).count()
        was = {"status": current.status, "rack": current.rack, "bag": game.bag, "kept": game.kept}
        incidents = _record(current, CANCEL, actor, text, now, status=current.status, rack=current.rack,
                            slips=slips)
        Round.objects.filter(pk=current.pk).update(status=Round.Status.CANCELLED, cancel_reason=text,
                                                   paused_at=None, time_left=None, incidents=incidents)
        game.bag = sorted_letters(game.bag + current.drawn)
        game.kept = current.kept
        game.save(update_fields=["bag", "kept"])
        log(game=game, round=current, action="round_cancel", actor=actor, reason=text, before=was,
            after={"status": Round.Status.CANCELLED, "bag": game.bag, "kept": game.kept, "void_slips": slips})
        notify_game_changed(game.pk)
    current.refresh_from_db()
    return current


def round_fix_rack(*, round: Round, rack: str, reason: str, actor=None, now: datetime | None = None) -> Round:
    """Replace a mistyped rack before the clock starts (``EIRST?A`` typed for ``EIRSTSA``), with the same
    checks against the bag as a typed draw; the tops are computed again. 409 ``round_not_drawn`` once the
    clock has started, ``same_rack`` when nothing changes; the rack's own refusals as for a draw. 409
    ``pack_sequence`` in a game played from a sealed pack (its racks are the pack's)."""
    act_as(require_head, round.game_id, actor)
    refuse_if_sealed(round.game_id, "fix")
    if not isinstance(rack, str) or not rack.strip():
        raise ServiceError("bad_letters", fields={"rack": ["required"]}, params={"why": "required"})
    if len(rack) > TYPED_RACK_MAX:
        raise ServiceError("wrong_size", fields={"rack": ["too long"]}, params={"why": "too_long"})
    text = _reason(reason)
    now = now or timezone.now()
    with transaction.atomic():
        current = _locked(round)
        if current.status != Round.Status.DRAWN:
            raise Conflict("round_not_drawn", params={"round": current.number})
        game = Game.objects.select_for_update().select_related("tournament").get(pk=current.game_id)
        setting = setting_of(game.tournament)
        # The bag as it was before this rack was drawn (an explosive rack's letter back in it, its blank out).
        bag = list(game.bag) + list(current.drawn)
        try:
            # As a typed draw: an explosive game's blank becomes the letter of the fixed rack's top.
            draw = typed_draw(game, setting, bag, current.kept, rack, current.number)
        except RackError as error:
            raise rack_refused(error, setting.tileset) from None
        if (draw.rack, draw.replaced) == (current.rack, current.replaced):
            raise Conflict("same_rack", fields={"rack": ["unchanged"]},
                           params={"rack": draw.rack})
        new_bag = "".join(draw.bag)
        incidents = _record(current, RACK_FIX, actor, text, now, before=current.rack, after=draw.rack,
                            typed_before=current.typed)
        Round.objects.filter(pk=current.pk).update(
            rack=draw.rack, kept=draw.kept, drawn=draw.drawn, bag_after=new_bag, typed=True, tops_ready=False,
            tops=[], top_score=None, master=None, incidents=incidents, replaced=draw.replaced,
        )
        before = {"rack": current.rack, "bag": game.bag}
        game.bag = new_bag
        game.save(update_fields=["bag", "draws"])
        after = {"rack": draw.rack, "bag": new_bag}
        if draw.replaced:  # explosive: the letter that took the new blank's place
            after["replaced"] = draw.replaced
        log(game=game, round=current, action="rack_fix", actor=actor, reason=text, before=before, after=after)
        notify_game_changed(game.pk)
        round_id = current.pk
        transaction.on_commit(lambda: schedule_tops(round_id))
    current.refresh_from_db()
    return current
