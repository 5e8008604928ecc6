"""Scoring a play already known to be valid (rules §6).

Letter premiums apply before word premiums, two word premiums multiply, premiums count only under tiles
placed this round, a blank scores 0 but still triggers word premiums; every word formed is scored (main
and cross-words, a shared letter counting in each); placing ``rules.bingo_tiles`` tiles (7) adds
``rules.bingo_bonus`` after the word multipliers, one more (8, in 7 et 8) ``rules.big_bingo_bonus``
(``Rules.bonus_for``).

Everything here reads a view of the board (``engine.lane``): the play runs along a lane, ``placed`` maps
the view's squares of the new tiles to their tile codes, and a word is a list of the view's squares.
"""
from __future__ import annotations

from .lane import AREA
from .layout import SIZE


def lane_run(view, i: int, placed) -> list[int]:
    """The run of tiles through square ``i`` along its lane: board tiles and the ``placed`` ones."""
    first = i - i % SIZE
    last = first + SIZE - 1
    start = i
    while start > first and (view[start - 1] or start - 1 in placed):
        start -= 1
    end = i
    while end < last and (view[end + 1] or end + 1 in placed):
        end += 1
    return list(range(start, end + 1))


def cross_run(view, i: int, placed) -> list[int]:
    """The run of tiles through square ``i`` across the lane (a cross-word's squares, in reading order)."""
    start = i
    while start >= SIZE and (view[start - SIZE] or start - SIZE in placed):
        start -= SIZE
    end = i
    while end + SIZE < AREA and (view[end + SIZE] or end + SIZE in placed):
        end += SIZE
    return list(range(start, end + 1, SIZE))


def cross_parts(view, i: int) -> tuple[tuple, tuple]:
    """Board tiles just before and just after the empty square ``i`` across its lane: the rest of the
    cross-word a tile there would form."""
    before, after = [], []
    j = i - SIZE
    while j >= 0 and view[j]:
        before.append(view[j])
        j -= SIZE
    j = i + SIZE
    while j < AREA and view[j]:
        after.append(view[j])
        j += SIZE
    return tuple(reversed(before)), tuple(after)


def word_score(cells, view, placed, values, lane) -> int:
    """Score of one word: ``cells`` its squares, ``placed`` the tiles new this round, ``lane`` the
    direction of the view (its premiums)."""
    letter_mult, word_mult = lane.letter_mult, lane.word_mult
    total, multiplier = 0, 1
    for i in cells:
        tile = placed.get(i)
        if tile is not None:
            total += values[tile] * letter_mult[i]
            multiplier *= word_mult[i]
        else:
            total += values[view[i]]
    return total * multiplier


def formed_words(view, placed) -> list[list[int]]:
    """The words a placement along one lane forms, main word first, then cross-words in board order.
    A run of a single tile is not a word."""
    words = [lane_run(view, min(placed), placed)]
    for i in sorted(placed):
        words.append(cross_run(view, i, placed))
    return [cells for cells in words if len(cells) > 1]


def score_words(words, view, placed, lane, tileset, rules) -> int:
    score = sum(word_score(cells, view, placed, tileset.values, lane) for cells in words)
    return score + rules.bonus_for(len(placed))
