"""Lanes: the board read in one direction, so that one code path serves plays across and down.

A **lane** is a row (for plays across) or a column (for plays down) read as a line of ``SIZE`` squares.
Read lane after lane, the board gives its **view** in that direction: across, the board itself; down, its
transpose.  In a view, square ``i`` is at position ``i % SIZE`` of lane ``i // SIZE``; a play's squares are
consecutive indexes of one lane, and the cross-lane neighbours of square ``i`` (where a cross-word runs) are
``i - SIZE`` and ``i + SIZE``.  The squares hold the tile codes of ``engine.tiles``.

``ACROSS`` and ``DOWN`` (``lanes(horizontal)``) map between a view and the board: ``index(row, col)`` is
the view's square of a board square, ``square(i)`` the board's (row, col) of a view's square; they carry
the premium multipliers in view order.  Move generation, checking, scoring and judging all work on views
(``Board.view(horizontal)``); (row, col) appear only where a play is named.
"""
from __future__ import annotations

from .layout import LETTER_MULTIPLIER, SIZE, WORD_MULTIPLIER

AREA = SIZE * SIZE

# Square of the transposed board -> square of the board (a transposition is its own inverse).
TRANSPOSE = tuple(c * SIZE + r for r in range(SIZE) for c in range(SIZE))


class Lanes:
    """The board's lanes in one direction: its rows (``ACROSS``) or its columns (``DOWN``)."""

    __slots__ = ("horizontal", "board_index", "letter_mult", "word_mult")

    def __init__(self, horizontal: bool):
        self.horizontal = horizontal
        # View square -> board square (and back: the mapping is its own inverse).
        self.board_index = tuple(range(AREA)) if horizontal else TRANSPOSE
        self.letter_mult = tuple(LETTER_MULTIPLIER[i] for i in self.board_index)
        self.word_mult = tuple(WORD_MULTIPLIER[i] for i in self.board_index)

    def __repr__(self) -> str:
        return "ACROSS" if self.horizontal else "DOWN"

    def view(self, squares) -> tuple:
        """The board's squares (row by row) read lane after lane."""
        return tuple(squares) if self.horizontal else tuple(squares[i] for i in TRANSPOSE)

    def index(self, row: int, col: int) -> int:
        """The view's square of the board square (row, col)."""
        return row * SIZE + col if self.horizontal else col * SIZE + row

    def square(self, i: int) -> tuple[int, int]:
        """The board's (row, col) of the view's square ``i``."""
        lane, position = divmod(i, SIZE)
        return (lane, position) if self.horizontal else (position, lane)

    def span(self, row: int, col: int, length: int) -> range | None:
        """The view's squares of ``length`` squares from (row, col) along the lane; None when they leave
        the board."""
        if not (0 <= row < SIZE and 0 <= col < SIZE):
            return None
        start = self.index(row, col)
        if start % SIZE + length > SIZE:
            return None
        return range(start, start + length)


ACROSS = Lanes(True)
DOWN = Lanes(False)


def lanes(horizontal: bool) -> Lanes:
    return ACROSS if horizontal else DOWN
