"""The merged standings of a simultaneous event (engine/merge.py), on figures small enough to check by hand."""

from __future__ import annotations

import pytest

from engine.merge import Entry, EventGame, identity, merge_standings
from engine.rules import rules_preset

RULES = rules_preset("fisf", solo_min_players=2)


def _entry(centre, name, paid, *, game="G1", outcomes=None, licence="", series="", category="", final=True):
    return Entry(centre=centre, game=game, name=name, licence=licence, series=series, category=category,
                 paid=tuple(paid), outcomes=tuple(outcomes or ["ok"] * len(paid)), reasons=("ok",) * len(paid),
                 final=final)


def _by_name(standings):
    return {row["name"]: row for row in standings["rows"]}


def test_solos_are_counted_over_the_whole_event_unless_the_rules_say_room_by_room():
    games = [EventGame("G1", (40, 30), ("A", "B"))]
    entries = [_entry("A", "Ann", (30, 30)), _entry("A", "Bob", (20, 10)),
               _entry("B", "Cy", (25, 30)), _entry("B", "Dee", (10, 5))]
    event = _by_name(merge_standings(games, entries, RULES))
    assert {name: row["solos"] for name, row in event.items()} == {"Ann": 1, "Bob": 0, "Cy": 0, "Dee": 0}
    assert event["Ann"]["total"] == 60 + RULES.solo_bonus
    rooms = _by_name(merge_standings(games, entries, rules_preset("fisf", solo_min_players=2, event_solos=False)))
    # Room by room: Ann alone best in A in both rounds; Cy alone best in B in both rounds.
    assert {name: row["solos"] for name, row in rooms.items()} == {"Ann": 2, "Bob": 0, "Cy": 2, "Dee": 0}
    # The threshold counts the event's players: 4 players, solo_min_players 3, solos count over the event.
    assert merge_standings(games, entries, rules_preset("fisf", solo_min_players=3))["rows"][0]["solos"] == 1
    assert all(row["solos"] == 0 for row in merge_standings(
        games, entries, rules_preset("fisf", solo_min_players=3, event_solos=False))["rows"])


def test_ties_share_a_rank_overall_and_within_each_centre_series_and_category():
    games = [EventGame("G1", (50,), ("A", "B"))]
    entries = [_entry("A", "Ann", (40,), series="S1", category="Senior"),
               _entry("B", "Bob", (40,), series="S2", category="Senior"),
               _entry("A", "Cy", (30,), series="S1", category="Junior"),
               _entry("B", "Dee", (45,), series="S2", category="Junior")]
    standings = merge_standings(games, entries, rules_preset("classic"))
    assert [(row["name"], row["rank"]) for row in standings["rows"]] == [("Dee", 1), ("Ann", 2), ("Bob", 2),
                                                                          ("Cy", 4)]
    rows = _by_name(standings)
    assert (rows["Dee"]["diff"], rows["Dee"]["percent"], rows["Cy"]["percent"]) == (-5, 90.0, 60.0)
    assert [(row["name"], row["rank_centre"]) for row in standings["by_centre"]["A"]] == [("Ann", 1), ("Cy", 2)]
    assert [(row["name"], row["rank_series"]) for row in standings["by_series"]["S2"]] == [("Dee", 1), ("Bob", 2)]
    assert [(row["name"], row["rank_category"]) for row in standings["by_category"]["Senior"]] == [("Ann", 1),
                                                                                                   ("Bob", 1)]


def test_warnings_cost_as_usual_and_an_unfinished_report_counts_no_cost_or_bonus_yet():
    games = [EventGame("G1", (20,) * 5, ("A", "B"))]
    warned = ("warning",) * 5  # 5 warnings: 2 beyond the 3 free ones
    entries = [_entry("A", "Ann", (20,) * 5, outcomes=warned), _entry("B", "Bob", (10,) * 5, final=False)]
    standings = merge_standings(games, entries, RULES)
    rows = _by_name(standings)
    assert rows["Ann"]["warning_points"] == 2 * RULES.warning_cost
    assert rows["Ann"]["total"] == 100 + 5 * RULES.solo_bonus - 2 * RULES.warning_cost
    assert rows["Bob"]["total"] == 50
    assert standings["provisional"] and standings["unfinished"] == [{"game": "G1", "centre": "B"}]


def test_a_player_is_their_licence_across_games_else_their_name_in_their_centre():
    games = [EventGame("G1", (30,), ("A", "B")), EventGame("G2", (40,), ("A", "B"))]
    entries = [_entry("A", "Ann Lee", (30,), licence="12 345"), _entry("B", "A. Lee", (20,), game="G2",
                                                                       licence="12345"),
               _entry("A", "Bob", (10,)), _entry("A", " bob ", (15,), game="G2"), _entry("B", "Bob", (5,), game="G2")]
    standings = merge_standings(games, entries, rules_preset("classic"), reported={("B", "G1")})
    assert identity(entries[0]) == identity(entries[1])
    totals = sorted((row["name"], row["centre"], row["total"]) for row in standings["rows"])
    assert totals == [("Ann Lee", "A", 50), ("Bob", "A", 25), ("Bob", "B", 5)]
    assert standings["sum_tops"] == 70 and not standings["provisional"]
    missing = merge_standings(games, entries[:1], rules_preset("classic"))
    assert missing["missing"] == [{"game": "G1", "centre": "B"}, {"game": "G2", "centre": "A"},
                                  {"game": "G2", "centre": "B"}]
    assert missing["missing_centres"] == ["A", "B"] and missing["provisional"]


def test_an_entry_of_a_game_the_event_does_not_have_is_refused():
    with pytest.raises(ValueError, match="G9"):
        merge_standings([EventGame("G1", (10,))], [_entry("A", "Ann", (10,), game="G9")], RULES)
