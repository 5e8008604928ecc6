"""The board's size and premium squares, as data.

``STANDARD`` is the classic 15x15 layout: ``W`` triple word, ``w`` double word, ``L`` triple letter,
``l`` double letter, ``.`` plain.  The centre (H8) is a double-word square.
"""
from __future__ import annotations

SIZE = 15
CENTRE = (7, 7)

STANDARD = (
    "W..l...W...l..W",
    ".w...L...L...w.",
    "..w...l.l...w..",
    "l..w...l...w..l",
    "....w.....w....",
    ".L...L...L...L.",
    "..l...l.l...l..",
    "W..l...w...l..W",
    "..l...l.l...l..",
    ".L...L...L...L.",
    "....w.....w....",
    "l..w...l...w..l",
    "..w...l.l...w..",
    ".w...L...L...w.",
    "W..l...W...l..W",
)

_PREMIUMS = {".": (1, 1), "l": (2, 1), "L": (3, 1), "w": (1, 2), "W": (1, 3)}


def _multipliers(grid):
    letter, word = [], []
    for row in grid:
        for ch in row:
            lm, wm = _PREMIUMS[ch]
            letter.append(lm)
            word.append(wm)
    return tuple(letter), tuple(word)


# Indexed by square (row * SIZE + col).
LETTER_MULTIPLIER, WORD_MULTIPLIER = _multipliers(STANDARD)
