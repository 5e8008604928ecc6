"""A play: the tiles a rack puts on the board, its main word, the words it forms and its score."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Play:
    word: str
    row: int
    col: int
    horizontal: bool
    score: int
    tiles: tuple  # ((row, col, letter, is_blank), ...) the tiles placed, in word order
    words: tuple  # every word formed: the main word first, then cross-words in board order
