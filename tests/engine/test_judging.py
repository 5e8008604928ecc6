"""Every row of the paying table (rules document §4) on a tiny word list.

The board after round 1 holds HORN at H6 (row H, columns 6-9).  Premium squares used below (rows-letters
references): H4 and H12 double letter, H8 double word (the centre), 6J triple letter.
"""

import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.judging import REASON_MESSAGES, Slip, judge_slip, zero
from engine.lexicon import import_lexicon, load_lexicon
from engine.notation import format_ref
from engine.rules import rules_preset
from engine.tally import count_solos, solo_bonuses, warning_deduction
from engine.tiles import load_tileset

ENGLISH = load_tileset("english")
FISF = rules_preset("fisf")
CLASSIC = rules_preset("classic")
WORDS = ["HORN", "HORNS", "SHE", "SHEETS", "TOE", "AT", "TA", "NOTES"]


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    return import_lexicon("judging-test", WORDS, ENGLISH, cache_dir=tmp_path_factory.mktemp("lex")).lexicon


def horn_board():
    rows = ["." * 15 for _ in range(15)]
    rows[7] = "....." + "HORN" + "......"
    return Board.from_rows(rows)


def judge(lexicon, rack, word, ref, claimed, rules=FISF, round_number=2, board=None, **kw):
    board = horn_board() if board is None else board
    return judge_slip(board, rack, round_number, Slip(word, ref, claimed), lexicon, ENGLISH, rules, **kw)


# SHE down from 6G: S 1 + H 4 (on the board) + E 1 = 6.
# SHEETS down from 6G: S 1 + H 4 + E 1 + E on 6J (triple letter) 3 + T 1 + S 1 = 11.


def test_right_word_reference_and_score(lexicon):
    j = judge(lexicon, "ABESTUV", "SHE", "6G", 6)
    assert (j.paid, j.outcome, j.reason) == (6, "ok", "ok")
    assert j.play.word == "SHE" and (j.play.row, j.play.col, j.play.horizontal) == (6, 5, False)
    assert "6G" in j.message


def test_lenient_reference_text(lexicon):
    j = judge(lexicon, "ABESTUV", "she", " 6 g ", 6)
    # Lowercase letters are marked blanks, but the rack holds them as real tiles: stray marks (§4), paid
    # the play the rack allows with a warning.
    assert (j.paid, j.outcome, j.reason) == (6, "warning", "stray_blank_mark")
    j = judge(lexicon, "ABESTUV", "SHE", " 6 g ", 6)
    assert (j.paid, j.outcome) == (6, "ok")


@pytest.mark.parametrize("claimed", [7, 0, None])
def test_wrong_or_missing_score_is_a_warning_paid_the_real_score(lexicon, claimed):
    j = judge(lexicon, "ABESTUV", "SHE", "6G", claimed)
    assert (j.paid, j.outcome, j.reason) == (6, "warning", "wrong_score")


def test_reversed_reference_is_a_warning(lexicon):
    # G6 is across from row G: S, H, E over H, O, R would form SH, HO, ER.
    j = judge(lexicon, "ABEHSTU", "SHE", "G6", 6)
    assert (j.paid, j.outcome, j.reason) == (6, "warning", "reversed_ref")
    assert not j.play.horizontal


def test_reversed_reference_and_wrong_score_give_one_warning(lexicon):
    j = judge(lexicon, "ABEHSTU", "SHE", "G6", 9)
    assert (j.paid, j.outcome, j.reason) == (6, "warning", "reversed_ref")
    assert "9 claimed" in j.message


def test_reversed_reference_is_not_forgiven_under_classic(lexicon):
    j = judge(lexicon, "ABEHSTU", "SHE", "G6", 6, rules=CLASSIC)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "invalid_word")
    assert all(w in j.message for w in ("SH", "HO", "ER"))


def test_wrong_reference_with_a_reachable_claimed_score_is_a_penalty(lexicon):
    # H6 and 6H both start on the H of HORN: SHEETS does not fit there; 11 is reachable at 6G.
    j = judge(lexicon, "ABEESST", "SHEETS", "H6", 11)
    assert (j.paid, j.outcome, j.reason) == (11 - 5, "penalty", "wrong_ref")
    assert (j.play.row, j.play.col, j.play.horizontal, j.play.score) == (6, 5, False, 11)


@pytest.mark.parametrize("ref", [None, "", "Q9", "HH", "H6"])
def test_missing_or_malformed_reference_with_a_reachable_score_is_a_penalty(lexicon, ref):
    j = judge(lexicon, "ABEESST", "SHEETS", ref, 11)
    assert (j.paid, j.outcome, j.reason) == (6, "penalty", "wrong_ref")


def test_penalty_and_its_floor_come_from_the_rules(lexicon):
    assert judge(lexicon, "ABEESST", "SHEETS", None, 11, rules=rules_preset("fisf", penalty=6)).paid == 5
    floored = judge(lexicon, "ABEESST", "SHEETS", None, 11, rules=rules_preset("fisf", penalty=7))
    assert (floored.paid, floored.outcome, floored.reason) == (0, "penalty", "wrong_ref")
    assert judge(lexicon, "ABEESST", "SHEETS", None, 11, rules=rules_preset("fisf", penalty_floor=6)).paid == 0


def test_small_penalised_score_is_paid_nothing(lexicon):
    j = judge(lexicon, "ABESTUV", "SHE", None, 6)
    assert (j.paid, j.outcome, j.reason) == (0, "penalty", "wrong_ref")


@pytest.mark.parametrize("ref, reason", [(None, "bad_ref"), ("Q9", "bad_ref"), ("H6", "does_not_fit")])
def test_wrong_reference_with_an_unreachable_score_is_zero(lexicon, ref, reason):
    j = judge(lexicon, "ABEESST", "SHEETS", ref, 12)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", reason)


def test_no_penalty_under_classic(lexicon):
    j = judge(lexicon, "ABEESST", "SHEETS", "H6", 11, rules=CLASSIC)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "does_not_fit")


def test_blank_not_marked_is_paid_the_lowest_reading(lexicon):
    # One E and a blank for two Es: the blank on 6J (triple letter) scores 8, on 6I 10.
    j = judge(lexicon, "?ABESST", "SHEETS", "6G", 8)
    assert (j.paid, j.outcome, j.reason) == (8, "warning", "blank_not_marked")
    assert [t for t in j.play.tiles if t[3]] == [(9, 5, "E", True)]
    j = judge(lexicon, "?ABESST", "SHEETS", "6G", 10)
    assert (j.paid, j.outcome, j.reason) == (8, "warning", "blank_not_marked")


def test_marked_blanks_are_paid_as_written(lexicon):
    j = judge(lexicon, "?ABESST", "SHEeTS", "6G", 8)
    assert (j.paid, j.outcome, j.reason) == (8, "ok", "ok")
    j = judge(lexicon, "?ABESST", "SHeETS", "6G", 10)
    assert (j.paid, j.outcome, j.reason) == (10, "ok", "ok")


def test_blank_not_marked_and_reversed_give_one_warning(lexicon):
    j = judge(lexicon, "?ABESST", "SHEETS", "G6", 8)
    assert (j.paid, j.outcome, j.reason) == (8, "warning", "blank_not_marked")
    assert "reversed" in j.message


def test_blank_not_marked_is_zero_under_classic(lexicon):
    j = judge(lexicon, "?ABESST", "SHEETS", "6G", 8, rules=CLASSIC)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_in_rack")


def test_letters_not_in_the_rack(lexicon):
    j = judge(lexicon, "ABESTUV", "SHEETS", "6G", 13)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_in_rack")


def test_any_invalid_cross_word_is_zero_and_all_are_named(lexicon):
    # TOE across from G6 forms TH, OO and ER; down from 6G it does not fit (O written on the H).
    j = judge(lexicon, "ABEOSTU", "TOE", "G6", 50)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "invalid_word")
    for word in ("TH", "OO", "ER"):
        assert word in j.message


def test_main_word_not_in_the_lexicon(lexicon):
    j = judge(lexicon, "ABEHSTU", "HEST", "6H", 7)  # down from the H of HORN: it fits, the rack holds EST
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "invalid_word")
    # Written where it does not fit, the first reason in the rules' order is given (§4).
    assert judge(lexicon, "ABEHSTU", "HEST", "6G", 7).reason == "does_not_fit"
    assert "HEST" in j.message


def test_does_not_fit(lexicon):
    j = judge(lexicon, "ABEESST", "SHEETS", "O11", 50)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "does_not_fit")
    j = judge(lexicon, "ABEHSTU", "SHE", "6H", 50)  # S written on the H of HORN
    assert j.reason == "does_not_fit"


def test_not_connected(lexicon):
    j = judge(lexicon, "ABEHSTU", "SHE", "B2", 50)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_connected")


@pytest.mark.parametrize("word", [None, "", "S HE", "SH3", "SH€"])
def test_malformed_word(lexicon, word):
    j = judge(lexicon, "ABEHSTU", word, "6G", 6)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "bad_word")


def test_classic_pays_the_real_score_whatever_is_claimed(lexicon):
    for claimed in (6, 7, None):
        j = judge(lexicon, "ABESTUV", "SHE", "6G", claimed, rules=CLASSIC)
        assert (j.paid, j.outcome, j.reason) == (6, "ok", "ok")


def test_rows_numbers_labelling(lexicon):
    # In rows-numbers, SHE down from row 7 column F is F7.
    j = judge(lexicon, "ABESTUV", "SHE", "F7", 6, labelling="rows-numbers")
    assert (j.paid, j.outcome) == (6, "ok")
    assert "F7" in j.message
    j = judge(lexicon, "ABEHSTU", "SHE", "7F", 6, labelling="rows-numbers")
    assert j.reason == "reversed_ref"


# First round: HORNS across the centre.  From H4 the H is on a double letter: (8+1+1+1+1)x2 = 24;
# from H8 the S is on H12, a double letter: (4+1+1+1+2)x2 = 18; from H5-H7: 16.


def first(lexicon, rack, word, ref, claimed, rules=FISF):
    return judge(lexicon, rack, word, ref, claimed, rules=rules, round_number=1, board=Board.empty())


@pytest.mark.parametrize("ref", [None, "", "H4"])
def test_first_round_best_placement(lexicon, ref):
    j = first(lexicon, "AEHNORS", "HORNS", ref, 24)
    assert (j.paid, j.outcome, j.reason) == (24, "ok", "ok")
    assert (j.play.row, j.play.col, j.play.horizontal) == (7, 3, True)


@pytest.mark.parametrize("ref", ["H8", "8H", "H6", "Z9"])
def test_first_round_another_reference_costs_nothing(lexicon, ref):
    j = first(lexicon, "AEHNORS", "HORNS", ref, 24)
    assert (j.paid, j.outcome, j.reason) == (24, "ok", "first_round_best")


def test_first_round_wrong_score_is_a_warning(lexicon):
    # Another placement named (H8, with its own score, 18): paid as the best placement, H4, and the warning
    # says so (reason first_round_best_wrong_score, the play paid being H4).
    j = first(lexicon, "AEHNORS", "HORNS", "H8", 18)
    assert (j.paid, j.outcome, j.reason) == (24, "warning", "first_round_best_wrong_score")
    assert (j.play.row, j.play.col, j.play.horizontal) == (7, 3, True)
    assert j.message == "HORNS H4 24: first round: paid the best placement of the word; 18 claimed, real score 24"
    # The best placement named, or none: the score alone was wrong.
    for ref in ("H4", None):
        j = first(lexicon, "AEHNORS", "HORNS", ref, 18)
        assert (j.paid, j.outcome, j.reason) == (24, "warning", "wrong_score")


def test_first_round_a_placement_that_ties_the_best_is_the_players_own(lexicon):
    # NOTES: its N from H4 and its S from H8 each sit on a double letter, 12 both; H5-H7 give 10. The player who
    # wrote H8 named a best placement: paid as written, and a wrong score is only a wrong score.
    j = first(lexicon, "AEHNOST", "NOTES", "H8", 12)
    assert (j.paid, j.outcome, j.reason) == (12, "ok", "ok")
    assert (j.play.row, j.play.col, j.play.horizontal) == (7, 7, True)
    j = first(lexicon, "AEHNOST", "NOTES", "H8", 11)
    assert (j.paid, j.outcome, j.reason) == (12, "warning", "wrong_score")
    assert (j.play.row, j.play.col, j.play.horizontal) == (7, 7, True)
    # H6 is not a best placement: paid as the first best, H4, and said so.
    j = first(lexicon, "AEHNOST", "NOTES", "H6", 10)
    assert (j.paid, j.outcome, j.reason) == (12, "warning", "first_round_best_wrong_score")
    assert (j.play.row, j.play.col, j.play.horizontal) == (7, 3, True)


def test_first_round_blank_not_marked(lexicon):
    # Blank as H: from H8 (0+1+1+1+2)x2 = 10 is the best placement.
    j = first(lexicon, "?AENORS", "HORNS", None, 10)
    assert (j.paid, j.outcome, j.reason) == (10, "warning", "blank_not_marked")
    j = first(lexicon, "?AENORS", "hORNS", None, 10)
    assert (j.paid, j.outcome, j.reason) == (10, "ok", "ok")


def test_first_round_letters_not_in_the_rack(lexicon):
    j = first(lexicon, "AEIOUST", "HORNS", None, 24)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_in_rack")


def test_first_round_under_classic_needs_a_reference(lexicon):
    assert first(lexicon, "AEHNORS", "HORNS", "H4", 24, rules=CLASSIC).paid == 24
    assert first(lexicon, "AEHNORS", "HORNS", "H8", 24, rules=CLASSIC).paid == 18
    j = first(lexicon, "AEHNORS", "HORNS", None, 24, rules=CLASSIC)
    assert (j.paid, j.reason) == (0, "bad_ref")
    j = first(lexicon, "AEHNORS", "HORNS", "H9", 24, rules=CLASSIC)
    assert (j.paid, j.reason) == (0, "does_not_fit")


def test_zero_for_no_slip_and_late():
    for reason in ("no_slip", "late"):
        j = zero(reason)
        assert (j.paid, j.outcome, j.reason, j.message) == (0, "zero", reason, REASON_MESSAGES[reason])


def test_warnings_cost_from_the_fourth():
    assert [warning_deduction(n, FISF) for n in range(6)] == [0, 0, 0, 0, 5, 10]
    blitz = rules_preset("fisf", free_warnings=5, warning_cost=3)
    assert [warning_deduction(n, blitz) for n in (5, 6, 8)] == [0, 3, 9]
    assert warning_deduction(9, CLASSIC) == 0


def test_solos():
    rounds = [
        {"ann": 30, "bob": 20, "cy": 20},  # ann alone on top
        {"ann": 30, "bob": 30, "cy": 10},  # tie: no solo
        {"ann": 0, "bob": 0, "cy": 5},  # cy, below any top, still a solo
        {"ann": 50},  # a single player: no solo
    ]
    assert count_solos(rounds) == {"ann": 1, "cy": 1}
    assert solo_bonuses(rounds, 16, FISF) == {"ann": 10, "cy": 10}
    assert solo_bonuses(rounds, 15, FISF) == {}
    assert solo_bonuses(rounds, 40, CLASSIC) == {}
    assert solo_bonuses(rounds, 4, rules_preset("fisf", solo_min_players=2, solo_bonus=7)) == {"ann": 7, "cy": 7}


def test_penalty_reads_an_unmarked_blank_either_way_but_keeps_marked_ones(lexicon):
    # SHEETS from 6G with one E and a blank scores 8 or 10 depending on which E is the blank.
    j = judge(lexicon, "?ABESST", "SHEETS", "H6", 10)
    assert (j.paid, j.outcome, j.reason) == (5, "penalty", "wrong_ref")
    j = judge(lexicon, "?ABESST", "SHEeTS", "H6", 10)  # the marked blank scores 8 there, not 10
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "does_not_fit")


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "positions_twl06.jsonl"


def test_reference_tops_are_paid_in_full_and_reversed_references_cost_a_warning():
    twl = load_lexicon("TWL06")
    checked = 0
    for line in FIXTURES.read_text().splitlines()[:80]:
        position = json.loads(line)
        board = Board.from_rows(position["board"])
        round_number = 1 if board.is_empty() else 5
        for top in position["top_moves"]:
            ref = format_ref(top["row"], top["col"], top["horizontal"])
            j = judge_slip(board, position["rack"], round_number, Slip(top["word"], ref, top["score"]), twl, ENGLISH, FISF)
            assert (j.paid, j.outcome, j.reason) == (top["score"], "ok", "ok"), position["id"]
            flipped = format_ref(top["row"], top["col"], not top["horizontal"])
            j = judge_slip(
                board, position["rack"], round_number, Slip(top["word"], flipped, top["score"]), twl, ENGLISH, FISF
            )
            assert j.paid <= top["score"] and j.outcome == "warning", position["id"]
            if j.reason == "reversed_ref":
                assert j.paid == top["score"]
            if top["word"] != top["word"].upper():
                unmarked = Slip(top["word"].upper(), ref, top["score"])
                j = judge_slip(board, position["rack"], round_number, unmarked, twl, ENGLISH, FISF)
                assert j.paid <= top["score"] and j.outcome in ("ok", "warning"), position["id"]
            checked += 1
    assert checked >= 80
