"""Engine fixtures: tile set, rules, the TWL06 lexicon, and tiny in-memory lexicons for unit tests."""
from __future__ import annotations

import pytest

from engine.board import Board
from engine.lexicon import import_lexicon, load_lexicon
from engine.rules import rules_preset
from engine.tiles import load_tileset


@pytest.fixture(scope="session")
def english():
    return load_tileset("english")


@pytest.fixture(scope="session")
def fisf():
    return rules_preset("fisf")


@pytest.fixture(scope="session")
def twl06():
    # The default cache directory (ARBITER_LEXICON_CACHE or ~/.cache): compiled once per machine.
    return load_lexicon("TWL06")


@pytest.fixture
def tiny(tmp_path, english):
    """tiny("CAT", "AT", ...) -> a Lexicon of just those words, compiled into a throw-away cache."""
    counter = iter(range(1000))

    def make(*words):
        return import_lexicon(f"tiny{next(counter)}", words, english, cache_dir=tmp_path).lexicon

    return make


def _board_with(*placements) -> Board:
    rows = [list("." * 15) for _ in range(15)]
    for word, row, col, horizontal in placements:
        for k, ch in enumerate(word):
            r, c = (row, col + k) if horizontal else (row + k, col)
            assert rows[r][c] in (".", ch), f"{word} clashes at {r},{c}"
            rows[r][c] = ch
    return Board.from_rows("".join(r) for r in rows)


@pytest.fixture
def board_with():
    """board_with((word, row, col, horizontal), ...) -> a Board with those words on it (lowercase = blank)."""
    return _board_with
