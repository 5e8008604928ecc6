"""A phone's slip on its way at the deadline (docs/rules.md §4, in transit): sent before it, by the phone's sent_ms on its
server-corrected clock, and arrived at most ARBITER_TRANSIT_SECONDS after it, is in time; no close, and so no
result shown, comes before the transit's end. Anything else that arrives after the deadline is late."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import LateSlip, Result, Round, Slip

pytestmark = pytest.mark.django_db(transaction=True)

RACK = "ACEILMN"  # MELANIC H4 pays 78


@pytest.fixture
def transit(settings):
    settings.ARBITER_TRANSIT_SECONDS = 0.2
    settings.ARBITER_CLOSE_WAIT_SECONDS = 1.0
    return timedelta(seconds=0.2)


@pytest.fixture
def running(make_game, make_player, transit):
    """A round whose deadline is 2 s away, and two players."""
    game = make_game(round_seconds=60)
    ann, _ = make_player(game, "Ann")
    bob, _ = make_player(game, "Bob")
    rnd = services.round_start(round=services.round_draw(game=game, rack=RACK),
                               now=timezone.now() - timedelta(seconds=58))
    return rnd, ann, bob


def ms(moment) -> int:
    return int(moment.timestamp() * 1000)


def hand_in(rnd, player, key, now, sent=None):
    return services.slip_submit(round=rnd, player=player, word="MELANIC", ref="H4", score=78, key=key, now=now,
                                sent_ms=None if sent is None else ms(sent))


def refusal(rnd, player, key, now, sent=None) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        hand_in(rnd, player, key, now, sent)
    return caught.value


def test_a_slip_sent_before_the_deadline_and_arriving_within_the_transit_is_in_time(running, transit):
    rnd, ann, bob = running
    arrived = rnd.deadline + timedelta(milliseconds=40)
    slip, created = hand_in(rnd, ann, "a1", now=arrived, sent=rnd.deadline - timedelta(milliseconds=5))
    assert created and slip.received_at == arrived
    # The same moment without the phone's word: late, as the arrival alone decides.
    error = refusal(rnd, bob, "b1", now=arrived)
    assert (error.code, error.status) == ("round_closed", 409)
    # The round waited for the transit: the close on the way left it open; the clock's closes after it.
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.OPEN
    assert services.round_close_if_due(round_id=rnd.pk, now=rnd.deadline + transit) is True
    rnd.refresh_from_db()
    assert rnd.closed_at >= rnd.deadline + transit
    assert Result.objects.get(round=rnd, player=ann).paid == 78  # judged with the close, as any slip in time
    assert Result.objects.get(round=rnd, player=bob).reason == "late"


def test_a_slip_arriving_after_the_transit_is_late_whatever_it_says(running, transit):
    rnd, ann, bob = running
    sent = rnd.deadline - timedelta(milliseconds=5)
    error = refusal(rnd, ann, "a1", now=rnd.deadline + transit + timedelta(milliseconds=1), sent=sent)
    assert error.code == "round_closed" and 0.005 <= error.fields["sent_before"] <= 0.006  # sent_ms: whole ms
    late = LateSlip.objects.get(round=rnd, player=ann)
    assert abs((late.sent_at - sent).total_seconds()) < 0.001 and not Slip.objects.filter(round=rnd).exists()
    # A send time after the deadline is late too, inside the transit.
    error = refusal(rnd, bob, "b1", now=rnd.deadline + timedelta(milliseconds=50),
                    sent=rnd.deadline + timedelta(milliseconds=1))
    assert error.code == "round_closed" and not Slip.objects.filter(round=rnd).exists()


def test_a_send_time_that_is_not_plausible_counts_for_nothing(running, transit):
    rnd, ann, _ = running
    # Before the round started: not a send time of this round's slip.
    error = refusal(rnd, ann, "a1", now=rnd.deadline + timedelta(milliseconds=50),
                    sent=rnd.started_at - timedelta(seconds=30))
    assert error.code == "round_closed" and not Slip.objects.filter(round=rnd).exists()


def test_no_close_comes_before_the_transit_ends(running, transit):
    rnd, ann, _ = running
    within = rnd.deadline + timedelta(milliseconds=150)
    # A request reading the game, the sweep: both leave the round to the clock while a slip may be on its way.
    assert services.game_close_if_due(game_id=rnd.game_id, now=within) is False
    assert services.rounds_close_overdue(now=within) == 0
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.OPEN
    # The clock's own close, run at the deadline, waits for the transit's end before it claims the round.
    while timezone.now() < rnd.deadline:
        pass
    assert services.round_close_if_due(round_id=rnd.pk) is True
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at >= rnd.deadline + transit
    # Once closed (results shown), a slip saying it was sent before the deadline is late, and changes nothing.
    before = list(Result.objects.filter(round=rnd).values_list("player_id", "paid", "reason"))
    error = refusal(rnd, ann, "a1", now=rnd.closed_at + timedelta(milliseconds=1),
                    sent=rnd.deadline - timedelta(milliseconds=1))
    assert error.code == "round_closed"
    assert list(Result.objects.filter(round=rnd).values_list("player_id", "paid", "reason")) == [
        (player, paid, "late" if player == ann.pk else reason) for player, paid, reason in before]
    assert not Slip.objects.filter(round=rnd).exists()


def test_an_end_called_early_by_the_arbitrator_has_no_transit(running, transit, arbitrator):
    rnd, ann, _ = running
    called = timezone.now()
    assert services.round_close(round=rnd, actor=arbitrator, now=called) is True
    error = refusal(rnd, ann, "a1", now=called + timedelta(milliseconds=20), sent=called - timedelta(milliseconds=5))
    assert error.code == "round_closed" and not Slip.objects.filter(round=rnd).exists()


def test_with_no_transit_the_arrival_alone_decides(running, settings):
    settings.ARBITER_TRANSIT_SECONDS = 0
    rnd, ann, _ = running
    error = refusal(rnd, ann, "a1", now=rnd.deadline + timedelta(milliseconds=1),
                    sent=rnd.deadline - timedelta(milliseconds=5))
    assert error.code == "round_closed"
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED  # the first request after the deadline closed it
