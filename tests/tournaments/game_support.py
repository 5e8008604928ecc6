"""Helpers for the whole-game tests (services and HTTP): computed from the engine, not from the service."""

from __future__ import annotations

from engine.checking import PlayError, check_play
from engine.notation import format_ref


def misplaced_ref(board, rack, play, lexicon, tileset, rules) -> str:
    """A reference naming no legal play of the word in either direction, away from the play's square
    (so only the penalty rule can pay a slip written there)."""
    for row in range(15):
        for col in range(15):
            if (row, col) == (play.row, play.col):
                continue
            legal = False
            for horizontal in (True, False):
                try:
                    check_play(board, rack, play.word, row, col, horizontal, lexicon, tileset, rules)
                    legal = True
                except PlayError:
                    pass
            if not legal:
                return format_ref(row, col, True)
    raise AssertionError("every square holds the word")
