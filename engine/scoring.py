"""Scoring a play already known to be valid (rules §6).

Letter premiums apply before word premiums, two word premiums multiply, premiums count only under tiles
placed this round, a blank scores 0 but still triggers word premiums; every word formed is scored (main
and cross-words, a shared letter counting in each); placing ``rules.rack_size`` tiles adds
``rules.bingo_bonus`` after the word multipliers.
"""
from __future__ import annotations

from .layout import LETTER_MULTIPLIER, SIZE, WORD_MULTIPLIER
from .tiles import EMPTY


def step(horizontal: bool) -> tuple[int, int]:
    """(row, col) increment along a word laid in this direction."""
    return (0, 1) if horizontal else (1, 0)


def run(squares, row: int, col: int, horizontal: bool, placed=None) -> list[int]:
    """Squares (indexes) of the run of tiles through (row, col) along ``horizontal``: board tiles and the
    ``placed`` ones ({index: tile})."""
    placed = placed or {}
    dr, dc = step(horizontal)

    def occupied(r, c):
        return 0 <= r < SIZE and 0 <= c < SIZE and (squares[r * SIZE + c] != EMPTY or r * SIZE + c in placed)

    r, c = row, col
    while occupied(r - dr, c - dc):
        r, c = r - dr, c - dc
    cells = []
    while occupied(r, c):
        cells.append(r * SIZE + c)
        r, c = r + dr, c + dc
    return cells


def cross_parts(squares, row: int, col: int, horizontal: bool) -> tuple[tuple, tuple]:
    """Board tiles just before and just after the empty square (row, col), across a play laid along
    ``horizontal``: the rest of the cross-word a tile there would form."""
    dr, dc = step(not horizontal)
    before, after = [], []
    r, c = row - dr, col - dc
    while 0 <= r and 0 <= c and squares[r * SIZE + c] != EMPTY:
        before.append(squares[r * SIZE + c])
        r, c = r - dr, c - dc
    r, c = row + dr, col + dc
    while r < SIZE and c < SIZE and squares[r * SIZE + c] != EMPTY:
        after.append(squares[r * SIZE + c])
        r, c = r + dr, c + dc
    return tuple(reversed(before)), tuple(after)


def word_score(cells, squares, placed, values) -> int:
    """Score of one word: ``cells`` its squares, ``placed`` the tiles new this round ({index: tile})."""
    total, multiplier = 0, 1
    for i in cells:
        if i in placed:
            total += values[placed[i]] * LETTER_MULTIPLIER[i]
            multiplier *= WORD_MULTIPLIER[i]
        else:
            total += values[squares[i]]
    return total * multiplier


def formed_words(squares, placed, horizontal: bool) -> list[list[int]]:
    """The words a placement forms, main word first, then cross-words in board order (as lists of
    squares).  A run of a single tile is not a word."""
    first = min(placed)
    row, col = divmod(first, SIZE)
    words = [run(squares, row, col, horizontal, placed)]
    for i in sorted(placed):
        cells = run(squares, i // SIZE, i % SIZE, not horizontal, placed)
        if len(cells) > 1:
            words.append(cells)
    return [cells for cells in words if len(cells) > 1]


def score_words(words, squares, placed, tileset, rules) -> int:
    score = sum(word_score(cells, squares, placed, tileset.values) for cells in words)
    if len(placed) == rules.rack_size:
        score += rules.bingo_bonus
    return score
