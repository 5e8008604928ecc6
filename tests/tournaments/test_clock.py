"""The clock without a worker: the stored deadline decides, the sweep closes what the clock missed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import Result, Round
from tournaments.tasks import close_round, sweep_overdue_rounds

pytestmark = pytest.mark.django_db


def test_a_late_slip_is_refused_with_no_worker_and_the_sweep_closes_the_round(make_game, make_player):
    game = make_game(round_seconds=2)
    player, _ = make_player(game)
    rnd = services.round_draw(game=game)
    rnd = services.round_start(round=rnd, now=timezone.now() - timedelta(seconds=3))
    with pytest.raises(ServiceError) as caught:
        services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=8, key="k")
    assert (caught.value.code, caught.value.status) == ("round_closed", 409)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.OPEN  # no task ran

    assert sweep_overdue_rounds() == 1
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED
    assert Result.objects.get(round=rnd, player=player).reason == "no_slip"
    assert sweep_overdue_rounds() == 0


def test_the_sweep_leaves_rounds_still_running(game):
    rnd = services.round_start(round=services.round_draw(game=game))
    assert services.rounds_close_overdue() == 0
    assert services.rounds_close_overdue(now=rnd.deadline - timedelta(milliseconds=1)) == 0
    assert services.rounds_close_overdue(now=rnd.deadline) == 1
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at == rnd.deadline


def test_the_close_task_run_twice_closes_once(game, make_player):
    make_player(game)
    rnd = services.round_start(round=services.round_draw(game=game), now=timezone.now() - timedelta(seconds=200))
    assert close_round(rnd.pk) is True
    assert close_round(rnd.pk) is False
    assert Result.objects.filter(round=rnd).count() == 1
    assert close_round(10**9) is False  # a round that no longer exists


def test_tops_are_ready_before_the_close(game):
    rnd = services.round_draw(game=game, rack="ACEILMN")
    assert not rnd.tops_ready
    rnd = services.round_compute_tops(round=rnd)
    assert rnd.tops_ready and rnd.top_score == 78 and len(rnd.tops) == 2 and rnd.master in rnd.tops
    assert services.round_compute_tops(round=rnd).tops == rnd.tops
