"""Races on PostgreSQL: simultaneous closes of one round, replays of one slip from several requests."""

from __future__ import annotations

import pytest
from django.db import connection

from tournaments import services
from tournaments.errors import Conflict
from tournaments.models import LateSlip, LogEntry, Result, Slip

from .threads_support import race

pytestmark = pytest.mark.django_db(transaction=True)


def run_together(count: int, work):
    """Run ``work(i)`` in ``count`` threads released at the same instant; return their results (none may fail)."""
    results = race([lambda i=i: work(i) for i in range(count)])
    errors = [result for result in results if isinstance(result, Exception)]
    assert not errors, errors
    return results


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_simultaneous_closes_produce_one_set_of_results(make_game, make_player):
    game = make_game()
    players = [make_player(game, f"P{i}")[0] for i in range(5)]
    rnd = services.round_start(round=services.round_draw(game=game))
    for i, player in enumerate(players[:3]):
        services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=8, key=f"k{i}")

    outcomes = run_together(8, lambda i: services.round_close(round=rnd))

    assert sorted(outcomes) == [False] * 7 + [True]
    assert Result.objects.filter(round=rnd).count() == len(players)
    assert LogEntry.objects.filter(round=rnd, action="round_close").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_simultaneous_replays_of_a_slip_create_one(make_game, make_player):
    game = make_game()
    player, _ = make_player(game)
    rnd = services.round_start(round=services.round_draw(game=game))

    outcomes = run_together(
        8, lambda i: services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=8, key="same")
    )

    assert sum(created for _, created in outcomes) == 1
    assert len({slip.pk for slip, _ in outcomes}) == 1
    assert Slip.objects.filter(round=rnd).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_slips_racing_the_close_are_either_judged_or_refused(make_game, make_player):
    game = make_game()
    players = [make_player(game, f"P{i}")[0] for i in range(6)]
    rnd = services.round_start(round=services.round_draw(game=game))

    def work(i):
        if i == 0:
            return services.round_close(round=rnd)
        try:
            services.slip_submit(round=rnd, player=players[i], word="HELLO", ref="H4", score=8, key="k")
            return "accepted"
        except Conflict as error:
            return error.code

    outcomes = run_together(len(players), work)
    accepted = {players[i].pk for i, outcome in enumerate(outcomes) if outcome == "accepted"}
    assert all(outcome in ("accepted", "round_closed") for outcome in outcomes[1:])
    refused = {players[i].pk for i, outcome in enumerate(outcomes) if i and outcome == "round_closed"}
    reasons = {r.player_id: r.reason for r in Result.objects.filter(round=rnd)}
    judged = {player for player, reason in reasons.items() if reason not in ("no_slip", "late")}
    assert judged == accepted  # every slip accepted was judged; none slipped in after the results
    # A slip that lost the race is on record as late, never judged: the player's result reads late.
    assert {player for player, reason in reasons.items() if reason == "late"} == refused
    assert set(LateSlip.objects.filter(round=rnd).values_list("player_id", flat=True)) == refused
