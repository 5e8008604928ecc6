"""The variants and timings as rules (docs/rules.md, section 7): every default the document gives."""
import pytest

from engine.rules import TIMING_NAMES, VARIANT_NAMES, rules_preset, variant_rules


def test_the_plain_variant_is_the_ruleset_itself():
    assert variant_rules() == rules_preset("fisf")
    assert variant_rules("duplicate", ruleset="classic") == rules_preset("classic")


def test_joker_and_explosive():
    joker = variant_rules("joker")
    assert joker.joker and joker.joker_replace and not joker.explosive
    explosive = variant_rules("explosive")
    assert explosive.explosive and explosive.explosive_random_when_unused and not explosive.joker
    for rules in (joker, explosive):
        assert (rules.rack_size, rules.max_placed, rules.free_warnings) == (7, 7, 5)


@pytest.mark.parametrize("variant, most", [("seven_of_eight", 7), ("seven_and_eight", 8)])
def test_eight_tile_racks_and_their_bonuses(variant, most):
    rules = variant_rules(variant)
    assert (rules.rack_size, rules.max_placed, rules.free_warnings) == (8, most, 5)
    assert (rules.early_min_vowels, rules.early_min_consonants, rules.late_min_vowels, rules.late_min_consonants) == (
        2, 2, 1, 1)
    assert rules.placeable(8) == most and rules.placeable(5) == 5
    assert [rules.bonus_for(n) for n in range(1, 9)] == [0, 0, 0, 0, 0, 0, 50, 75]


def test_a_plain_game_pays_50_for_seven_tiles_only():
    rules = rules_preset("fisf")
    assert rules.max_placed == 7 and rules.placeable(7) == 7
    assert [rules.bonus_for(n) for n in range(1, 8)] == [0, 0, 0, 0, 0, 0, 50]


def test_topping_results_are_times():
    rules = variant_rules("topping", timing="semi_rapid")
    assert rules.topping and not (rules.warnings or rules.penalties or rules.solos)
    assert rules.round_seconds == 120 and rules.topping_penalty == 60
    assert rules.topping_seconds(40) == 40
    assert rules.topping_seconds(None) == 180
    assert rules.topping_seconds(40, wrong_tries=3) == 40  # a wrong try costs only its time
    costly = variant_rules("topping", topping_wrong_try_seconds=10)
    assert costly.topping_seconds(40, wrong_tries=3) == 70 and costly.topping_seconds(None, 2) == 260
    with pytest.raises(ValueError, match="cannot be found after"):
        rules.topping_seconds(121)


def test_timings():
    assert [variant_rules(timing=t).round_seconds for t in TIMING_NAMES] == [180, 120, 60]
    assert [variant_rules(timing=t).free_warnings for t in TIMING_NAMES] == [3, 3, 5]
    # A field set by hand wins over the variant and the timing.
    assert variant_rules("joker", timing="blitz", free_warnings=2, round_seconds=75).free_warnings == 2


@pytest.mark.parametrize("call, match", [
    (lambda: variant_rules("scrabble"), "unknown variant"),
    (lambda: variant_rules(timing="rapid"), "unknown timing"),
    (lambda: variant_rules(ruleset="ffsc"), "unknown rules preset"),
    (lambda: variant_rules("joker", explosive=True), "exclude each other"),
    (lambda: variant_rules("seven_of_eight", max_placed=0), "max_placed"),
    (lambda: variant_rules("topping", topping_penalty=-1), "topping_penalty"),
])
def test_bad_variant_settings_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_every_variant_and_timing_builds():
    for variant in VARIANT_NAMES:
        for timing in TIMING_NAMES:
            for ruleset in ("fisf", "classic"):
                rules = variant_rules(variant, ruleset=ruleset, timing=timing)
                assert rules.preset == ruleset
