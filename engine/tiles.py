"""Tiles and tile sets.

Codes
-----
Inside the engine a tile is a small int, its *code* 1..31, with the ``BLANK`` bit (32) set for a blank.  A
blank still on a rack is ``BLANK`` alone; a blank on the board standing for E is ``BLANK | code('E')``.
``EMPTY`` (0) is an empty square.  ``LETTER_MASK`` (31) takes the blank bit off.  The lexicon graph, the board,
the racks, the bag and both searches work on codes only.

Storage characters
------------------
Strings appear only at the edges, and everywhere in the product (racks, boards, slips in the database) a
string holds **one character per tile**: the tile's *storage character* in uppercase, its lowercase a blank
standing for that tile, ``?`` an unassigned blank, ``.`` an empty square.  The code of a storage character is
fixed for every tile set, so ``encode``/``decode`` need no tile set and the compiled search is unchanged:

- ``A``-``Z`` are codes 1-26, as they always were (English and French are byte-for-byte what they were);
- ``Δ Θ Λ Ξ Ψ`` (Greek capitals, lowercase ``δ θ λ ξ ψ`` for a blank) are codes 27-31 (``EXTRA_CHARS``), for
  tiles a set has beyond A-Z (Spanish Ñ, CH, LL, RR; German Ä, Ö, Ü).  They were chosen because they have a
  case pair, cannot be taken for a Latin letter on a debugging screen, and no set's label uses them.

A tile set may store a tile under a Latin letter it has no tile for (Catalan stores L·L as ``W``, NY as ``Y``,
QU as ``Q`` and Ç as ``K``: wolges' one-key aliases for those tiles), so a set has at most 31 tiles.

Labels
------
Each tile has a *label*, what players see and write: ``A``, ``Ñ``, ``CH``, ``L·L``.  Labels appear only on
screens, sheets and in what players type; :class:`TileSet` translates:

- ``tileset.label(code)`` / ``tileset.show(stored)``: label of a tile (a blank's label in lowercase: ``ch``);
- ``tileset.read_rack(typed)``: a typed rack (labels, ``[CH]`` bracketed aliases, one-key aliases such as
  Spanish ``1``/``2``/``3``) -> stored string; refused with :class:`TileReadingError` ``ambiguous_rack``
  showing every reading when it can be read two ways (``CH`` as one tile or C and H);
- ``tileset.spellings(word)``: every way a written word (``COCHE``, ``col·legi``, ``[ch]e``) reads as tiles,
  as stored strings (lowercase label or bracketed alias = blank); the judging keeps the one the lexicon has;
- ``tileset.spell(word)``: the tile set's own rule for a word list (``# words: longest``: a digraph's letters
  are always the digraph tile, as FISE plays CH, LL, RR), with the set's diacritics folded, or None.

Tile-set files
--------------
``engine/data/tilesets/<name>.csv``: ``#`` lines are metadata (``# source:`` the distribution's source,
``# blank:`` what a blank may stand for, ``# words:`` the segmentation rule, ``# fold:`` which diacritics are
dropped), then CSV with columns ``letter`` (the label), ``count``, ``value``, ``vowel`` (yes/no/either), and
optionally ``store`` (storage character; default the label when it is one letter A-Z) and ``aliases``
(space-separated keyboard aliases).  The row ``?`` gives the blanks.
"""
from __future__ import annotations

import csv
import unicodedata
from dataclasses import dataclass, field
from importlib import resources

from .refusals import refusal_message

EMPTY = 0
BLANK = 32
LETTER_MASK = 31
ALPHABET_SIZE = 32  # codes 1..31; index 0 unused so a code indexes tables directly
LATIN_SIZE = 27  # codes 1..26 are A..Z
EXTRA_CHARS = "ΔΘΛΞΨ"  # codes 27..31

BLANK_CHAR = "?"
EMPTY_CHAR = "."

_ENCODE: dict[str, int] = {BLANK_CHAR: BLANK, EMPTY_CHAR: EMPTY}
for _c in range(1, LATIN_SIZE):
    _ENCODE[chr(64 + _c)] = _c
    _ENCODE[chr(96 + _c)] = _c | BLANK
for _i, _ch in enumerate(EXTRA_CHARS):
    _ENCODE[_ch] = LATIN_SIZE + _i
    _ENCODE[_ch.lower()] = (LATIN_SIZE + _i) | BLANK
_DECODE = {code: ch for ch, code in _ENCODE.items()}
STORAGE_UPPER = frozenset(ch for ch, code in _ENCODE.items() if 0 < code < BLANK)


def encode(ch: str) -> int:
    """Encode one stored character: uppercase a tile, lowercase a blank as that tile, ``?`` a blank, ``.``
    empty."""
    code = _ENCODE.get(ch)
    if code is None:
        raise ValueError(f"not a tile: {ch!r}")
    return code


def decode(tile: int) -> str:
    ch = _DECODE.get(tile)
    if ch is None:
        raise ValueError(f"not a tile code: {tile!r}")
    return ch


_CHARS = tuple(_DECODE.get(t, "") for t in range(2 * BLANK))


def decode_word(tiles) -> str:
    return "".join([_CHARS[t] for t in tiles])


def letter_code(ch: str) -> int:
    """Code of a stored character regardless of case (``e`` and ``E`` both give 5)."""
    code = _ENCODE.get(ch)
    if code is None:
        raise ValueError(f"not a tile: {ch!r}")
    return code if code in (BLANK, EMPTY) else code & LETTER_MASK


def is_letter(ch: str) -> bool:
    """Whether ``ch`` is one stored character of a tile, either case."""
    code = _ENCODE.get(ch)
    return code is not None and code != BLANK and code != EMPTY


class TileReadingError(ValueError):
    """Typed text that reads as no tiles, or as several: codes ``no_tile`` and ``ambiguous_rack``."""

    def __init__(self, code: str, **params):
        self.code = code
        self.params = params
        self.message = refusal_message(code, params)
        super().__init__(self.message)


@dataclass(frozen=True)
class Letter:
    letter: str  # the storage character (uppercase)
    count: int
    value: int
    vowel: bool
    # Some tiles (Y, the blank) count as vowel or consonant, whichever makes a rack valid (rules §1).
    consonant: bool = True
    label: str = ""  # what players see and write; the storage character when empty
    aliases: tuple = field(default=())  # other things a player may type for it (``1``, ``[CH]``)

    @property
    def code(self) -> int:
        return encode(self.letter)

    @property
    def shown(self) -> str:
        return self.label or self.letter


_KINDS = {"yes": (True, False), "no": (False, True), "either": (True, True)}


def _upper(text: str) -> str:
    return unicodedata.normalize("NFC", text).upper()


class TileSet:
    """A language's tiles: each with its label, storage character, count, value and vowel/consonant kind,
    plus blanks and what a blank may stand for."""

    def __init__(self, name: str, letters, blanks: int, blank_value: int = 0, *, source: str = "",
                 blank_letters: str = "", fold: str = "all", words: str = "longest"):
        self.name = name
        self.letters = tuple(letters)
        self.blanks = blanks
        self.blank_value = blank_value
        self.source = source
        self.fold = fold
        self.words_rule = words
        self._by_char = {letter.letter: letter for letter in self.letters}
        self.stored_chars = frozenset(self._by_char)  # the uppercase storage characters of its tiles
        if len(self._by_char) != len(self.letters):
            raise ValueError(f"tile set {name}: two tiles share a storage character")
        # Score of a tile by its code; a blank (any code with the BLANK bit) scores blank_value.
        self.values = [0] * (2 * BLANK)
        for letter in self.letters:
            self.values[encode(letter.letter)] = letter.value
        for code in range(BLANK, 2 * BLANK):
            self.values[code] = blank_value
        self._blank = Letter(BLANK_CHAR, blanks, blank_value, True, True, BLANK_CHAR)
        self.codes = frozenset(encode(letter.letter) for letter in self.letters)
        # Codes a blank may stand for: the set's tiles, unless the file says otherwise.
        self.blank_codes = frozenset(encode(ch) for ch in blank_letters) if blank_letters else self.codes
        labels = {}
        for letter in self.letters:
            label = _upper(letter.shown)
            if label in labels:
                raise ValueError(f"tile set {name}: two tiles labelled {label!r}")
            labels[label] = letter.letter
        self._labels = labels  # uppercase label -> storage char
        # Plain: every label is its own one-letter storage character (English, French...): nothing to translate.
        self.plain = all(letter.shown == letter.letter for letter in self.letters)
        # What may be typed for a tile: its label, and its aliases (a bracketed alias is written with brackets).
        typed: dict[str, str] = dict(labels)
        for label, ch in labels.items():
            if len(label) > 1:
                typed[f"[{label}]"] = ch
        for letter in self.letters:
            for alias in letter.aliases:
                alias = _upper(alias)
                if typed.get(alias, letter.letter) != letter.letter:
                    raise ValueError(f"tile set {name}: {alias!r} names two tiles")
                typed[alias] = letter.letter
        self._typed = typed
        # Aliases of several characters that no label writes (Catalan L.L and ĿL for L·L): a slip's word
        # written with them reads as the tile (lowercase: a blank standing for it), as a rack does.
        self._written = dict(labels)
        for letter in self.letters:
            for alias in letter.aliases:
                if len(alias) > 1 and not alias.startswith("["):
                    self._written.setdefault(_upper(alias), letter.letter)
        self._label_chars = frozenset("".join(labels))
        self._longest_label = max(len(label) for label in labels)
        self._longest_written = max(len(w) for w in self._written)
        self._longest_typed = max(len(t) for t in typed)

    def __repr__(self) -> str:
        return f"TileSet({self.name!r}, {self.size} tiles)"

    @property
    def size(self) -> int:
        return sum(x.count for x in self.letters) + self.blanks

    def _letter(self, ch: str) -> Letter:
        if ch == BLANK_CHAR or (len(ch) == 1 and ch.islower()):
            return self._blank
        return self._by_char[ch]

    def has_letter(self, ch: str) -> bool:
        """Whether the stored character ``ch`` (either case) is a tile of this set."""
        return ch.upper() in self._by_char

    def playable(self, ch: str) -> bool:
        """Whether a word may hold the stored character ``ch`` (either case): a tile of this set, or a letter
        with no tile that a blank may stand for (the set's blank line; Romanian K, Q, W, Y)."""
        return self.has_letter(ch) or self._blank_letter(ch.upper())

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

    # -- labels ------------------------------------------------------------------------------------------

    def label(self, ch) -> str:
        """The label of a stored character or a code: ``Θ`` -> ``CH``, ``θ`` (a blank as CH) -> ``ch``,
        ``?`` -> ``?``."""
        if isinstance(ch, int):
            ch = decode(ch)
        if ch in (BLANK_CHAR, EMPTY_CHAR):
            return ch
        letter = self._by_char.get(ch.upper())
        shown = letter.shown if letter is not None else ch.upper()
        return shown.lower() if ch.islower() else shown

    def labels(self, stored: str) -> list[str]:
        """The label of each tile of a stored string."""
        return [self.label(ch) for ch in stored]

    def show(self, stored: str) -> str:
        """A stored string as players read it: labels joined (``COΘE`` -> ``COCHE``; a blank's label in
        lowercase).  For a plain set the string itself."""
        if self.plain:
            return stored
        return "".join(self.label(ch) for ch in stored)

    def typed(self, stored: str) -> str:
        """A stored rack as typed back unambiguously: a tile whose label has several characters in brackets
        (``[CH]AEIO``)."""
        out = []
        for ch in stored:
            label = self.label(ch)
            out.append(f"[{label}]" if len(label) > 1 else label)
        return "".join(out)

    # -- reading typed racks -----------------------------------------------------------------------------

    def rack_readings(self, text: str, limit: int = 16) -> list[str]:
        """Every way the typed ``text`` reads as tiles, as stored strings; at most ``limit`` of them.  Spaces
        are ignored; case is not (a rack has no assigned blanks).

        The reading rule (docs/rules.md, "Typing words and racks"): the text is read with the set's labels
        (``QU``, ``NY``, ``L·L``, ``CH``), a bracketed label or alias (``[NY]``) and ``?`` for a blank; an
        alias (Catalan ``Q``, ``Y``, ``W``, ``K``, ``L.L``; Spanish ``1``, ``2``, ``3``) counts only where the
        labels cannot read the text: of all readings, only those using the fewest aliases stand.  So
        ``QUATRES`` is QU A T R E S (Q U A T R E S would read ``Q`` as an alias where the label QU reads), and
        ``ANYSQUE`` is A NY S QU E.  Two readings that both use labels only (Spanish ``CH``: one tile, or C
        and H) remain two."""
        typed = self.fold_typed(_upper("".join((text or "").split())))
        n = len(typed)
        # best[at]: (fewest aliases reading typed[at:], its readings (at most ``limit``)); from the end.
        best: list[tuple[int, list[str]] | None] = [None] * (n + 1)
        best[n] = (0, [""])
        for at in range(n - 1, -1, -1):
            found: tuple[int, list[str]] | None = None
            pieces = [(1, BLANK_CHAR, 0)] if typed[at] == BLANK_CHAR else []
            if typed[at] != BLANK_CHAR:
                for size in range(min(self._longest_typed, n - at), 0, -1):
                    piece = typed[at:at + size]
                    ch = self._typed.get(piece)
                    if ch is not None:
                        pieces.append((size, ch, 0 if piece in self._labels or piece.startswith("[") else 1))
            for size, ch, alias in pieces:
                rest = best[at + size]
                if rest is None:
                    continue
                cost = rest[0] + alias
                heads = [ch + r for r in rest[1]]
                if found is None or cost < found[0]:
                    found = (cost, heads[:limit])
                elif cost == found[0]:
                    found = (cost, (found[1] + heads)[:limit])
            best[at] = found
        readings = best[0][1] if best[0] is not None else []
        return sorted(set(readings), key=lambda r: (len(r), r))

    def fold_typed(self, text: str) -> str:
        """The text with the diacritics the set drops (``# fold: all``) taken off the letters no label
        writes: Spanish É is E, while Ñ, a label, stays."""
        if self.fold != "all":
            return text
        return "".join(c if c.upper() in self._label_chars else _fold_char(c) for c in text)

    def read_rack(self, text: str) -> str:
        """The stored string of a typed rack; TileReadingError ``no_tile`` when it cannot be read,
        ``ambiguous_rack`` (with every reading) when it can be read more than one way."""
        readings = self.rack_readings(text)
        if not readings:
            raise TileReadingError("no_tile", text=(text or "").strip(), tileset=self.name)
        if len(readings) > 1:
            shown = " / ".join(" ".join(self.labels(r)) for r in readings)
            # The hint names a tile of several letters of this reading, in this set (Catalan [NY], Spanish [CH]).
            several = [label for r in readings for label in self.labels(r) if len(label) > 1]
            several += [letter.shown for letter in self.letters if len(letter.shown) > 1]
            example = f"[{several[0]}]" if several else "[?]"
            raise TileReadingError("ambiguous_rack", text=(text or "").strip(), readings=shown, example=example)
        return readings[0]

    # -- reading written words ---------------------------------------------------------------------------

    def spellings(self, word: str, limit: int = 64) -> list[str]:
        """Every way a word written on a slip reads as tiles of this set, as stored strings, longest tiles
        first (the greedy reading first).  A label in uppercase is a tile, in lowercase a blank standing for
        it; a bracketed label or alias (``[CH]``, ``[ch]``) is one tile; a storage character beyond A-Z
        (``Θ``, a word read back from the database) is its tile.  Empty when the word cannot be read."""
        text = self.fold_typed(unicodedata.normalize("NFC", (word or "").strip()))
        out: list[str] = []
        stack = [(0, "")]
        while stack and len(out) < limit:
            at, done = stack.pop()
            if at == len(text):
                out.append(done)
                continue
            if text[at] == "[":
                end = text.find("]", at)
                if end > at:
                    inner = text[at + 1:end]
                    ch = self._typed.get(inner.upper()) or self._labels.get(inner.upper())
                    if ch is not None:
                        stack.append((end + 1, done + (ch.lower() if inner.islower() else ch)))
                continue
            if text[at].upper() in EXTRA_CHARS and text[at].upper() in self.stored_chars:
                stack.append((at + 1, done + text[at]))
                continue
            # Push the shortest first so the longest (the greedy reading) is popped first.
            for size in range(1, min(self._longest_written, len(text) - at) + 1):
                piece = text[at:at + size]
                ch = self._written.get(piece.upper())
                if ch is None:
                    # A blank standing for a letter with no tile, when the set's blank line allows it
                    # (Romanian: k, q, w, y), written in lowercase like any blank.
                    if size == 1 and piece.islower() and self._blank_letter(piece.upper()):
                        stack.append((at + 1, done + piece))
                    continue
                if piece.isupper() or not any(c.isalpha() for c in piece):
                    stack.append((at + size, done + ch))
                elif piece.islower():
                    stack.append((at + size, done + ch.lower()))
        # Depth-first with the longest piece popped first gives the greedy reading first.
        seen, ordered = set(), []
        for s in out:
            if s not in seen:
                seen.add(s)
                ordered.append(s)
        return ordered

    def label_at(self, text: str, at: int) -> int:
        """The length of the longest label written at ``text[at:]`` (either case), 0 when none."""
        for size in range(min(self._longest_label, len(text) - at), 0, -1):
            if _upper(text[at:at + size]) in self._labels:
                return size
        return 0

    def is_label_char(self, ch: str) -> bool:
        """Whether ``ch`` (either case) is written in some label of the set."""
        return ch.upper() in self._label_chars

    def spell(self, word: str) -> str | None:
        """A word of a word list as stored tiles, by the set's rule: uppercase, every label matched longest
        first (CH is always the CH tile when the set has one), then the set's diacritics folded where no
        label matches (``á`` -> A; Spanish keeps Ñ, which is a label).  None when some letter has no tile
        and no blank may stand for it."""
        text = _upper(word.strip().translate(_LIGATURES))
        if self.fold == "all":
            text = "".join(c if c in self._label_chars else _fold_char(c) for c in text)
        out = []
        at = 0
        while at < len(text):
            for size in range(min(self._longest_label, len(text) - at), 0, -1):
                ch = self._labels.get(text[at:at + size])
                if ch is not None:
                    out.append(ch)
                    at += size
                    break
            else:
                # A letter with no tile that a blank may stand for (blank: line), stored as itself.
                ch = text[at]
                if not (ch in STORAGE_UPPER and ch not in self._by_char and self._blank_may(ch)):
                    return None
                out.append(ch)
                at += 1
        return "".join(out)

    def _blank_letter(self, ch: str) -> bool:
        # A letter A-Z with no tile of its own that a blank of this set may stand for.
        return "A" <= ch <= "Z" and ch not in self._by_char and self._blank_may(ch)

    def _blank_may(self, ch: str) -> bool:
        return self.blanks > 0 and encode(ch) in self.blank_codes


# Ligatures spelled out, as word lists write them (CŒUR is COEUR, EX ÆQUO is EX AEQUO); German ß is SS.
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "ß": "ss"})


def _fold_char(ch: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))


def parse_tileset(name: str, text: str) -> TileSet:
    meta: dict[str, str] = {}
    rows = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            if value:
                meta[key.strip().lower()] = (meta.get(key.strip().lower(), "") + " " + value.strip()).strip()
            continue
        if line.strip():
            rows.append(line)
    letters, blanks, blank_value = [], 0, 0
    for row in csv.DictReader(rows):
        label, count, value = unicodedata.normalize("NFC", row["letter"].strip()), int(row["count"]), int(row["value"])
        kind = row["vowel"].strip().lower()
        if kind not in _KINDS:
            raise ValueError(f"tile set {name}: vowel column must be yes/no/either, got {kind!r}")
        if label == BLANK_CHAR:
            blanks, blank_value = count, value
            continue
        store = (row.get("store") or "").strip() or label
        if store not in STORAGE_UPPER:
            raise ValueError(f"tile set {name}: storage character {store!r} of {label!r} must be A-Z or one of "
                             f"{EXTRA_CHARS}")
        if not label or label != label.upper():
            raise ValueError(f"tile set {name}: bad label {label!r}")
        aliases = tuple((row.get("aliases") or "").split())
        vowel, consonant = _KINDS[kind]
        letters.append(Letter(store, count, value, vowel, consonant, label if label != store else "", aliases))
    blank_meta = meta.get("blank", "tiles")
    blank_letters = ""
    if blank_meta != "tiles":
        stores = {_upper(letter.shown): letter.letter for letter in letters}
        blank_letters = "".join(stores.get(t, t) for t in blank_meta.split())
        bad = [ch for ch in blank_letters if ch not in STORAGE_UPPER]
        if bad:
            raise ValueError(f"tile set {name}: a blank cannot stand for {bad!r}")
    return TileSet(name, letters, blanks, blank_value, source=meta.get("source", ""), blank_letters=blank_letters,
                   fold=meta.get("fold", "all"), words=meta.get("words", "longest"))


_cache: dict[str, TileSet] = {}

TILESETS = ("english", "french", "spanish", "catalan", "romanian", "dutch", "german", "italian")


def load_tileset(name: str) -> TileSet:
    """Load a built-in tile set (``TILESETS``) from ``engine/data/tilesets/<name>.csv``."""
    if name not in _cache:
        path = resources.files("engine") / "data" / "tilesets" / f"{name}.csv"
        if not isinstance(name, str) or "/" in name or not path.is_file():
            raise ValueError(f"unknown tile set: {name!r}")
        _cache[name] = parse_tileset(name, path.read_text(encoding="utf-8"))
    return _cache[name]
