"""Tiles and tile sets.

Inside the engine a tile is a small int: the letter's code 1..26 (``A``..``Z``), with the ``BLANK`` bit set
for a blank.  A blank still on a rack is ``BLANK`` alone; a blank on the board standing for E is
``BLANK | code('E')``.  ``EMPTY`` (0) is an empty square.  Strings appear only at the edges: ``A``-``Z`` a
tile, ``a``-``z`` a blank standing for that letter, ``?`` an unassigned blank, ``.`` an empty square.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

EMPTY = 0
BLANK = 32
LETTER_MASK = 31
ALPHABET_SIZE = 27  # codes 1..26; index 0 unused so a code indexes tables directly

BLANK_CHAR = "?"
EMPTY_CHAR = "."


def encode(ch: str) -> int:
    """Encode one edge character: ``A``-``Z`` a tile, ``a``-``z`` a blank as that letter, ``?`` a blank."""
    if ch == BLANK_CHAR:
        return BLANK
    if ch == EMPTY_CHAR:
        return EMPTY
    o = ord(ch)
    if 65 <= o <= 90:
        return o - 64
    if 97 <= o <= 122:
        return (o - 96) | BLANK
    raise ValueError(f"not a tile: {ch!r}")


def decode(tile: int) -> str:
    if tile == EMPTY:
        return EMPTY_CHAR
    if tile == BLANK:
        return BLANK_CHAR
    ch = chr(64 + (tile & LETTER_MASK))
    return ch.lower() if tile & BLANK else ch


_CHARS = tuple(decode(t) for t in range(2 * BLANK))


def decode_word(tiles) -> str:
    return "".join([_CHARS[t] for t in tiles])


_LETTER_CODES = {chr(64 + c): c for c in range(1, ALPHABET_SIZE)} | {chr(96 + c): c for c in range(1, ALPHABET_SIZE)}


def letter_code(ch: str) -> int:
    """Code of a letter regardless of case (``e`` and ``E`` both give 5)."""
    code = _LETTER_CODES.get(ch)
    return code if code is not None else encode(ch.upper())


def is_letter(ch: str) -> bool:
    return len(ch) == 1 and ("A" <= ch <= "Z" or "a" <= ch <= "z")


@dataclass(frozen=True)
class Letter:
    letter: str
    count: int
    value: int
    vowel: bool
    # Some tiles (Y, the blank) count as vowel or consonant, whichever makes a rack valid (rules §1).
    consonant: bool = True


_KINDS = {"yes": (True, False), "no": (False, True), "either": (True, True)}


class TileSet:
    """A language's tiles: letters with counts, values and vowel/consonant kind, plus blanks."""

    def __init__(self, name: str, letters, blanks: int, blank_value: int = 0):
        self.name = name
        self.letters = tuple(letters)
        self.blanks = blanks
        self.blank_value = blank_value
        self._by_char = {letter.letter: letter for letter in self.letters}
        # Score of a tile by its code; a blank (any code with the BLANK bit) scores blank_value.
        self.values = [0] * (2 * BLANK)
        for letter in self.letters:
            self.values[encode(letter.letter)] = letter.value
        for code in range(BLANK, 2 * BLANK):
            self.values[code] = blank_value
        self._blank = Letter(BLANK_CHAR, blanks, blank_value, True, True)
        self.codes = frozenset(encode(letter.letter) for letter in self.letters)

    def __repr__(self) -> str:
        return f"TileSet({self.name!r}, {sum(x.count for x in self.letters) + self.blanks} tiles)"

    def _letter(self, ch: str) -> Letter:
        if ch == BLANK_CHAR or (len(ch) == 1 and ch.islower()):
            return self._blank
        return self._by_char[ch]

    def has_letter(self, ch: str) -> bool:
        return ch.upper() in self._by_char

    def value(self, ch: str) -> int:
        """Points of a tile: 0 (the blank's value) for ``?`` or a lowercase letter."""
        return self._letter(ch).value

    def is_vowel(self, ch: str) -> bool:
        return self._letter(ch).vowel

    def is_consonant(self, ch: str) -> bool:
        return self._letter(ch).consonant

    def full_bag(self) -> list[str]:
        bag = [letter.letter for letter in self.letters for _ in range(letter.count)]
        return bag + [BLANK_CHAR] * self.blanks


def parse_tileset(name: str, text: str) -> TileSet:
    letters, blanks, blank_value = [], 0, 0
    for row in csv.DictReader(text.splitlines()):
        ch, count, value = row["letter"].strip(), int(row["count"]), int(row["value"])
        kind = row["vowel"].strip().lower()
        if kind not in _KINDS:
            raise ValueError(f"tile set {name}: vowel column must be yes/no/either, got {kind!r}")
        if ch == BLANK_CHAR:
            blanks, blank_value = count, value
            continue
        if len(ch) != 1 or not "A" <= ch <= "Z":
            raise ValueError(f"tile set {name}: bad letter {ch!r}")
        vowel, consonant = _KINDS[kind]
        letters.append(Letter(ch, count, value, vowel, consonant))
    return TileSet(name, letters, blanks, blank_value)


_cache: dict[str, TileSet] = {}


def load_tileset(name: str) -> TileSet:
    """Load a built-in tile set (``english``, ``french``) from ``engine/data/tilesets/<name>.csv``."""
    if name not in _cache:
        path = resources.files("engine") / "data" / "tilesets" / f"{name}.csv"
        if not path.is_file():
            raise ValueError(f"unknown tile set: {name!r}")
        _cache[name] = parse_tileset(name, path.read_text(encoding="utf-8"))
    return _cache[name]
