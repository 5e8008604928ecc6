"""Grid references and slip words: the text a player writes, parsed and printed.

Two labellings exist:

- ``rows-letters`` (default, the booklet's and the federation's): rows ``A``-``O`` top to bottom,
  columns ``1``-``15`` left to right.  ``H4`` (letter first) is horizontal, row H from column 4
  rightwards; ``4H`` (number first) is vertical, column 4 from row H downwards.
- ``rows-numbers`` (English/GCG): rows ``1``-``15``, columns ``A``-``O``.  ``8H`` (number first) is
  horizontal, row 8 from column H; ``H8`` (letter first) is vertical, column H from row 8 down.

In both, the row's label written first means horizontal.  Input is lenient about case and spaces
(``h 4``, `` 4h ``); output is always canonical.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .layout import SIZE
from .refusals import refusal_message
from .tiles import is_letter

# A slip's word written with labels, brackets or blanks' lowercase labels (``[ch]``) is read as tiles: it may
# take up to this many characters a tile (and never more than that in all, before reading it).
LABEL_CHARS_MAX = 4

LABELLINGS = ("rows-letters", "rows-numbers")

_LETTER_FIRST = re.compile(r"([A-Z])([0-9]+)")
_NUMBER_FIRST = re.compile(r"([0-9]+)([A-Z])")
_ANY_LETTERS = re.compile(r"[A-Z]+")
_ANY_DIGITS = re.compile(r"[0-9]+")


class NotationError(ValueError):
    """Text that is not a valid reference or slip word; ``code`` says which way it is wrong."""

    def __init__(self, code: str, **params):
        self.code = code
        self.message = refusal_message(code, params)  # its English text, from engine/refusals.py
        super().__init__(self.message)
        # What the message names (the text at fault, the bound, ``why`` it is wrong), for a page that says
        # the refusal in its own language.
        self.params = params


class RefError(NotationError):
    """codes: ``empty_ref``, ``bad_ref`` (malformed text), ``off_board`` (well formed, not on the board)."""


class WordError(NotationError):
    """code: ``bad_word`` (empty, too long, or a character that is not a letter of the tile set)."""


@dataclass(frozen=True)
class Ref:
    """The square of a word's first letter (0-based) and its direction."""

    row: int
    col: int
    horizontal: bool

    def flipped(self) -> Ref:
        """The same square in the other direction (what a reversed reference names)."""
        return Ref(self.row, self.col, not self.horizontal)


def _check_labelling(labelling: str) -> None:
    if labelling not in LABELLINGS:
        raise ValueError(f"unknown labelling {labelling!r}; known: {', '.join(LABELLINGS)}")


def _letter_label(index: int) -> str:
    return chr(ord("A") + index)


def parse_ref(text: str | None, labelling: str = "rows-letters") -> Ref:
    """Parse a grid reference; raise RefError(code, **params) when it names no square."""
    _check_labelling(labelling)
    compact = "".join((text or "").split()).upper()
    if not compact:
        raise RefError("empty_ref", ref="")
    letter_first = _LETTER_FIRST.fullmatch(compact)
    number_first = _NUMBER_FIRST.fullmatch(compact)
    if letter_first:
        letter, number = letter_first.group(1), letter_first.group(2)
    elif number_first:
        number, letter = number_first.group(1), number_first.group(2)
    else:
        raise RefError("bad_ref", ref=compact, why=_why_malformed(compact))
    letter_index = ord(letter) - ord("A")
    number_index = int(number) - 1
    if not (0 <= letter_index < SIZE):
        raise RefError("off_board", ref=compact, why="letter", last=_letter_label(SIZE - 1))
    if not (0 <= number_index < SIZE):
        raise RefError("off_board", ref=compact, why="number", last=SIZE)
    if labelling == "rows-letters":
        return Ref(row=letter_index, col=number_index, horizontal=bool(letter_first))
    return Ref(row=number_index, col=letter_index, horizontal=bool(number_first))


def _why_malformed(compact: str) -> str:
    """Why a reference is malformed: ``no_number``, ``no_letter`` or ``shape``."""
    if not _ANY_DIGITS.findall(compact):
        return "no_number"
    if not _ANY_LETTERS.findall(compact):
        return "no_letter"
    return "shape"


def format_ref(row: int, col: int, horizontal: bool, labelling: str = "rows-letters") -> str:
    """The canonical text of a reference (``H4``, ``4H``; ``8H``, ``H8`` in rows-numbers)."""
    _check_labelling(labelling)
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        raise ValueError(f"square ({row}, {col}) is off the board")
    if labelling == "rows-letters":
        row_label, col_label = _letter_label(row), str(col + 1)
    else:
        row_label, col_label = str(row + 1), _letter_label(col)
    return row_label + col_label if horizontal else col_label + row_label


def canonical_ref(text: str | None, labelling: str = "rows-letters", *, strict: bool = True) -> str:
    """A reference as written, in its canonical form (``h 4`` -> ``H4``); ``""`` when none was written.

    Text that names no square raises RefError, or with ``strict=False`` is given back as written (for
    showing a slip as it was handed in)."""
    if strict and (text is None or not text.strip()):
        return ""
    if not text:
        return ""
    try:
        ref = parse_ref(text, labelling)
    except RefError:
        if strict:
            raise
        return text
    return format_ref(ref.row, ref.col, ref.horizontal, labelling)


def labels(labelling: str = "rows-letters") -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(row labels top to bottom, column labels left to right) in this labelling."""
    _check_labelling(labelling)
    letters = tuple(_letter_label(index) for index in range(SIZE))
    numbers = tuple(str(index + 1) for index in range(SIZE))
    return (letters, numbers) if labelling == "rows-letters" else (numbers, letters)


def parse_word(text: str | None, tileset=None, max_length: int = SIZE) -> str:
    """The word of a slip: letters only, uppercase a tile, lowercase a blank standing for that letter.

    Surrounding spaces are ignored.  With a tile set, every letter must belong to it; on a set with tiles
    beyond A-Z a word written with its labels (``AÑO``, ``COL·LEGI``, ``CO[ch]E``) is taken as written, its
    length counted in tiles (the judging reads it: ``judging.read_word``).
    Raise WordError("bad_word", **params) otherwise.
    """
    word = unicodedata.normalize("NFC", (text or "").strip())
    if not word:
        raise WordError("bad_word", word="", why="empty")
    if tileset is not None and hasattr(tileset, "fold_typed"):
        word = tileset.fold_typed(word)  # the diacritics the set's tiles do not have (ARRÉCHO is ARRECHO)
    if tileset is not None and not getattr(tileset, "plain", True):
        try:  # its stored characters (a word read back, or one written with the set's one-key aliases)
            return _parse_letters(word, tileset, max_length)
        except WordError:  # else as written with the set's labels
            return _parse_word_labels(word, tileset, max_length)
    return _parse_letters(word, tileset, max_length)


def _parse_letters(word: str, tileset, max_length: int) -> str:
    if len(word) > max_length:
        raise WordError("bad_word", word=word, why="too_long", max=max_length)
    bad = sorted({ch for ch in word if not is_letter(ch)})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise WordError("bad_word", word=word, why="not_letters", letters=shown)
    if tileset is not None:
        # A lowercase letter with no tile is a blank standing for it, when the set's blank line allows it
        # (Romanian k, q, w, y); an uppercase one has no tile to play.
        playable = getattr(tileset, "playable", tileset.has_letter)
        foreign = sorted({ch.upper() for ch in word
                          if not (tileset.has_letter(ch) or (ch.islower() and playable(ch)))})
        if foreign:
            raise WordError("bad_word", word=word, why="no_tile", letters=", ".join(foreign))
    return word


def _parse_word_labels(word: str, tileset, max_length: int) -> str:
    """A slip's word on a set with tiles beyond A-Z (``AÑO``, ``COL·LEGI``, ``CO[ch]E``, ``COchE``), kept as
    written for the judging to read; its length counted in tiles, not characters (``[ch]`` is one tile)."""
    if len(word) > max_length * LABEL_CHARS_MAX:
        raise WordError("bad_word", word=word[:max_length * LABEL_CHARS_MAX], why="too_long", max=max_length)
    readings = tileset.spellings(word)
    if not readings:
        strange = sorted({ch for ch in word if ch not in "[]" and not tileset.is_label_char(ch)})
        raise WordError("bad_word", word=word, why="no_tile", letters=", ".join(strange) or word)
    if len(min(readings, key=len)) > max_length:
        raise WordError("bad_word", word=word, why="too_long", max=max_length)
    return word


def format_marked_word(word: str) -> str:
    """A slip's word as an arbitrator types it (the inverse of :func:`parse_marked_word`): each blank, a
    lowercase letter in the slip notation, written as ``?`` before its letter (``SAlAD`` -> ``SA?LAD``)."""
    return "".join(f"?{ch.upper()}" if ch.islower() else ch for ch in word or "")


def parse_marked_word(text: str | None, tileset=None, max_length: int = SIZE) -> str:
    """The word of a slip as an arbitrator types it from paper: a ``?`` before a letter marks that letter as
    a blank (``SA?LAD``: S, A, a blank standing for L, A, D), and case means nothing (``salad`` is SALAD,
    no blank: a Caps Lock left on or off never makes blanks).

    Returns the word in the slip notation of :func:`parse_word` (uppercase a tile, lowercase a blank).
    Raise WordError ``bad_blank_mark`` for a ``?`` not followed by a letter, else as parse_word does.
    """
    typed = (text or "").strip()
    if tileset is not None and not getattr(tileset, "plain", True):
        return _parse_marked_labels(typed, tileset, max_length)
    out: list[str] = []
    marked = False
    for ch in typed:
        if ch == "?":
            if marked:
                raise WordError("bad_blank_mark", word=typed)
            marked = True
            continue
        if marked and not is_letter(ch):
            raise WordError("bad_blank_mark", word=typed)
        out.append(ch.lower() if marked else ch.upper())
        marked = False
    if marked:
        raise WordError("bad_blank_mark", word=typed)
    return parse_word("".join(out), tileset, max_length)


def _parse_marked_labels(typed: str, tileset, max_length: int) -> str:
    """parse_marked_word for a set with tiles of several letters: a ``?`` marks the whole tile after it (the
    longest label there: ``CO?CHE`` is C, O, a blank as CH, E); returns the word in labels, a blank's label in
    lowercase (``COchE``), which the judging reads as tiles."""
    out: list[str] = []
    at = 0
    while at < len(typed):
        if typed[at] == "?":
            size = tileset.label_at(typed, at + 1)
            if not size:
                raise WordError("bad_blank_mark", word=typed)
            out.append(typed[at + 1:at + 1 + size].lower())
            at += 1 + size
            continue
        out.append(typed[at].upper())
        at += 1
    word = "".join(out)
    if not word:
        raise WordError("bad_word", word="", why="empty")
    readings = tileset.spellings(word)
    if not readings:
        strange = sorted({ch for ch in word if not tileset.is_label_char(ch)})
        raise WordError("bad_word", word=word, why="no_tile", letters=", ".join(strange) or word)
    if len(readings[0]) > max_length:
        raise WordError("bad_word", word=word, why="too_long", max=max_length)
    return word


def marked_word_text(word: str) -> str:
    """A slip's word written back as the arbitrator types it: ``SAlAD`` -> ``SA?LAD``."""
    return "".join(f"?{ch.upper()}" if ch.islower() else ch for ch in word or "")
