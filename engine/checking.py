"""Checking a written play, in stages, each failing with a precise reason:

1. the word itself: letters only (``bad_word``);
2. placement: on the board, written letters agree with the board's tiles, at least one new tile, the
   whole word written (``does_not_fit``); on the first move it covers the centre (``not_centre``),
   later it touches a tile (``not_connected``);
3. the new tiles are on the rack, a lowercase letter taking a blank, and no more of them than the rules'
   ``max_placed`` (``not_in_rack``);
4. every word formed is in the lexicon; all invalid ones are reported (``invalid_word``);
5. the score.

The direction of a first move is not checked here: a first move must be horizontal only for the tops
(``rules.first_move_horizontal``); how a vertical slip is paid is the judge's decision.
"""
from __future__ import annotations

from collections import Counter

from .lane import AREA, lanes
from .layout import CENTRE, SIZE
from .play import Play
from .scoring import formed_words, score_words
from .tiles import BLANK, BLANK_CHAR, LETTER_MASK, decode, decode_word, encode, is_letter, letter_code


class PlayError(Exception):
    def __init__(self, reason: str, message: str, invalid_words=None, missing=None):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.invalid_words = list(invalid_words or [])
        # not_in_rack: the tiles the rack lacks, as stored characters (``?`` a blank).
        self.missing = list(missing or [])


def _shown(stored: str, tileset) -> str:
    """Stored tiles by their labels (Spanish ``Ξ`` is RR), as players read them."""
    return tileset.show(stored) if tileset is not None else stored


def _placement(view, span, word: str, tileset=None) -> dict:
    """{square: tile} of the new tiles (squares of the view), or PlayError."""
    if span is None:
        raise PlayError("does_not_fit", f"{_shown(word, tileset)} does not fit on the board from there")
    first, end = span.start, span.stop
    if (first % SIZE and view[first - 1]) or (end % SIZE and view[end]):
        raise PlayError(
            "does_not_fit", f"{_shown(word, tileset)} is not the whole word: the board has a tile just before or after it"
        )
    placed = {}
    for i, ch in zip(span, word, strict=True):
        on_board = view[i]
        if not on_board:
            placed[i] = encode(ch)
        elif on_board & LETTER_MASK != letter_code(ch):
            raise PlayError(
                "does_not_fit", f"{_shown(word, tileset)}: the board has {_shown(decode(on_board & LETTER_MASK), tileset)} where "
                f"{_shown(ch.upper(), tileset)} is written"
            )
    if not placed:
        raise PlayError("does_not_fit", f"{_shown(word, tileset)} places no new tile")
    return placed


def _connection(board, view, lane, placed: dict, span) -> None:
    if board.is_empty():
        if lane.index(*CENTRE) not in placed:
            raise PlayError("not_centre", "the first move must cover the centre square")
        return
    touching = len(span) > len(placed) or any(
        (i % SIZE and view[i - 1]) or ((i + 1) % SIZE and view[i + 1])
        or (i >= SIZE and view[i - SIZE]) or (i + SIZE < AREA and view[i + SIZE])
        for i in placed
    )
    if not touching:
        raise PlayError("not_connected", "the play does not touch any tile on the board")


def _rack(placed: dict, rack: str, tileset) -> None:
    needed = Counter(BLANK if t & BLANK else t for t in placed.values())
    have = Counter(encode(ch) for ch in rack.upper() if ch == BLANK_CHAR or is_letter(ch))
    missing = [t for t, n in needed.items() if have[t] < n]
    if missing:
        # Named by their labels (CH, not its storage character).
        named = ", ".join("a blank" if t == BLANK else tileset.label(t) for t in sorted(missing))
        raise PlayError("not_in_rack", f"the rack {tileset.show(rack)} does not hold the tiles placed ({named})",
                        missing=[BLANK_CHAR if t == BLANK else decode(t) for t in sorted(missing)])


def check_play(board, rack: str, word: str, row: int, col: int, horizontal: bool, lexicon, tileset, rules) -> Play:
    """The play ``word`` written from (row, col) in the given direction, scored; or PlayError."""
    if not word or not all(is_letter(ch) for ch in word):
        raise PlayError("bad_word", f"{word!r} is not a word: letters only")
    lane = lanes(horizontal)
    view = board.view(horizontal)
    span = lane.span(row, col, len(word))
    placed = _placement(view, span, word, tileset)
    _connection(board, view, lane, placed, span)
    _rack(placed, rack, tileset)
    if len(placed) > rules.max_placed:
        # 7 sur 8: the eighth tile of the rack is not the play's to place, as a tile the rack lacks.
        raise PlayError("not_in_rack", f"at most {rules.max_placed} tiles may be placed in this game "
                        f"({len(placed)} placed)")

    words = formed_words(view, placed)
    if len(span) < 2:
        words.insert(0, list(span))
    spelled_tiles = [[placed.get(i) or view[i] for i in cells] for cells in words]
    spelled = [decode_word(tiles) for tiles in spelled_tiles]
    invalid = [
        text for text, tiles in zip(spelled, spelled_tiles, strict=True) if len(tiles) < 2 or not lexicon.spells(tiles)
    ]
    if invalid:
        raise PlayError("invalid_word", f"not valid: {', '.join(tileset.show(w) for w in invalid)}",
                        invalid_words=invalid)

    score = score_words(words, view, placed, lane, tileset, rules)
    tiles = tuple((*lane.square(i), decode(t & LETTER_MASK), bool(t & BLANK)) for i, t in sorted(placed.items()))
    return Play(spelled[0], row, col, horizontal, score, tiles, tuple(spelled))
