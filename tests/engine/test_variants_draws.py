"""The variants' draws over 200 seeded games each (docs/rules.md, "Variants").

Each game draws its racks with engine.drawing and plays a random part of every rack (the number of tiles
up to what the variant allows, a blank standing for a random letter), with no board search: what is
checked is the draw rules, against counts made here from the rack's letters, not by the code under test:
every tile is accounted for (rack + bag = bag before + kept), a rack is full while the bag allows, the
vowel/consonant minimums hold, and for joker and explosive games the blank rules.  The explosive choice of
letter comes from a chooser that names a letter at random (the real one, ``explosive_chooser``, runs the
top search: tests/engine/test_variants_search.py plays whole games with it).
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.board import Board
from engine.drawing import RackError, check_typed_rack, draw_rack, replace_played_blanks
from engine.layout import SIZE
from engine.rules import variant_rules
from engine.tiles import BLANK, letter_code, load_tileset

FRENCH = load_tileset("french")
GAMES = 200
MAX_ROUNDS = 120  # 102 tiles: every round, a letter or a blank leaves for good


def kinds(tiles) -> tuple[int, int, int]:
    """(vowels only, consonants only, either), counted from the tile set's own columns."""
    v = c = e = 0
    for ch in tiles:
        vowel, consonant = FRENCH.is_vowel(ch), FRENCH.is_consonant(ch)
        v += vowel and not consonant
        c += consonant and not vowel
        e += vowel and consonant
    return v, c, e


def meets(tiles, min_v: int, min_c: int) -> bool:
    v, c, e = kinds(tiles)
    return max(0, min_v - v) + max(0, min_c - c) <= e


class Placed:
    """What Board.place reads: the tiles of a play."""

    def __init__(self, tiles):
        self.tiles = tuple(tiles)


def play_game(seed: int, rules, chooser=None):
    """Play one seeded game, checking every draw; return what it saw."""
    rng, plays = random.Random(seed), random.Random(seed + 10**6)
    bag, kept, board, next_square = FRENCH.full_bag(), "", Board.empty(), 0
    seen = Counter()
    letters = sorted({t for t in FRENCH.full_bag() if t != "?"})
    for round_number in range(1, MAX_ROUNDS + 1):
        before = Counter(bag) + Counter(kept)
        try:
            draw = draw_rack(bag, kept, round_number, rng, FRENCH, rules, choose_blank=chooser)
        except RackError as error:
            assert error.code == "game_over"
            seen["game_over"] += 1
            break
        rack = draw.rack
        # Every tile accounted for.
        assert Counter(rack) + Counter(draw.bag) == before, (seed, round_number)
        assert len(rack) <= rules.rack_size
        blank_rule = rules.joker or rules.explosive
        pool = [t for t in before.elements() if not (blank_rule and t == "?")]
        blanks_left = before["?"]
        expected = min(rules.rack_size, len(pool) + (1 if blank_rule and blanks_left else 0))
        assert len(rack) == expected, (seed, round_number, rack)
        # The minimums (the late ones once the early ones cannot be met, as the rules say).
        assert meets(rack, rules.late_min_vowels, rules.late_min_consonants), (seed, round_number, rack)
        if round_number <= rules.early_rounds and not meets(rack, rules.early_min_vowels, rules.early_min_consonants):
            seen["late_minimums_early"] += 1
        for rejected in draw.rejected:
            assert rejected.startswith("-")
        if rules.joker:
            # A blank in every rack while one is left, one at a time.
            assert rack.count("?") == (1 if blanks_left else 0), (seed, round_number, rack, blanks_left)
        if rules.explosive:
            if draw.replaced:
                seen["exploded"] += 1
                assert draw.replaced in rack and "?" not in draw.drawn
            elif "?" in draw.drawn:
                seen["blank_stays"] += 1
        if round_number == 1:
            seen["first_rack_has_blank"] += "?" in rack
        # Play part of the rack: up to what the variant allows, sometimes all of it.
        most = rules.placeable(len(rack))
        count = plays.choice([most, plays.randrange(1, most + 1)])
        placed = plays.sample(range(len(rack)), count)
        tiles, leave = [], list(rack)
        for i in placed:
            ch = rack[i]
            leave.remove(ch)
            row, col = divmod(next_square, SIZE)
            next_square += 1
            if ch == "?":
                tiles.append((row, col, plays.choice(letters).lower(), True))
            else:
                tiles.append((row, col, ch, False))
        seen[f"placed_{count}"] += 1
        assert count <= rules.max_placed
        board = board.place(Placed(tiles))
        bag_before = list(draw.bag)
        board, bag, replaced = replace_played_blanks(board, tiles, draw.bag, rules)
        for row, col, letter, is_blank in tiles:
            if not is_blank:
                continue
            code = board.tile(row, col)
            if rules.joker and letter.upper() in bag_before:
                # Replaced: the real letter on the board, taken from the bag, the blank back in the bag.
                assert code == letter_code(letter.upper()), (seed, round_number)
                seen["replaced"] += 1
            else:
                assert code == letter_code(letter.upper()) | BLANK
                seen["blank_left_on_board"] += 1
        assert Counter(bag) + Counter(replaced) == Counter(bag_before) + Counter("?" * len(replaced))
        kept = "".join(leave)
        if not bag and not kept:
            seen["emptied"] += 1
            break
    else:
        pytest.fail(f"game {seed} did not end within {MAX_ROUNDS} rounds")
    seen["rounds"] = round_number
    return seen


def total(rules, chooser=None) -> Counter:
    seen = Counter()
    for seed in range(GAMES):
        seen.update(play_game(seed, rules, chooser))
    return seen


def test_joker_games_hold_a_blank_in_every_rack_and_replace_played_blanks():
    seen = total(variant_rules("joker"))
    # Every first rack has a blank; both outcomes of the replacement rule happen.
    assert seen["first_rack_has_blank"] == GAMES
    assert seen["replaced"] > 100 and seen["blank_left_on_board"] > 0


def test_explosive_games_replace_the_new_blank_by_the_chosen_letter():
    choices = random.Random(5)
    letters = sorted({t for t in FRENCH.full_bag() if t != "?"})

    def chooser(rack):
        # Like the top search: a letter, or None when the top does not need the blank.
        assert "?" in rack
        return None if choices.random() < 0.2 else choices.choice(letters)

    seen = total(variant_rules("explosive"), chooser)
    assert seen["exploded"] > GAMES
    # A letter gone from the bag leaves the blank in the rack, a blank on the board stays a blank.
    assert seen["blank_stays"] > 0 and seen["replaced"] == 0


def test_explosive_without_random_letter_keeps_the_blank_the_top_does_not_need():
    rules = variant_rules("explosive", explosive_random_when_unused=False)
    seen = total(rules, lambda rack: None)
    assert seen["exploded"] == 0 and seen["blank_stays"] >= GAMES


@pytest.mark.parametrize("variant, most", [("seven_of_eight", 7), ("seven_and_eight", 8)])
def test_eight_tile_racks(variant, most):
    rules = variant_rules(variant)
    assert rules.rack_size == 8 and rules.max_placed == most
    seen = total(rules)
    assert seen[f"placed_{most}"] > GAMES
    if most == 7:
        assert seen["placed_8"] == 0


def test_the_same_seed_gives_the_same_joker_game():
    rules = variant_rules("joker")
    assert play_game(42, rules) == play_game(42, rules)


def test_an_explosive_draw_needs_its_chooser():
    with pytest.raises(ValueError, match="choose_blank"):
        draw_rack(FRENCH.full_bag(), "", 1, random.Random(1), FRENCH, variant_rules("explosive"))


def test_joker_and_explosive_exclude_each_other():
    with pytest.raises(ValueError, match="exclude"):
        variant_rules("joker", explosive=True)


def test_a_joker_rack_keeps_one_blank_and_the_other_stays_in_the_bag():
    draw = draw_rack(FRENCH.full_bag(), "", 1, random.Random(3), FRENCH, variant_rules("joker"))
    assert draw.rack.count("?") == 1 and draw.bag.count("?") == 1
    # A kept blank: no second one.
    draw = draw_rack(draw.bag, "?E", 2, random.Random(4), FRENCH, variant_rules("joker"))
    assert draw.rack.count("?") == 1 and draw.bag.count("?") == 1


def test_without_a_variant_the_draws_are_those_of_before():
    # The classic draw is untouched by the blank rules: a plain game's racks may hold 0, 1 or 2 blanks.
    counts = Counter()
    for seed in range(GAMES):
        draw = draw_rack(FRENCH.full_bag(), "", 1, random.Random(seed), FRENCH, variant_rules("duplicate"))
        counts[draw.rack.count("?")] += 1
    assert counts[0] > counts[1] > 0


@pytest.mark.parametrize("variant", ["joker", "explosive"])
def test_a_typed_rack_holds_one_blank_while_one_is_left(variant):
    rules = variant_rules(variant)
    bag = FRENCH.full_bag()
    draw = check_typed_rack(bag, "", "AEIRST?", 1, FRENCH, rules)
    assert draw.rack == "AEIRST?"
    for typed in ("AEIRSTU", "AEIRS??"):
        with pytest.raises(RackError) as refused:
            check_typed_rack(bag, "", typed, 1, FRENCH, rules)
        assert refused.value.code == "joker_blank" and refused.value.params == {"rack": typed}
        assert "one blank while one is left" in refused.value.message
    # The blank kept from the last rack counts; with none left, none is asked for.
    assert check_typed_rack(bag, "?E", "?EAIRST", 2, FRENCH, rules).kept == "E?"
    no_blank = [t for t in bag if t != "?"]
    assert check_typed_rack(no_blank, "", "AEIRSTU", 20, FRENCH, rules).rack == "AEIRSTU"
    # A plain game takes a rack with no blank or two.
    assert check_typed_rack(bag, "", "AEIRS??", 1, FRENCH, variant_rules("duplicate")).rack == "AEIRS??"
