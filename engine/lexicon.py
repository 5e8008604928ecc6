"""Lexicons: a word list compiled into a minimal DAWG (directed acyclic word graph), cached on disk.

The graph is kept as flat arrays that the move generator walks directly:

* ``masks[node]``: bit 0 set when the path to ``node`` spells a word; bit ``c`` set when an arc labelled
  with tile code ``c`` (1..31, see ``engine.tiles``) leaves ``node``.

Words are stored strings, one character per tile (``engine.tiles``): a Spanish list holds COCHE as ``COΘE``,
the CH tile being ``Θ``.  ``import_lexicon`` spells each entry of a word list with its tile set's rule and
rejects the entries it cannot spell.
* ``arcs[node << 5 | c]``: the node that arc leads to.
* ``lengths[node]``: bit ``j`` set when some word ends exactly ``j`` letters after ``node``.

Node 0 is the root.  A second graph of the same shape holds every word's letters in alphabetical order
(``TEA``, ``ATE`` and ``ETA`` all give ``AET``): it says at once whether some word uses exactly a given set
of tiles (``has_anagram``), which lets the move generator skip windows where no bingo can be.

The compiled form is written with ``marshal`` to ``<cache_dir>/<sha256>.dawg`` (the
SHA-256 of the normalised word list), and ``<cache_dir>/<name>.name`` records which list a name means,
so an imported lexicon can be loaded again by name.
"""
from __future__ import annotations

import hashlib
import lzma
import marshal
import os
import re
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .tiles import ALPHABET_SIZE, LETTER_MASK, decode, is_letter, letter_code

_FORMAT = 2
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MIN_WORD_LENGTH = 2

# Built-in lexicons: name -> word-list file in engine/data/wordlists/ (xz-compressed; where they come from:
# the README.md beside them).
BUILTINS = {"TWL06": "twl06.txt.xz", "SOWPODS": "sowpods.txt.xz"}


class Lexicon:
    __slots__ = ("name", "sha256", "masks", "arcs", "lengths", "_anagrams", "_count", "__weakref__")

    def __init__(self, name: str, sha256: str, count: int, graph: tuple, anagrams: tuple):
        self.name = name
        self.sha256 = sha256
        self.masks, self.arcs, self.lengths = graph
        self._anagrams = anagrams
        self._count = count

    def __repr__(self) -> str:
        return f"Lexicon({self.name!r}, {self._count} words)"

    def __len__(self) -> int:
        return self._count

    def __contains__(self, word) -> bool:
        if not isinstance(word, str) or not word or not all(is_letter(ch) for ch in word):
            return False
        node = self.walk(letter_code(ch) for ch in word)
        return node is not None and self.masks[node] & 1 == 1

    def spells(self, tiles) -> bool:
        """Whether these tile codes spell a word (a blank reads as the letter it stands for)."""
        node = self.walk(t & LETTER_MASK for t in tiles)
        return node is not None and self.masks[node] & 1 == 1

    def walk(self, codes, node: int = 0) -> int | None:
        """The node reached from ``node`` by the letter codes ``codes``, or None."""
        arcs = self.arcs
        for c in codes:
            node = arcs.get(node << 5 | c)
            if node is None:
                return None
        return node

    def has_anagram(self, counts) -> bool:
        """Whether some word is made of exactly these tiles: ``counts`` by letter code, index 0 the blanks."""
        masks, arcs, lengths = self._anagrams
        counts = list(counts)
        counts += [0] * (ALPHABET_SIZE - len(counts))  # a caller may count only the codes A-Z (27 entries)

        def search(node, lowest, remaining):
            # Keys are sorted: the next letter is at least ``lowest`` and at most the smallest real tile
            # left (a letter skipped now could never be placed); letters below that take a blank.
            if not remaining:
                return masks[node] & 1
            real = lowest
            while real < ALPHABET_SIZE and not counts[real]:
                real += 1
            top = real if real < ALPHABET_SIZE else ALPHABET_SIZE - 1
            first = lowest if counts[0] else top
            remaining -= 1
            for c in range(first, top + 1):
                if not masks[node] >> c & 1:
                    continue
                child = arcs[node << 5 | c]
                if not lengths[child] >> remaining & 1:
                    continue
                use = c if c == real else 0
                counts[use] -= 1
                found = search(child, c, remaining)
                counts[use] += 1
                if found:
                    return True
            return False

        return bool(search(0, 1, sum(counts)))

    def words(self):
        """Every word, in alphabetical order."""
        masks, arcs = self.masks, self.arcs
        stack = [(0, "")]
        while stack:
            node, prefix = stack.pop()
            if masks[node] & 1 and prefix:
                yield prefix
            bits = masks[node] >> 1
            # Push in reverse so the smallest letter is popped first.
            for c in range(ALPHABET_SIZE - 1, 0, -1):
                if bits >> (c - 1) & 1:
                    stack.append((arcs[node << 5 | c], prefix + decode(c)))


@dataclass
class ImportResult:
    lexicon: Lexicon
    rejected: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# Word lists


# Ligatures spelled out, as French word lists write them (CŒUR is COEUR, EX ÆQUO is EX AEQUO).
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE"})


def _fold(word: str) -> str:
    """Uppercase, accents removed and ligatures spelled out (``été`` -> ``ETE``, ``cœur`` -> ``COEUR``), as
    word lists for the game are written."""
    if word.isascii():
        return word.strip().upper()
    decomposed = unicodedata.normalize("NFD", word.strip().translate(_LIGATURES))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).upper()


def normalise(words: Iterable[str], accept=None) -> tuple[list[str], list[str]]:
    """(sorted unique accepted words, rejected raw entries).  ``accept(word)`` says if a word is playable."""
    accepted, rejected = set(), []
    for raw in words:
        word = _fold(raw)
        if not word:
            continue
        playable = word.isascii() and word.isalpha() and len(word) >= MIN_WORD_LENGTH
        if playable and (accept is None or accept(word)):
            accepted.add(word)
        else:
            rejected.append(raw.strip())
    return sorted(accepted), rejected


def word_list_sha256(words: list[str]) -> str:
    return hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()  # ASCII lists: as they always were


# --------------------------------------------------------------------------------------------------
# Compilation (Daciuk et al., incremental construction of a minimal automaton from sorted input)


def compile_words(words: list[str]) -> tuple[list, dict, list]:
    """Compile sorted unique words into (masks, arcs, lengths) with the root as node 0."""
    final = [False]
    children: list[dict] = [{}]
    register: dict = {}

    def minimise(path, down_to):
        # Replace the nodes of the previous word below depth ``down_to`` by equivalent registered ones.
        while len(path) > down_to:
            parent, c, child = path.pop()
            key = (final[child], tuple(children[child].items()))
            twin = register.get(key)
            if twin is None:
                register[key] = child
            else:
                children[parent][c] = twin
                children[child] = None  # discarded

    path: list = []  # (parent, letter code, child) along the previous word
    previous = ""
    for word in words:
        common = 0
        limit = min(len(word), len(previous))
        while common < limit and word[common] == previous[common]:
            common += 1
        minimise(path, common)
        node = path[-1][2] if path else 0
        for ch in word[common:]:
            child = len(final)
            final.append(False)
            children.append({})
            c = letter_code(ch)
            children[node][c] = child
            path.append((node, c, child))
            node = child
        final[node] = True
        previous = word
    minimise(path, 0)

    # Renumber the reachable nodes compactly, root first.
    number = {0: 0}
    order = [0]
    for node in order:
        for child in children[node].values():
            if child not in number:
                number[child] = len(order)
                order.append(child)
    masks, arcs = [], {}
    for new, node in enumerate(order):
        mask = 1 if final[node] else 0
        for c, child in children[node].items():
            mask |= 1 << c
            arcs[new << 5 | c] = number[child]
        masks.append(mask)
    return masks, arcs, _suffix_lengths(masks, arcs)


def compile_lexicon(words: list[str]) -> tuple:
    """(word graph, anagram-key graph) of sorted unique words."""
    keys = sorted({"".join(sorted(word)) for word in words})
    return compile_words(words), compile_words(keys)


def _suffix_lengths(masks, arcs) -> list:
    """lengths[node]: bit j set when a word ends j letters after node (children before parents)."""
    lengths = [None] * len(masks)
    stack = [(0, False)]
    while stack:
        node, expanded = stack.pop()
        if lengths[node] is not None:
            continue
        kids = [arcs[node << 5 | c] for c in range(1, ALPHABET_SIZE) if masks[node] >> c & 1]
        if expanded:
            bits = masks[node] & 1
            for kid in kids:
                bits |= lengths[kid] << 1
            lengths[node] = bits
        else:
            stack.append((node, True))
            stack.extend((kid, False) for kid in kids if lengths[kid] is None)
    return lengths


# --------------------------------------------------------------------------------------------------
# Cache


def cache_directory(cache_dir=None) -> Path:
    if cache_dir is None:
        cache_dir = os.environ.get("ARBITER_LEXICON_CACHE") or Path.home() / ".cache" / "arbiter" / "lexicons"
    path = Path(cache_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _atomic_write(path: Path, data: bytes) -> None:
    # Write then rename, so a concurrent reader never sees half a file.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the cache is shared by the service's processes
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _read_compiled(directory: Path, sha: str):
    """(word count, graph, anagram graph) from the cache, or None."""
    try:
        data = (directory / f"{sha}.dawg").read_bytes()
        fmt, stored_sha, count, graph, anagrams = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if fmt != _FORMAT or stored_sha != sha:
        return None
    return count, graph, anagrams


def _build(name: str, words: list[str], directory: Path, source: str = "") -> Lexicon:
    sha = word_list_sha256(words)
    compiled = _read_compiled(directory, sha)
    if compiled is None:
        compiled = (len(words), *compile_lexicon(words))
        _atomic_write(directory / f"{sha}.dawg", marshal.dumps((_FORMAT, sha, *compiled)))
    _write_name(directory, name, sha, source)
    return Lexicon(name, sha, *compiled)


def _write_name(directory: Path, name: str, sha: str, source: str) -> None:
    # ``source`` is the SHA-256 of a built-in's raw file: when it is unchanged, loading skips normalising.
    _atomic_write(directory / f"{name}.name", f"{sha}\n{source}\n".encode("ascii"))


def _read_name(directory: Path, name: str) -> tuple[str, str]:
    try:
        lines = (directory / f"{name}.name").read_text(encoding="ascii").split("\n")
    except OSError:
        return "", ""
    return lines[0].strip(), (lines[1].strip() if len(lines) > 1 else "")


def builtin_file(name: str) -> bytes:
    """The compressed word-list file of a built-in lexicon, as shipped."""
    return (resources.files("engine") / "data" / "wordlists" / BUILTINS[name]).read_bytes()


def builtin_words(name: str) -> list[str]:
    """A built-in lexicon's words as its file lists them (one a line, not normalised)."""
    return lzma.decompress(builtin_file(name)).decode("utf-8").split()


def _load_builtin(name: str, directory: Path) -> Lexicon:
    packed = builtin_file(name)
    source = hashlib.sha256(packed).hexdigest()
    sha, known_source = _read_name(directory, name)
    if sha and known_source == source:
        compiled = _read_compiled(directory, sha)
        if compiled is not None:
            return Lexicon(name, sha, *compiled)
    words, _ = normalise(lzma.decompress(packed).decode("utf-8").split())
    return _build(name, words, directory, source)


def _check_name(name: str) -> None:
    if not _NAME_RE.match(name):
        raise ValueError(f"bad lexicon name {name!r}: letters, digits, '_', '.', '-' (64 at most)")


_loaded: dict[tuple[str, str], Lexicon] = {}


def load_lexicon(name: str, cache_dir=None) -> Lexicon:
    """A built-in lexicon (``TWL06``, ``SOWPODS``) or one imported earlier into the cache directory."""
    _check_name(name)
    directory = cache_directory(cache_dir)
    key = (name, str(directory.resolve()))
    known = _loaded.get(key)
    if name in BUILTINS:
        if known is None:
            known = _loaded[key] = _load_builtin(name, directory)
        return known
    # Another process may have imported a new list under this name since: the name file says which.
    sha, _ = _read_name(directory, name)
    if known is not None and known.sha256 == sha:
        return known
    compiled = _read_compiled(directory, sha) if sha else None
    if compiled is None:
        raise LookupError(f"unknown lexicon {name!r} (not built in, not imported in {directory})")
    lexicon = _loaded[key] = Lexicon(name, sha, *compiled)
    return lexicon


def spell_words(words: Iterable[str], tileset, stored: bool = False) -> tuple[list[str], list[str]]:
    """(sorted unique stored words, rejected raw entries) of a word list for a tile set whose labels are not
    all one letter A-Z (Spanish, Catalan, German): each entry spelled by the set's rule (``TileSet.spell``);
    an entry it cannot spell (a letter with no tile, a character that is no letter) or of fewer than two
    tiles is rejected.  ``stored``: the entries are already stored strings (a list read back from the
    database), taken as they are when every character is a tile of the set."""
    accepted, rejected = set(), []
    for raw in words:
        entry = raw.strip()
        if not entry:
            continue
        if stored:
            tiles = entry if all(ch in tileset.stored_chars for ch in entry) else None
        else:
            tiles = tileset.spell(entry)
        if tiles is not None and len(tiles) >= MIN_WORD_LENGTH:
            accepted.add(tiles)
        else:
            rejected.append(entry)
    return sorted(accepted), rejected  # code points of the storage characters run in code order


def import_lexicon(name: str, words: Iterable[str], tileset, cache_dir=None, *, stored: bool = False) -> ImportResult:
    """Compile ``words`` under ``name``.  Entries that cannot be played with ``tileset`` (a letter it lacks,
    a character that is not a letter, fewer than two letters) are returned in ``rejected``.  ``stored``: the
    words are stored strings already (``Lexicon.words()`` of an earlier import)."""
    _check_name(name)
    if name in BUILTINS:
        raise ValueError(f"{name!r} is a built-in lexicon")
    directory = cache_directory(cache_dir)
    if getattr(tileset, "plain", True):  # tiles of one letter A-Z each
        accepted, rejected = normalise(words, lambda word: all(getattr(tileset, "playable", tileset.has_letter)(ch) for ch in word))
    else:
        accepted, rejected = spell_words(words, tileset, stored)
    if not accepted:
        raise ValueError("the word list has no playable word")
    lexicon = _build(name, accepted, directory)
    _loaded[(name, str(directory.resolve()))] = lexicon
    return ImportResult(lexicon, rejected)
