"""The clock of a round: its start and deadline, and its close when the deadline has passed (by the task at
the deadline, the sweep, or whoever reads the game first after it)."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from tournaments.errors import Conflict
from tournaments.models import Round
from tournaments.versions import notify_game_changed

from .close import round_close, since_deadline_ms
from .logbook import log
from .roles import act_as, require_head
from .schedule import schedule_close as _schedule_close

logger = logging.getLogger(__name__)


def round_start(*, round: Round, actor=None, now: datetime | None = None) -> Round:
    """Open the round: store its deadline and schedule its close at the deadline."""
    act_as(require_head, round.game_id, actor)
    now = now or timezone.now()
    with transaction.atomic():
        current = Round.objects.select_related("game__tournament").get(pk=round.pk)
        seconds = current.game.tournament.round_seconds
        deadline = now + timedelta(seconds=seconds)
        updated = Round.objects.filter(pk=round.pk, status=Round.Status.DRAWN).update(
            status=Round.Status.OPEN, started_at=now, deadline=deadline
        )
        if not updated:
            if current.status == Round.Status.OPEN:
                raise Conflict("round_open", params={"why": "already_open"})
            raise Conflict("round_closed")
        log(game=current.game, round=current, action="round_start", actor=actor,
            after={"deadline": deadline.isoformat(), "seconds": seconds})
        notify_game_changed(current.game_id)
        round_id = current.pk
        transaction.on_commit(lambda: _schedule_close(round_id, deadline))
    current.refresh_from_db()
    return current


def round_close_if_due(*, round_id: int, now: datetime | None = None, wait: bool = True) -> bool:
    """Close the round if its deadline has passed and it is still open (what the clock's task does).

    ``wait=False``: a close made on the way by a request; when another close holds the round, leave it to
    that one instead of waiting for it."""
    now = now or timezone.now()
    round = Round.objects.filter(pk=round_id, status=Round.Status.OPEN, deadline__lte=now,
                                 paused_at__isnull=True).first()  # a paused round never closes
    if round is None:
        return False
    waited = wait_for_arriving(round, wait=wait, now=now)
    if waited is None:
        return False
    return round_close(round=round, now=timezone.now() if waited else now, wait=wait)


def wait_for_arriving(round: Round, *, wait: bool, now: datetime | None = None) -> bool | None:
    """Before a close at the deadline: until ARBITER_TRANSIT_SECONDS past it (slips in transit), then while
    slips that arrived in time are still queued in the web processes (tournaments/arriving.py), up to
    ARBITER_CLOSE_WAIT_SECONDS past the deadline, wait (``wait``) or leave the close to the clock (None).
    Returns whether it waited. ``now``: the time of the close on the way (a request's arrival, the sweep's
    time), for the transit."""
    from django.conf import settings

    from tournaments.arriving import still_arriving

    limit = round.deadline + timedelta(seconds=settings.ARBITER_CLOSE_WAIT_SECONDS)
    waited = False
    began = time.monotonic()
    # Slips on their way at the deadline are in time for ARBITER_TRANSIT_SECONDS after it (services/slips
    # in_transit): no close, so no result shown, before then.
    transit_ends = round.deadline + timedelta(seconds=settings.ARBITER_TRANSIT_SECONDS)
    if (now or timezone.now()) < transit_ends:
        if not wait:
            return None
        time.sleep(max(0.0, (transit_ends - timezone.now()).total_seconds()))
        waited = True
    while timezone.now() < limit and still_arriving(round.game_id, round.deadline):
        if not wait:
            return None
        time.sleep(settings.ARBITER_CLOSE_WAIT_POLL_SECONDS)
        waited = True
    if waited:
        logger.info("the close of game %s waited %.0f ms for slips still arriving (until its deadline %+.0f ms)",
                    round.game_id, (time.monotonic() - began) * 1000, since_deadline_ms(round))
    return waited


def game_close_if_due(*, game_id: int, now: datetime | None = None) -> bool:
    """The deadline is the truth: whoever comes first after it closes the round, whether the clock's task,
    the sweep, or a request that reads or writes the game. One indexed query when nothing is due; never
    waits for a close already under way; a failure is logged, never passed to the request."""
    now = now or timezone.now()
    round_id = (Round.objects.filter(game_id=game_id, status=Round.Status.OPEN, deadline__lte=now,
                                     paused_at__isnull=True).values_list("pk", flat=True).first())
    if round_id is None:
        return False
    try:
        return round_close_if_due(round_id=round_id, now=now, wait=False)
    except Exception:
        logger.exception("could not close round %s on the way", round_id)
        return False


def rounds_close_overdue(*, now: datetime | None = None) -> int:
    """Close every open round whose deadline has passed (the periodic sweep); return how many closed."""
    now = now or timezone.now()
    closed = 0
    overdue = Round.objects.filter(status=Round.Status.OPEN, deadline__lte=now, paused_at__isnull=True)
    for round in overdue.order_by("deadline"):
        try:
            if wait_for_arriving(round, wait=False, now=now) is None:
                continue  # slips still arriving: the clock's close waits for them
            if round_close(round=round, now=now):
                closed += 1
        except Exception:  # one round that cannot close must not keep the others open
            logger.exception("could not close round %s", round.pk)
    return closed
