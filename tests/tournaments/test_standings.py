"""Standings: totals, the difference from the tops, percentages, solos, warnings, ranks and tie-breaks.

Rounds and results are written directly here (as a close would write them) so that each test can pick
the exact scores it needs.
"""

from __future__ import annotations

import pytest

from tournaments import selectors, services
from tournaments.models import Game, Result, Round

pytestmark = pytest.mark.django_db


def closed_round(game, number: int, top: int, paid: dict, outcomes: dict | None = None) -> Round:
    """A closed round with top score ``top`` paying ``paid[player]`` (outcome ok, or as given)."""
    rnd = Round.objects.create(game=game, number=number, rack="ABCDEFG", status="closed", top_score=top)
    outcomes = outcomes or {}
    for player, score in paid.items():
        outcome = outcomes.get(player, "ok" if score else "zero")
        reason = {"ok": "ok", "warning": "wrong_score", "penalty": "wrong_ref", "zero": "invalid_word"}[outcome]
        Result.objects.create(round=rnd, player=player, paid=score, outcome=outcome, reason=reason)
    return rnd


def over(game):
    Game.objects.filter(pk=game.pk).update(status="over")
    game.refresh_from_db()


def rows_by_name(rows):
    return {row["name"]: row for row in rows}


def test_total_diff_percent_tops_and_shared_ranks(game, make_player):
    ann, bob, cleo = (make_player(game, name)[0] for name in ("Ann", "Bob", "Cleo"))
    closed_round(game, 1, 30, {ann: 30, bob: 20, cleo: 30})
    closed_round(game, 2, 20, {ann: 10, bob: 20, cleo: 10}, {ann: "penalty", cleo: "warning"})
    rows = selectors.game_standings(game=game)
    by = rows_by_name(rows)
    assert (by["Ann"]["total"], by["Ann"]["diff"], by["Ann"]["percent"]) == (40, -10, 80.0)
    assert (by["Bob"]["total"], by["Bob"]["tops"], by["Bob"]["penalties"]) == (40, 1, 0)
    assert (by["Ann"]["tops"], by["Ann"]["penalties"], by["Cleo"]["warnings"]) == (1, 1, 1)
    assert [by[name]["rank"] for name in ("Ann", "Bob", "Cleo")] == [1, 1, 1]
    closed_round(game, 3, 5, {ann: 5, bob: 0, cleo: 4})
    by = rows_by_name(selectors.game_standings(game=game))
    assert [by[name]["rank"] for name in ("Ann", "Bob", "Cleo")] == [1, 3, 2]
    assert [row["rank"] for row in rows] == [1, 1, 1]


def test_warnings_beyond_the_free_ones_cost_at_the_end(game, make_player):
    ann, _ = make_player(game, "Ann")
    for number in range(1, 6):
        closed_round(game, number, 10, {ann: 10}, {ann: "warning"})
    row = selectors.game_standings(game=game)[0]
    assert (row["total"], row["warnings"], row["warning_points"]) == (50, 5, 0)  # not before the end
    over(game)
    row = selectors.game_standings(game=game)[0]
    rules = game.tournament.rules
    assert row["warning_points"] == (5 - rules.free_warnings) * rules.warning_cost == 10
    assert (row["total"], row["diff"], row["percent"]) == (40, -10, 80.0)


def test_solos_count_with_sixteen_players_who_played(make_game, make_player):
    game = make_game()
    players = [make_player(game, f"P{i:02}")[0] for i in range(16)]
    scores = {p: 10 for p in players}
    closed_round(game, 1, 30, {**scores, players[0]: 30})  # a solo for P00
    closed_round(game, 2, 30, {**scores, players[1]: 30, players[2]: 30})  # a tie: no solo
    over(game)
    by = rows_by_name(selectors.game_standings(game=game))
    bonus = game.tournament.rules.solo_bonus
    assert (by["P00"]["solos"], by["P00"]["solo_points"], by["P00"]["total"]) == (1, bonus, 40 + bonus)
    assert by["P01"]["solos"] == 0 and by["P01"]["total"] == 40


def test_no_solo_bonus_when_fewer_than_sixteen_played(make_game, make_player):
    game = make_game()
    players = [make_player(game, f"P{i:02}")[0] for i in range(16)]
    scores = {p: 10 for p in players}
    scores[players[15]] = 0  # never played: no slip in any round
    closed_round(game, 1, 30, {**scores, players[0]: 30})
    Result.objects.filter(player=players[15]).update(reason="no_slip")
    over(game)
    by = rows_by_name(selectors.game_standings(game=game))
    assert (by["P00"]["solos"], by["P00"]["total"]) == (0, 30)


def test_classic_rules_have_no_deductions_or_solos(make_game, make_player):
    game = make_game(ruleset="classic", solo_min_players=1)
    ann, _ = make_player(game, "Ann")
    bob, _ = make_player(game, "Bob")
    for number in range(1, 6):
        closed_round(game, number, 10, {ann: 10, bob: 0}, {ann: "warning"})
    over(game)
    by = rows_by_name(selectors.game_standings(game=game))
    assert (by["Ann"]["total"], by["Ann"]["solos"], by["Ann"]["warning_points"]) == (50, 0, 0)


def test_tournament_ties_are_broken_by_the_last_game_then_its_last_rounds(make_tournament):
    tournament = make_tournament()
    first = services.game_create(tournament=tournament)
    ann, _ = services.player_register(game=first, name="Ann")
    bob, _ = services.player_register(game=first, name="Bob")
    cleo, _ = services.player_register(game=first, name="Cleo")
    dan, _ = services.player_register(game=first, name="Dan")
    closed_round(first, 1, 50, {ann: 50, bob: 40, cleo: 40, dan: 40})
    closed_round(first, 2, 50, {ann: 10, bob: 10, cleo: 20, dan: 20})
    over(first)
    second = services.game_create(tournament=tournament)
    closed_round(second, 1, 30, {ann: 30, bob: 20, cleo: 30, dan: 30})
    closed_round(second, 2, 30, {ann: 0, bob: 20, cleo: 0, dan: 0})
    # Totals: Ann 60+30=90, Bob 50+40=90, Cleo 60+30=90, Dan 60+30=90.
    # Last game: Bob 40 beats the others' 30. Then its last round: all 0; the round before: all 30;
    # then game 1's total: Ann, Cleo and Dan 60; its last round: Cleo and Dan 20 beat Ann's 10;
    # Cleo and Dan are tied all the way back and share a rank.
    rows = selectors.tournament_standings(tournament=tournament)
    assert [row["total"] for row in rows] == [90, 90, 90, 90]
    by = rows_by_name(rows)
    assert [by[name]["rank"] for name in ("Bob", "Cleo", "Dan", "Ann")] == [1, 2, 2, 4]
    assert [row["name"] for row in rows][0] == "Bob" and rows[-1]["name"] == "Ann"
    assert [g["total"] for g in by["Bob"]["games"]] == [50, 40]
    assert by["Ann"]["diff"] == 90 - (50 + 50 + 30 + 30)


def test_series_have_their_own_ranking(game, make_player):
    ann, _ = make_player(game, "Ann", series="1")
    bob, _ = make_player(game, "Bob", series="2")
    cleo, _ = make_player(game, "Cleo", series="2")
    closed_round(game, 1, 30, {ann: 30, bob: 20, cleo: 10})
    by = rows_by_name(selectors.game_standings(game=game))
    assert [by[n]["rank"] for n in ("Ann", "Bob", "Cleo")] == [1, 2, 3]
    assert [by[n]["series_rank"] for n in ("Ann", "Bob", "Cleo")] == [1, 1, 2]
