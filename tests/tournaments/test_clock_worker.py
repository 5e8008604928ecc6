"""The clock with a real Celery worker on Redis and PostgreSQL: a 2-second round closes by itself."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection

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


def test_a_two_second_round_is_closed_by_the_worker_at_its_deadline_once(worker, make_game, make_player):
    # One test, so that one worker at a time consumes the queue even when tests run in parallel.
    from tournaments.tasks import close_round

    game = make_game(round_seconds=2)
    ann, _ = make_player(game, "Ann")
    bob, _ = make_player(game, "Bob")
    rnd = services.round_draw(game=game, rack="ACEILMN")
    # The worker computes the tops as soon as the rack is drawn.
    assert wait_for(lambda: Round.objects.filter(pk=rnd.pk, tops_ready=True).exists(), 30)  # a bound, not a timing
    rnd = services.round_start(round=rnd)
    services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key="a")
    services.slip_submit(round=rnd, player=bob, word="MELANIC", ref="H3", score=70, key="b")

    closed = wait_for(lambda: Round.objects.filter(pk=rnd.pk, status=Round.Status.CLOSED).first(), 6)
    seen_at = time.time()
    assert closed is not None, "the worker did not close the round"
    assert closed.closed_at >= closed.deadline
    assert seen_at - closed.deadline.timestamp() < 1.0
    results = {r.player_id: r for r in Result.objects.filter(round=rnd)}
    assert len(results) == 2 and results[ann.pk].paid == 78 and results[bob.pk].outcome == "warning"

    # Duplicate close tasks for the next round (besides the one the start scheduled) close it once.
    second = services.round_start(round=services.round_draw(game=game))
    for _ in range(3):
        close_round.apply_async(args=[second.pk], countdown=2.1)
    assert wait_for(lambda: Round.objects.filter(pk=second.pk, status=Round.Status.CLOSED).exists(), 6)
    time.sleep(1.0)
    assert Result.objects.filter(round=second).count() == 2
    assert LogEntry.objects.filter(round=second, action="round_close").count() == 1
