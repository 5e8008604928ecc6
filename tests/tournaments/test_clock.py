"""The clock without a worker: the stored deadline decides, the sweep closes what the clock missed."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import LogEntry, Result, Round
from tournaments.tasks import close_round, sweep_overdue_rounds

pytestmark = pytest.mark.django_db


def test_a_late_slip_is_refused_and_closes_the_round_with_no_worker(make_game, make_player):
    game = make_game(round_seconds=2)
    player, _ = make_player(game)
    rnd = services.round_draw(game=game)
    rnd = services.round_start(round=rnd, now=timezone.now() - timedelta(seconds=3))
    with pytest.raises(ServiceError) as caught:
        services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=8, key="k")
    assert (caught.value.code, caught.value.status) == ("round_closed", 409)
    # Whoever comes first after the deadline closes the round: here the late slip itself, kept on record:
    # the player's result reads late (rules §4), not no_slip.
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED
    result = Result.objects.get(round=rnd, player=player)
    assert (result.reason, result.paid) == ("late", 0) and "after the end call" in result.message
    assert sweep_overdue_rounds() == 0


def test_the_sweep_closes_what_nobody_read(make_game, make_player):
    game = make_game(round_seconds=2)
    player, _ = make_player(game)
    rnd = services.round_start(round=services.round_draw(game=game), now=timezone.now() - timedelta(seconds=3))
    assert sweep_overdue_rounds() == 1
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED
    assert Result.objects.get(round=rnd, player=player).reason == "no_slip"
    assert sweep_overdue_rounds() == 0


def test_a_slip_that_arrived_in_time_is_accepted_and_judged_when_served_after_the_close(make_game, make_player):
    game = make_game(round_seconds=180)
    ann, _ = make_player(game, "Ann")
    bob, _ = make_player(game, "Bob")
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"),
                               now=timezone.now() - timedelta(seconds=181))
    arrived = rnd.deadline - timedelta(milliseconds=300)  # stamped on arrival, then queued past the deadline
    services.slip_submit(round=rnd, player=bob, word="MELANIC", ref="H4", score=70, key="b1", now=arrived)
    assert services.game_close_if_due(game_id=game.pk) is True
    assert Result.objects.get(round=rnd, player=ann).reason == "no_slip"

    slip, created = services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key="a1",
                                         now=arrived)
    assert created and slip.received_at == arrived
    result = Result.objects.get(round=rnd, player=ann)
    assert (result.slip_id, result.paid, result.outcome) == (slip.pk, 78, "ok")
    # A newer slip of Bob's, also in time, replaces his judged one; the retry of a key changes nothing.
    later, _ = services.slip_submit(round=rnd, player=bob, word="MELANIC", ref="H4", score=78, key="b2",
                                    now=arrived + timedelta(milliseconds=100))
    assert Result.objects.get(round=rnd, player=bob).slip_id == later.pk
    assert services.slip_submit(round=rnd, player=bob, word="MELANIC", ref="H4", score=78, key="b2",
                                now=rnd.deadline + timedelta(seconds=5)) == (later, False)
    assert Result.objects.filter(round=rnd).count() == 2
    assert LogEntry.objects.filter(round=rnd, action="slip_judged_late").count() == 2

    # After the deadline nothing new is accepted, and a round the arbitrator closed early takes nothing
    # that arrived after its close.
    with pytest.raises(ServiceError, match="closed"):
        services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key="a2",
                             now=rnd.deadline + timedelta(milliseconds=1))
    second = services.round_start(round=services.round_draw(game=game))
    services.round_close(round=second)
    second.refresh_from_db()
    with pytest.raises(ServiceError, match="closed"):
        services.slip_submit(round=second, player=ann, word="ZO", ref="H8", score=None, key="a3",
                             now=second.closed_at + timedelta(milliseconds=1))


def test_reading_the_game_after_the_deadline_closes_the_round(make_game, make_player, isolated_cache,
                                                              django_capture_on_commit_callbacks):
    from tournaments import reading as live

    game = make_game(round_seconds=2)
    make_player(game)
    # The draws and starts are told to the pages as when they are committed (the test runs in one transaction).
    with django_capture_on_commit_callbacks(execute=True):
        rnd = services.round_start(round=services.round_draw(game=game), now=timezone.now() - timedelta(seconds=3))
    body = live.live_body(game.pk)
    assert body["round_status"] == "closed"
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.CLOSED
    # The snapshot the pages read, once cached open, is read again after the close it caused.
    with django_capture_on_commit_callbacks(execute=True):
        second = services.round_start(round=services.round_draw(game=game),
                                      now=timezone.now() - timedelta(seconds=1.7))
    assert live.game_snapshot(game.pk)["round_status"] == "open"
    from django.conf import settings

    time.sleep(max(0.0, (second.deadline - timezone.now()).total_seconds()) + settings.ARBITER_TRANSIT_SECONDS + 0.05)
    assert live.game_snapshot(game.pk)["round_status"] == "closed"
    assert Round.objects.get(pk=second.pk).status == Round.Status.CLOSED


def test_the_sweep_leaves_rounds_still_running(game, settings):
    settings.ARBITER_TRANSIT_SECONDS = 0.1
    rnd = services.round_start(round=services.round_draw(game=game))
    assert services.rounds_close_overdue() == 0
    assert services.rounds_close_overdue(now=rnd.deadline - timedelta(milliseconds=1)) == 0
    # Slips on their way at the deadline are still in time for the transit: no close before its end.
    assert services.rounds_close_overdue(now=rnd.deadline) == 0
    assert services.rounds_close_overdue(now=rnd.deadline + timedelta(milliseconds=99)) == 0
    ends = rnd.deadline + timedelta(milliseconds=100)
    assert services.rounds_close_overdue(now=ends) == 1
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at == ends


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
