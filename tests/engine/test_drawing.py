import random
from collections import Counter

import pytest

from engine.drawing import (
    RackError,
    check_typed_rack,
    draw_rack,
    format_rack,
    game_is_over,
    minimums_in_force,
    rack_is_valid,
)
from engine.rules import rules_preset
from engine.tiles import load_tileset

ENGLISH = load_tileset("english")
FISF = rules_preset("fisf")


def test_first_rack_from_a_full_bag_is_seven_valid_letters_and_the_bag_shrinks():
    bag = ENGLISH.full_bag()
    draw = draw_rack(bag, "", 1, random.Random(7), ENGLISH, FISF)
    assert len(draw.rack) == 7
    assert draw.kept == "" and draw.drawn == draw.rack
    assert rack_is_valid(draw.rack, 1, ENGLISH, FISF)
    assert Counter(draw.bag) + Counter(draw.rack) == Counter(bag)
    assert len(bag) == 100  # the caller's bag is not mutated


def test_same_seed_replays_the_same_draw_whatever_the_bag_order():
    bag = ENGLISH.full_bag()
    shuffled = list(bag)
    random.Random(3).shuffle(shuffled)
    one = draw_rack(bag, "ER", 4, random.Random(99), ENGLISH, FISF)
    two = draw_rack(shuffled, "ER", 4, random.Random(99), ENGLISH, FISF)
    assert one == two
    other_seeds = {draw_rack(bag, "ER", 4, random.Random(s), ENGLISH, FISF).rack for s in range(20)}
    assert len(other_seeds) > 1


def test_kept_letters_come_first_sorted_with_the_blank_last():
    bag = list("BCDFGHLMNP")  # consonants only: kept vowels keep the rack valid
    draw = draw_rack(bag, "?EA", 3, random.Random(1), ENGLISH, FISF)
    assert draw.kept == "AE?"
    assert draw.rack.startswith("AE?")
    assert draw.rack == draw.kept + draw.drawn
    assert list(draw.drawn) == sorted(draw.drawn)
    assert len(draw.drawn) == 4 and draw.rejected == []
    assert draw.record == "AE?+" + draw.drawn


def test_a_failing_rack_goes_back_whole_and_is_recorded():
    # Kept vowels only and a bag that can still give consonants: every draw keeping AEIOU plus two
    # vowels fails the early rule, so the record shows the rejections in order.
    bag = list("AEIOUAEIOU") + list("BCDT")
    for seed in range(30):
        draw = draw_rack(bag, "AEIOU", 2, random.Random(seed), ENGLISH, FISF)
        assert rack_is_valid(draw.rack, 2, ENGLISH, FISF)
        assert Counter(draw.rack) + Counter(draw.bag) == Counter(bag) + Counter("AEIOU")
        for record in draw.rejected:
            assert record.startswith("-")
            letters = record[1:].replace("+", "")
            assert len(letters) == 7
            assert not rack_is_valid(letters, 2, ENGLISH, FISF)
        if draw.rejected:
            assert draw.rejected[0].startswith("-AEIOU+")
            assert draw.kept == ""  # the kept letters went back into the bag
    rejected_somewhere = [draw_rack(bag, "AEIOU", 2, random.Random(s), ENGLISH, FISF).rejected for s in range(30)]
    assert any(rejected_somewhere)


def test_blank_and_y_count_either_way():
    assert rack_is_valid("AEYBCDF", 1, ENGLISH, FISF) is True
    assert rack_is_valid("AEIOUY?", 1, ENGLISH, FISF) is True
    assert rack_is_valid("AEIOUYB", 1, ENGLISH, FISF) is True
    assert rack_is_valid("AEIOUAB", 1, ENGLISH, FISF) is False
    assert rack_is_valid("BCDFGY?", 1, ENGLISH, FISF) is True
    assert rack_is_valid("BCDFGHY", 1, ENGLISH, FISF) is False
    assert rack_is_valid("BCDFGHY", 16, ENGLISH, FISF) is True
    assert rack_is_valid("AEIOUAB", 16, ENGLISH, FISF) is True
    assert rack_is_valid("BCDFGHJ", 16, ENGLISH, FISF) is False


def test_minimums_come_from_the_rules():
    strict = rules_preset("fisf", early_min_vowels=3, early_rounds=2)
    assert rack_is_valid("AEBCDFG", 1, ENGLISH, strict) is False
    assert rack_is_valid("AEBCDFG", 3, ENGLISH, strict) is True
    assert rack_is_valid("AEIBCDF", 1, ENGLISH, strict) is True


def test_early_rule_gives_way_to_the_late_rule_when_it_cannot_be_met():
    assert minimums_in_force(list("AEIOUBCD"), 3, ENGLISH, FISF) == (2, 2)
    assert minimums_in_force(list("AEIOUEAB"), 3, ENGLISH, FISF) == (1, 1)
    draw = draw_rack(list("AEIOUEA"), "B", 3, random.Random(5), ENGLISH, FISF)
    assert draw.rack.startswith("B") and len(draw.rack) == 7 and draw.rejected == []


def test_no_valid_rack_left_means_game_over():
    with pytest.raises(RackError) as caught:
        draw_rack(list("AEIOU"), "E", 20, random.Random(0), ENGLISH, FISF)
    assert caught.value.code == "game_over"
    with pytest.raises(RackError) as caught:
        draw_rack([], "", 20, random.Random(0), ENGLISH, FISF)
    assert caught.value.code == "game_over"


def test_short_bag_gives_a_short_rack():
    draw = draw_rack(list("AT"), "ER", 20, random.Random(0), ENGLISH, FISF)
    assert Counter(draw.rack) == Counter("AERT") and draw.bag == []
    assert draw.rack == "ER" + draw.drawn


def test_rack_size_comes_from_the_rules():
    eight = rules_preset("fisf", rack_size=8)
    draw = draw_rack(ENGLISH.full_bag(), "", 1, random.Random(2), ENGLISH, eight)
    assert len(draw.rack) == 8


def test_format_rack():
    assert format_rack("E?R", "TSA") == "ER?+AST"
    assert format_rack("", "S?A") == "AS?"


def test_typed_rack_accepted():
    bag = ENGLISH.full_bag()
    draw = check_typed_rack(bag, "ER", "r e s t a ? n", 2, ENGLISH, FISF)
    assert draw.kept == "ER"
    assert Counter(draw.drawn) == Counter("STAN?")
    assert draw.rack == "ER" + "ANST?"
    assert Counter(draw.bag) + Counter("STAN?") == Counter(bag)


@pytest.mark.parametrize(
    "bag, kept, typed, code",
    [
        ("AEIOUBCDST", "", "AEIBCD", "wrong_size"),
        ("AEIOUBCDST", "", "AEIBCDST", "wrong_size"),
        ("AEIOUBCDST", "", "AEIBCD1", "bad_letters"),
        ("AEIOUBCDST", "", "AEIBCDÉ", "bad_letters"),
        ("AEIOUBCDST", "", "AEIBCDZ", "not_in_bag"),
        ("AEIOUBCDST", "", "AAEBCDS", "not_in_bag"),
        ("AEIOUBCDST", "Z", "AEIBCDS", "missing_kept"),
        ("AEIOUBCDST", "", "AEIOUOB", "not_in_bag"),
        ("AEIOUEAOBCDST", "", "AEIOUAB", "too_few_consonants"),
        ("AEIOUBCDSTG", "", "ABCDSTG", "too_few_vowels"),
    ],
)
def test_typed_rack_refused_with_a_precise_code(bag, kept, typed, code):
    with pytest.raises(RackError) as caught:
        check_typed_rack(list(bag), kept, typed, 1, ENGLISH, FISF)
    assert caught.value.code == code
    assert caught.value.message


def test_typed_rack_after_a_rejection_need_not_hold_the_kept_letters():
    draw = check_typed_rack(list("AEIOUBCDST"), "Z", "AEIBCDS", 1, ENGLISH, FISF, after_rejection=True)
    assert draw.kept == "" and "Z" in draw.bag


def test_typed_short_rack_when_the_bag_runs_out():
    draw = check_typed_rack(list("AB"), "ER", "ERAB", 20, ENGLISH, FISF)
    assert draw.rack == "ERAB" and draw.bag == []


@pytest.mark.parametrize(
    "bag, kept, over",
    [
        ("", "", True),
        ("AEIOU", "A", True),
        ("BCDFG", "", True),
        ("A", "", True),
        ("?", "", True),
        ("Y", "", True),
        ("AEIOU", "Y", False),
        ("BCD", "?", False),
        ("??", "", False),
        ("AB", "", False),
        ("AEIOU", "B", False),
    ],
)
def test_game_is_over(bag, kept, over):
    assert game_is_over(list(bag), kept, ENGLISH, FISF) is over


def test_vowel_kinds_come_from_the_tile_set_data():
    from engine.tiles import parse_tileset

    # A set where Y is a plain consonant (the blank always counts either way).
    strict = parse_tileset("strict", "letter,count,value,vowel\nA,3,1,yes\nB,3,1,no\nY,3,1,no\n?,1,0,either\n")
    assert rack_is_valid("AYBBB", 1, strict, rules_preset("fisf", rack_size=5)) is False
    assert rack_is_valid("AYBBB", 1, ENGLISH, rules_preset("fisf", rack_size=5)) is True
    assert rack_is_valid("A?BBB", 1, strict, FISF) is True
    assert game_is_over(list("YB"), "", strict, FISF) is True
    assert game_is_over(list("YB"), "", ENGLISH, FISF) is False


def random_cases(count):
    cases = random.Random(2024)
    tiles = sorted(set(ENGLISH.full_bag()))
    for _ in range(count):
        letters = [cases.choice(tiles) for _ in range(cases.randrange(31))]
        kept = "".join(cases.choice(tiles) for _ in range(cases.randrange(7)))
        yield letters, kept, cases.randrange(1, 31), cases.randrange(10**6)


@pytest.mark.parametrize("letters, kept, round_number, seed", list(random_cases(80)))
def test_a_draw_is_valid_or_the_game_is_over(letters, kept, round_number, seed):
    try:
        draw = draw_rack(letters, kept, round_number, random.Random(seed), ENGLISH, FISF)
    except RackError as error:
        assert error.code == "game_over"
        assert minimums_in_force(letters + list(kept), round_number, ENGLISH, FISF) is None
        return
    assert Counter(draw.rack) + Counter(draw.bag) == Counter(letters) + Counter(kept)
    assert len(draw.rack) == min(FISF.rack_size, len(letters) + len(kept))
    assert rack_is_valid(draw.rack, round_number, ENGLISH, FISF, available=letters + list(kept))
    if not draw.rejected:
        assert draw.kept == "".join(sorted(kept, key=lambda ch: (ch == "?", ch)))
    again = draw_rack(letters, kept, round_number, random.Random(seed), ENGLISH, FISF)
    assert again == draw


def test_kept_letters_that_alone_make_the_rule_impossible_go_back_before_anything_is_drawn():
    # Six vowels kept in round 5 (early rule: 2 consonants): no seventh letter can save the rack.
    bag = list("AEIOUBCDFGHLMNPRST" * 2)
    for seed in range(20):
        draw = draw_rack(bag, "AEIOUU", 5, random.Random(seed), ENGLISH, FISF)
        assert draw.rejected[0] == "-AEIOUU+"  # recorded with nothing new
        assert draw.kept == "" and len(draw.rack) == 7 and rack_is_valid(draw.rack, 5, ENGLISH, FISF)
        assert Counter(draw.rack) + Counter(draw.bag) == Counter(bag) + Counter("AEIOUU")
    # Kept letters that a draw can still complete are kept and drawn with.
    assert draw_rack(bag, "AEIOU", 5, random.Random(1), ENGLISH, FISF).rejected[:1] != ["-AEIOU+"]


def test_kept_letters_alone_typed_to_be_rejected_fail_the_rule_not_the_size():
    bag = list("AEIOUBCDFGHLMNPRST")
    with pytest.raises(RackError) as caught:
        check_typed_rack(bag, "AEIOUU", "AEIOUU", 5, ENGLISH, FISF)
    assert caught.value.code == "too_few_consonants"
    # Kept letters that could still be completed are not a failing rack: the size is wrong.
    with pytest.raises(RackError) as caught:
        check_typed_rack(bag, "AEI", "AEI", 5, ENGLISH, FISF)
    assert caught.value.code == "wrong_size"
