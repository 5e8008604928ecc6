"""The reason given for a zero is the first that applies in the rules' order (§4): bad reference or word
syntax, does not fit, letters not in the rack, invalid words. One slip for each pair of them.

Board: HORN at H6, round 5, rack ABESTUV (no blank): QXZWK is neither a word nor in the rack; BUSTEA is in
the rack but not a word; ZOOS is a word the rack cannot make.
"""

import pytest

from engine.board import Board
from engine.judging import Slip, judge_slip


def horn_board() -> Board:
    rows = ["." * 15 for _ in range(15)]
    rows[7] = "....." + "HORN" + "......"
    return Board.from_rows(rows)


@pytest.mark.parametrize(
    ("word", "ref", "reason", "pair"),
    [
        ("ZOOS", "Z99", "bad_ref", "a valid word: bad reference before letters not in the rack"),
        ("QXZWKQXZWKQXZWK", "Z99", "bad_ref", "bad reference before does not fit"),
        ("QXZWKQXZWKQXZWK", "I6", "does_not_fit", "does not fit (off the board) before the rest"),
        ("QXZWK", "Z99", "bad_ref", "bad reference before letters not in the rack"),
        ("BUSTEA", "", "bad_ref", "bad reference before an invalid word"),
        ("QXZWK", "O13", "does_not_fit", "does not fit before letters not in the rack"),
        ("BUSTEA", "O13", "does_not_fit", "does not fit before an invalid word"),
        ("QXZWK", "I6", "not_in_rack", "letters not in the rack before an invalid word"),
        ("ZOOS", "O13", "does_not_fit", "a valid word: does not fit before letters not in the rack"),
        ("BUSTEA", "I6", "invalid_word", "only an invalid word"),
    ],
)
def test_the_first_reason_in_the_rules_order_is_given(twl06, english, fisf, word, ref, reason, pair):
    assert "QXZWK" not in twl06 and "BUSTEA" not in twl06 and "ZOOS" in twl06
    j = judge_slip(horn_board(), "ABESTUV", 5, Slip(word, ref, 30), twl06, english, fisf)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", reason), pair


def test_a_bad_word_is_reported_before_everything(twl06, english, fisf):
    j = judge_slip(horn_board(), "ABESTUV", 5, Slip("QX-ZW", "Z99", 30), twl06, english, fisf)
    assert j.reason == "bad_word"


def test_in_the_first_round_a_word_the_rack_cannot_make_is_not_in_the_rack(twl06, english, fisf):
    empty = Board.from_rows(["." * 15] * 15)
    j = judge_slip(empty, "ABESTUV", 1, Slip("QXZWK", None, 30), twl06, english, fisf)
    assert j.reason == "not_in_rack"
    j = judge_slip(empty, "ABESTUV", 1, Slip("BUSTEA", None, 30), twl06, english, fisf)
    assert j.reason == "invalid_word"


# The phone's nonsense slip QXZWK 8H (down from H8), in a French game: none of its letters is on the rack, so
# that is the reason given, not the invalid word (nor the invalid cross-word it would also make).
@pytest.mark.parametrize("preset", ["fisf", "classic"])
def test_the_nonsense_slip_qxzwk_8h_is_letters_not_in_the_rack(tmp_path, preset):
    from engine.lexicon import import_lexicon
    from engine.rules import rules_preset
    from engine.tiles import load_tileset

    french = load_tileset("french")
    lexicon = import_lexicon("frreason", ["ETE", "ETES", "RATE", "ENTRAIS", "TRAINES"], french,
                             cache_dir=tmp_path).lexicon
    rules = rules_preset(preset)
    rows = ["." * 15 for _ in range(15)]
    rows[8] = "....ETE........"  # ETE at I5: H8's column passes beside its last E
    board = Board.from_rows(rows)
    j = judge_slip(board, "AEINRST", 4, Slip("QXZWK", "8H", 40), lexicon, french, rules)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_in_rack"), j.message
    # With those letters on the rack, the same slip is an invalid word: the order alone decided above.
    j = judge_slip(board, "QXZWKAE", 4, Slip("QXZWK", "8H", 40), lexicon, french, rules)
    assert j.reason == "invalid_word", j.message

    # The same slip in the first round, on the empty board (where the reference may be left out).
    empty = Board.from_rows(["." * 15] * 15)
    j = judge_slip(empty, "AEINRST", 1, Slip("QXZWK", "8H", 40), lexicon, french, rules)
    assert (j.paid, j.outcome, j.reason) == (0, "zero", "not_in_rack"), j.message

    # On the HORN board H8 holds the R of HORN: written Q there, the slip does not fit, which comes first.
    j = judge_slip(horn_board(), "AEINRST", 4, Slip("QXZWK", "8H", 40), lexicon, french, rules)
    assert j.reason == "does_not_fit", j.message
