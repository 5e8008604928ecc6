"""Checking a written play, in stages, each failing with a precise reason:

1. the word itself: letters only (``bad_word``);
2. placement: on the board, written letters agree with the board's tiles, at least one new tile, the
   whole word written (``does_not_fit``); on the first move it covers the centre (``not_centre``),
   later it touches a tile (``not_connected``);
3. the new tiles are on the rack, a lowercase letter taking a blank (``not_in_rack``);
4. every word formed is in the lexicon; all invalid ones are reported (``invalid_word``);
5. the score.

The direction of a first move is not checked here: a first move must be horizontal only for the tops
(``rules.first_move_horizontal``); how a vertical slip is paid is the judge's decision.
"""
from __future__ import annotations

from collections import Counter

from .layout import CENTRE, SIZE
from .movegen import Play
from .scoring import formed_words, score_words, step
from .tiles import BLANK, BLANK_CHAR, EMPTY, decode, encode, is_letter


class PlayError(Exception):
    def __init__(self, reason: str, message: str, invalid_words=None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.invalid_words = list(invalid_words or [])


def _placement(squares, word: str, row: int, col: int, horizontal: bool) -> dict:
    """{square: tile} of the new tiles, or PlayError."""
    dr, dc = step(horizontal)
    last_row, last_col = row + dr * (len(word) - 1), col + dc * (len(word) - 1)
    if not (0 <= row < SIZE and 0 <= col < SIZE and last_row < SIZE and last_col < SIZE):
        raise PlayError("does_not_fit", f"{word} does not fit on the board from there")
    before = (row - dr, col - dc)
    after = (last_row + dr, last_col + dc)
    for r, c in (before, after):
        if 0 <= r < SIZE and 0 <= c < SIZE and squares[r * SIZE + c] != EMPTY:
            raise PlayError(
                "does_not_fit", f"{word} is not the whole word: the board has a tile just before or after it"
            )
    placed = {}
    for k, ch in enumerate(word):
        i = (row + dr * k) * SIZE + col + dc * k
        on_board = squares[i]
        if on_board == EMPTY:
            placed[i] = encode(ch)
        elif decode(on_board).upper() != ch.upper():
            raise PlayError(
                "does_not_fit", f"{word}: the board has {decode(on_board).upper()} where {ch.upper()} is written"
            )
    if not placed:
        raise PlayError("does_not_fit", f"{word} places no new tile")
    return placed


def _connection(board, squares, placed: dict, word_cells: list) -> None:
    if board.is_empty():
        if CENTRE[0] * SIZE + CENTRE[1] not in placed:
            raise PlayError("not_centre", "the first move must cover the centre square")
        return
    touching = len(word_cells) > len(placed) or any(
        0 <= r < SIZE and 0 <= c < SIZE and squares[r * SIZE + c] != EMPTY
        for i in placed
        for r, c in ((i // SIZE - 1, i % SIZE), (i // SIZE + 1, i % SIZE), (i // SIZE, i % SIZE - 1), (i // SIZE, i % SIZE + 1))
    )
    if not touching:
        raise PlayError("not_connected", "the play does not touch any tile on the board")


def _rack(placed: dict, rack: str) -> None:
    needed = Counter(BLANK_CHAR if t & BLANK else decode(t) for t in placed.values())
    have = Counter(rack.upper())
    missing = [ch for ch, n in needed.items() if have[ch] < n]
    if missing:
        named = ", ".join("a blank" if ch == BLANK_CHAR else ch for ch in sorted(missing))
        raise PlayError("not_in_rack", f"the rack {rack} does not hold the tiles placed ({named})")


def check_play(board, rack: str, word: str, row: int, col: int, horizontal: bool, lexicon, tileset, rules) -> Play:
    """The play ``word`` written from (row, col) in the given direction, scored; or PlayError."""
    if not word or not all(is_letter(ch) for ch in word):
        raise PlayError("bad_word", f"{word!r} is not a word: letters only")
    squares = board.squares
    placed = _placement(squares, word, row, col, horizontal)
    dr, dc = step(horizontal)
    main_cells = [(row + dr * k) * SIZE + col + dc * k for k in range(len(word))]
    _connection(board, squares, placed, main_cells)
    _rack(placed, rack)

    words = formed_words(squares, placed, horizontal)
    if len(main_cells) < 2:
        words.insert(0, main_cells)
    spelled = ["".join(decode(placed.get(i, squares[i])) for i in cells) for cells in words]
    invalid = [w for w in spelled if len(w) < 2 or w not in lexicon]
    if invalid:
        raise PlayError("invalid_word", f"not valid: {', '.join(invalid)}", invalid_words=invalid)

    score = score_words(words, squares, placed, tileset, rules)
    tiles = tuple((i // SIZE, i % SIZE, decode(t).upper(), bool(t & BLANK)) for i, t in sorted(placed.items()))
    return Play(spelled[0], row, col, horizontal, score, tiles, tuple(spelled))
