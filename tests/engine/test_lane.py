"""Lanes and views: one reading of the board for plays across and down."""
import pytest

from engine.board import Board
from engine.lane import ACROSS, DOWN, TRANSPOSE, lanes
from engine.layout import LETTER_MULTIPLIER, SIZE, WORD_MULTIPLIER
from engine.tiles import encode


def _board():
    rows = ["." * SIZE] * SIZE
    rows[7] = "....CAt........"
    rows[3] = "..........Q...."
    return Board.from_rows(rows)


def test_a_view_reads_the_board_lane_after_lane():
    board = _board()
    assert board.view(True) == board.squares
    down = board.view(False)
    assert down is board.view(False)  # made once per board
    for row in range(SIZE):
        for col in range(SIZE):
            assert down[DOWN.index(row, col)] == board.tile(row, col)
            assert board.view(True)[ACROSS.index(row, col)] == board.tile(row, col)
    assert down[DOWN.index(7, 6)] == encode("t")


@pytest.mark.parametrize("lane", [ACROSS, DOWN], ids=repr)
def test_index_and_square_map_a_view_to_the_board_and_back(lane):
    for i in range(SIZE * SIZE):
        row, col = lane.square(i)
        assert lane.index(row, col) == i
        assert lane.board_index[i] == row * SIZE + col
        assert lane.letter_mult[i] == LETTER_MULTIPLIER[row * SIZE + col]
        assert lane.word_mult[i] == WORD_MULTIPLIER[row * SIZE + col]
    assert lanes(lane.horizontal) is lane


def test_down_is_the_transpose():
    assert all(TRANSPOSE[TRANSPOSE[i]] == i for i in range(SIZE * SIZE))
    assert DOWN.square(1) == (1, 0) and ACROSS.square(1) == (0, 1)


def test_a_span_stays_in_its_lane():
    assert ACROSS.span(7, 3, 5) == range(7 * SIZE + 3, 7 * SIZE + 8)
    assert DOWN.span(3, 7, 5) == range(7 * SIZE + 3, 7 * SIZE + 8)  # column 7 from row 3
    assert ACROSS.span(7, 11, 4) is not None and ACROSS.span(7, 11, 5) is None
    assert DOWN.span(11, 0, 5) is None
    assert ACROSS.span(-1, 0, 1) is None and DOWN.span(0, SIZE, 1) is None
