import dataclasses

import pytest

from engine.rules import Rules, rules_preset


def test_fisf_defaults_follow_the_rules_document():
    rules = rules_preset("fisf")
    assert rules.rack_size == 7
    assert rules.bingo_bonus == 50
    assert (rules.early_rounds, rules.early_min_vowels, rules.early_min_consonants) == (15, 2, 2)
    assert (rules.late_min_vowels, rules.late_min_consonants) == (1, 1)
    assert rules.round_seconds == 180
    assert rules.warnings and rules.penalties and rules.solos
    assert (rules.free_warnings, rules.warning_cost) == (3, 5)
    assert (rules.penalty, rules.penalty_floor) == (5, 4)
    assert (rules.solo_bonus, rules.solo_min_players) == (10, 16)
    assert rules.first_round_best_placement and rules.first_move_horizontal
    assert rules == Rules()


def test_classic_switches_off_the_federation_extras():
    rules = rules_preset("classic")
    assert rules.preset == "classic"
    assert not rules.warnings and not rules.penalties and not rules.solos
    assert not rules.first_round_best_placement
    assert rules.rack_size == 7 and rules.bingo_bonus == 50


def test_overrides_apply_on_top_of_the_preset():
    rules = rules_preset("classic", round_seconds=120, solos=True)
    assert rules.round_seconds == 120
    assert rules.solos
    assert not rules.warnings


def test_rules_are_frozen():
    rules = rules_preset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.rack_size = 8


@pytest.mark.parametrize("name", ["", "FISF", "blitz"])
def test_unknown_preset_is_refused(name):
    with pytest.raises(ValueError, match="unknown rules preset"):
        rules_preset(name)


def test_unknown_field_is_refused():
    with pytest.raises(ValueError, match="unknown rules field.*rack_sise"):
        rules_preset("fisf", rack_sise=8)


@pytest.mark.parametrize("field, value", [("rack_size", "7"), ("penalty", -1), ("solos", 1), ("rack_size", 0)])
def test_values_of_the_wrong_kind_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        rules_preset("fisf", **{field: value})


def test_minimums_switch_after_the_early_rounds():
    rules = rules_preset("fisf", early_rounds=3, early_min_vowels=3, late_min_consonants=0)
    assert [rules.min_vowels(n) for n in (1, 3, 4)] == [3, 3, 1]
    assert [rules.min_consonants(n) for n in (1, 3, 4)] == [2, 2, 0]
