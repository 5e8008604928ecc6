"""A pause across the deadline with a real Celery worker on Redis and PostgreSQL: the worker's close at the
original deadline closes nothing; after the resume it closes the round at the new deadline."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from tournaments import services
from tournaments.models import LogEntry, Result, Round

from .stack import wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)",
    ),
]


def test_a_round_paused_across_its_deadline_closes_at_the_deadline_set_on_resuming(worker, make_game, make_player,
                                                                                   arbitrator):
    game = make_game(round_seconds=2)
    ann, _ = make_player(game, "Ann")
    rnd = services.round_draw(game=game, rack="ACEILMN")
    assert wait_for(lambda: Round.objects.filter(pk=rnd.pk, tops_ready=True).exists(), 30)  # a bound, not a timing
    rnd = services.round_start(round=rnd)  # the worker is told to close it at the deadline, 2 s from now
    original = rnd.deadline
    time.sleep(0.5)
    paused = services.round_pause(round=rnd, reason="the lights went out", actor=arbitrator)
    left = paused.time_left
    assert 1.0 < left < 1.6

    # The worker's close comes at the original deadline, and a second after it: the round stays open.
    time.sleep(max(0.0, (original - timezone.now()).total_seconds()) + 1.0)
    current = Round.objects.get(pk=rnd.pk)
    assert current.status == Round.Status.OPEN and current.closed_at is None
    assert not Result.objects.filter(round=rnd).exists()
    assert not LogEntry.objects.filter(round=rnd, action="round_close").exists()

    resumed = services.round_resume(round=rnd, actor=arbitrator)
    assert resumed.deadline > original
    services.slip_submit(round=resumed, player=ann, word="MELANIC", ref="H4", score=78, key="a")
    closed = wait_for(lambda: Round.objects.filter(pk=rnd.pk, status=Round.Status.CLOSED).first(), left + 5)
    seen_at = time.time()
    assert closed is not None, "the worker did not close the resumed round"
    assert closed.closed_at >= resumed.deadline
    assert seen_at - resumed.deadline.timestamp() < 1.0
    assert Result.objects.get(round=rnd, player=ann).paid == 78
    assert LogEntry.objects.filter(round=rnd, action="round_close").count() == 1
