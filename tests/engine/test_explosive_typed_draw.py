"""An explosive rack typed from a real bag (engine.drawing.check_typed_rack with choose_blank and rng): the new
blank becomes the chooser's letter as in a random draw, the letter leaves the bag and the blank goes back; when
the top does not need the blank, a letter of the bag drawn with the rng; when the bag no longer holds the
letter, the blank stays; a blank kept from the round before is never replaced."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.drawing import check_typed_rack, tile_order
from engine.rules import variant_rules
from engine.tiles import load_tileset

FRENCH = load_tileset("french")
EXPLOSIVE = variant_rules("explosive")


def test_the_typed_blank_becomes_the_chosen_letter_and_goes_back_into_the_bag():
    bag = FRENCH.full_bag()
    seen = []
    draw = check_typed_rack(bag, "", "AEIRST?", 1, FRENCH, EXPLOSIVE,
                            choose_blank=lambda rack: seen.append(rack) or "L", rng=random.Random(1))
    assert seen == ["AEIRST?"]  # the rack as typed, blank included
    assert (draw.replaced, draw.drawn) == ("L", "AEILRST")
    assert Counter(draw.bag) == Counter(bag) - Counter("AEIRST?") - Counter("L") + Counter("?")


def test_a_blank_the_top_does_not_need_becomes_a_letter_of_the_bag_drawn_with_the_rng():
    bag = FRENCH.full_bag()
    draw = check_typed_rack(bag, "", "AEIRST?", 1, FRENCH, EXPLOSIVE, choose_blank=lambda rack: None,
                            rng=random.Random(7))
    left = sorted((Counter(bag) - Counter("AEIRST?")).elements(), key=tile_order)
    candidates = [t for t in left if t != "?"]
    expected = candidates[random.Random(7).randrange(len(candidates))]
    assert draw.replaced == expected and "?" not in draw.rack
    kept_blank = check_typed_rack(bag, "", "AEIRST?", 1, FRENCH,
                                  variant_rules("explosive", explosive_random_when_unused=False),
                                  choose_blank=lambda rack: None, rng=random.Random(7))
    assert kept_blank.replaced == "" and "?" in kept_blank.rack


def test_the_blank_stays_when_its_letter_is_gone_or_was_kept():
    bag = [t for t in FRENCH.full_bag() if t != "L"]
    draw = check_typed_rack(bag, "", "AEIRST?", 1, FRENCH, EXPLOSIVE, choose_blank=lambda rack: "L",
                            rng=random.Random(1))
    assert draw.replaced == "" and draw.rack.count("?") == 1
    # A blank kept from the round before is not replaced (as in a random draw): the chooser is not asked.
    kept = check_typed_rack(FRENCH.full_bag(), "?E", "?EAIRST", 2, FRENCH, EXPLOSIVE,
                            choose_blank=lambda rack: pytest.fail("asked"), rng=random.Random(1))
    assert kept.replaced == "" and kept.kept == "E?"


def test_an_explosive_typed_rack_with_a_chooser_needs_its_rng():
    with pytest.raises(ValueError, match="rng"):
        check_typed_rack(FRENCH.full_bag(), "", "AEIRST?", 1, FRENCH, EXPLOSIVE, choose_blank=lambda rack: "L")
