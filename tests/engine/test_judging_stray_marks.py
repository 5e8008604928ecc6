"""Stray blank marks (rules §4): a letter marked as a blank that the rack holds as a real tile is paid the
real score of the play the rack allows, with one warning, never worse than the same slip without the mark.

The booklet's board: HORN at H6 and FARM at 8F; the slips are the ones the rules' audit found (round 5,
STAPLED at 5G).
"""

import pytest

from engine.board import Board
from engine.judging import Slip, judge_slip
from engine.rules import rules_preset


def booklet_board() -> Board:
    rows = [list("." * 15) for _ in range(15)]
    for i, ch in enumerate("HORN"):
        rows[7][5 + i] = ch
    for i, ch in enumerate("FARM"):
        rows[5 + i][7] = ch
    return Board.from_rows(["".join(row) for row in rows])


def judge(twl06, english, rack, word, score=76, rules=None):
    j = judge_slip(booklet_board(), rack, 5, Slip(word, "5G", score), twl06, english, rules or rules_preset("fisf"))
    return j.paid, j.outcome, j.reason


@pytest.mark.parametrize(
    ("rack", "word", "expected"),
    [
        ("AEPST?D", "sTAPLED", (76, "warning", "blank_not_marked")),  # stray mark on S, the blank unmarked
        ("AEPST?D", "sTAPlED", (76, "warning", "stray_blank_mark")),  # the blank rightly on L, stray on S
        ("AEPSTLD", "STAPlED", (78, "warning", "stray_blank_mark")),  # no blank in the rack, L marked
    ],
)
def test_the_audits_slips_are_paid_the_play_the_rack_allows_with_one_warning(twl06, english, rack, word, expected):
    assert judge(twl06, english, rack, word, score=expected[0]) == expected


@pytest.mark.parametrize(
    ("rack", "stray", "clean"),
    [("AEPST?D", "sTAPlED", "STAPlED"), ("AEPSTLD", "STAPlED", "STAPLED"), ("AEPSTLD", "sTaPLED", "STAPLED")],
)
@pytest.mark.parametrize("score", [76, 78, None])
def test_never_worse_than_the_same_slip_without_the_stray_mark(twl06, english, rack, stray, clean, score):
    with_mark = judge(twl06, english, rack, stray, score)
    without = judge(twl06, english, rack, clean, score)
    assert with_mark[0] >= without[0] and with_mark[1] in ("ok", "warning")


def test_a_mark_the_rack_can_honour_is_no_stray_mark(twl06, english):
    # The blank stands for the L: the mark is the rack's own blank, paid as written.
    assert judge(twl06, english, "AEPST?D", "STAPlED") == (76, "ok", "ok")


def test_without_warnings_a_stray_mark_is_letters_not_in_the_rack(twl06, english):
    assert judge(twl06, english, "AEPSTLD", "STAPlED", 78, rules_preset("classic"))[0] == 0
