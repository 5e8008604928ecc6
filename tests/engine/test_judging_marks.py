"""A blank played but not marked while another letter is marked (rules §4, "blank letter not marked").

The rack holds the marked letter itself, so the mark cannot be honoured; the blank stands for a letter
the player left uppercase.  The play is possible with the rack: it is paid the lowest-scoring reading
with a warning, as when no letter is marked at all, never 0 for "letters not in the rack".
"""

import pytest

from engine.board import Board
from engine.judging import Slip, judge_slip
from engine.lexicon import import_lexicon
from engine.rules import rules_preset
from engine.tiles import load_tileset

ENGLISH = load_tileset("english")
FISF = rules_preset("fisf")
CLASSIC = rules_preset("classic")


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    words = ["HORN", "SHEETS", "BAG"]
    return import_lexicon("judging-marks", words, ENGLISH, cache_dir=tmp_path_factory.mktemp("lex")).lexicon


def horn_board():
    rows = ["." * 15 for _ in range(15)]
    rows[7] = "....." + "HORN" + "......"
    return Board.from_rows(rows)


# SHEETS down from 6G through the H of HORN, rack ?ABESST: one E and the blank for the other.
# The blank on 6J (triple letter) scores 8, on 6I 10 (as without any mark).


def test_a_wrong_mark_with_the_blank_unmarked_is_a_warning_paid_the_lowest_reading(lexicon):
    unmarked = judge_slip(horn_board(), "?ABESST", 2, Slip("SHEETS", "6G", 8), lexicon, ENGLISH, FISF)
    wrong_mark = judge_slip(horn_board(), "?ABESST", 2, Slip("sHEETS", "6G", 8), lexicon, ENGLISH, FISF)
    assert (unmarked.paid, unmarked.outcome, unmarked.reason) == (8, "warning", "blank_not_marked")
    assert (wrong_mark.paid, wrong_mark.outcome, wrong_mark.reason) == (8, "warning", "blank_not_marked")
    assert [t for t in wrong_mark.play.tiles if t[3]] == [(9, 5, "E", True)]


def test_a_wrong_mark_in_the_first_round(lexicon):
    # BAG across the centre with the blank as G: (3 + 1 + 0) x 2 = 8 wherever it covers H8.
    j = judge_slip(Board.empty(), "?ABCDEF", 1, Slip("bAG", None, 8), lexicon, ENGLISH, FISF)
    assert (j.paid, j.outcome, j.reason) == (8, "warning", "blank_not_marked")


def test_a_wrong_mark_and_a_wrong_reference_with_a_reachable_score_is_a_penalty(lexicon):
    j = judge_slip(horn_board(), "?ABESST", 2, Slip("sHEETS", "H6", 10), lexicon, ENGLISH, FISF)
    assert (j.paid, j.outcome, j.reason) == (5, "penalty", "wrong_ref")


def test_classic_still_pays_nothing_for_an_unmarked_blank(lexicon):
    j = judge_slip(horn_board(), "?ABESST", 2, Slip("sHEETS", "6G", 8), lexicon, ENGLISH, CLASSIC)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_in_rack")
