import pytest

from engine.board import Board


class _Play:
    def __init__(self, tiles):
        self.tiles = tuple(tiles)


def test_empty_board():
    b = Board.empty()
    assert b.is_empty()
    assert b.rows() == ["." * 15] * 15
    assert b.get(7, 7) == "."


def test_rows_round_trip_with_blanks():
    rows = ["." * 15] * 15
    rows[7] = "....CAt........"
    b = Board.from_rows(rows)
    assert b.rows() == rows
    assert b.get(7, 6) == "t"
    assert not b.is_empty()


def test_place_returns_a_new_board():
    b = Board.empty()
    b2 = b.place(_Play([(7, 7, "A", False), (7, 8, "T", True)]))
    assert b.is_empty()
    assert b2.get(7, 7) == "A" and b2.get(7, 8) == "t"
    with pytest.raises(ValueError):
        b2.place(_Play([(7, 7, "B", False)]))


def test_from_rows_rejects_bad_shapes():
    with pytest.raises(ValueError):
        Board.from_rows(["." * 15] * 14)
    with pytest.raises(ValueError):
        Board.from_rows(["?" + "." * 14] + ["." * 15] * 14)


def test_standard_premium_layout():
    from engine.layout import CENTRE, LETTER_MULTIPLIER, SIZE, STANDARD, WORD_MULTIPLIER

    cells = "".join(STANDARD)
    assert [cells.count(ch) for ch in "WwLl"] == [8, 17, 12, 24]
    assert STANDARD[CENTRE[0]][CENTRE[1]] == "w"
    # Symmetric under rotation and reflection, so the down plays see the same premiums as across.
    assert [row[::-1] for row in STANDARD] == list(STANDARD)
    assert ["".join(row[c] for row in STANDARD) for c in range(SIZE)] == list(STANDARD)
    assert WORD_MULTIPLIER[0] == 3 and LETTER_MULTIPLIER[3] == 2 and LETTER_MULTIPLIER[SIZE + 5] == 3
