"""The board: an immutable value object over 225 tile codes (see ``engine.tiles``)."""
from __future__ import annotations

from .lane import DOWN
from .layout import SIZE
from .tiles import BLANK, EMPTY, decode, encode, letter_code


class Board:
    __slots__ = ("squares", "_down")

    def __init__(self, squares):
        squares = tuple(squares)
        if len(squares) != SIZE * SIZE:
            raise ValueError(f"a board has {SIZE * SIZE} squares, got {len(squares)}")
        self.squares = squares  # tile code per square, index row * SIZE + col
        self._down = None  # the view down (the transpose), made when first asked for

    @classmethod
    def empty(cls) -> Board:
        return cls((EMPTY,) * (SIZE * SIZE))

    @classmethod
    def from_rows(cls, rows) -> Board:
        rows = list(rows)
        if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
            raise ValueError(f"a board is {SIZE} rows of {SIZE} characters")
        squares = []
        for row in rows:
            for ch in row:
                if ch == "?":
                    raise ValueError("a blank on the board must say which letter it stands for")
                squares.append(encode(ch))
        return cls(squares)

    def rows(self) -> list[str]:
        return [
            "".join(decode(t) for t in self.squares[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)
        ]

    def view(self, horizontal: bool) -> tuple:
        """The squares read lane after lane in that direction (see ``engine.lane``): across, ``squares``
        itself; down, the transpose."""
        if horizontal:
            return self.squares
        if self._down is None:
            self._down = DOWN.view(self.squares)
        return self._down

    def tile(self, row: int, col: int) -> int:
        return self.squares[row * SIZE + col]

    def get(self, row: int, col: int) -> str:
        return decode(self.squares[row * SIZE + col])

    def is_empty(self) -> bool:
        return not any(self.squares)

    def place(self, play) -> Board:
        """A new board with ``play.tiles`` ((row, col, letter, is_blank), ...) placed."""
        squares = list(self.squares)
        for row, col, letter, is_blank in play.tiles:
            if not (0 <= row < SIZE and 0 <= col < SIZE):
                raise ValueError(f"square ({row}, {col}) is off the board")
            i = row * SIZE + col
            if squares[i] != EMPTY:
                raise ValueError(f"square ({row}, {col}) is not free")
            squares[i] = letter_code(letter) | (BLANK if is_blank else 0)
        return Board(squares)

    def __eq__(self, other) -> bool:
        return isinstance(other, Board) and self.squares == other.squares

    def __hash__(self) -> int:
        return hash(self.squares)

    def __repr__(self) -> str:
        return "Board.from_rows([\n" + "".join(f"    {r!r},\n" for r in self.rows()) + "])"
