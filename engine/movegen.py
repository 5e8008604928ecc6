"""Move generation: every legal play, and the tops (the best score and every play tied at it).

One code path serves both directions: down plays are generated as across plays on the transposed board
(``_Orientation``), and their squares mapped back.  In each row, a play is found from the square of its
first letter (a "start": the square before it is empty or off the board) by walking the lexicon's DAWG
rightwards over board tiles and rack tiles allowed by the precomputed cross-checks, keeping the score
as it goes.  A start is tried only if an anchor (an empty square next to a tile, or the centre on an
empty board) is within the rack's reach.

``find_tops`` visits starts best-first by an upper bound on any score reachable from them (rack values
paired with the best multipliers on the squares in reach), and stops once the bound of the next start
is below the best score found: every tied play is still found, the set of tops is exact.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from .layout import CENTRE, LETTER_MULTIPLIER, SIZE, WORD_MULTIPLIER
from .scoring import cross_parts
from .tiles import BLANK, EMPTY, LETTER_MASK, decode, encode

ALL_LETTERS = ((1 << 27) - 1) & ~1  # bits 1..26

# Transposed square index -> original square index (a transposition is its own inverse).
TRANSPOSE = tuple(c * SIZE + r for r in range(SIZE) for c in range(SIZE))


@dataclass(frozen=True)
class Play:
    word: str
    row: int
    col: int
    horizontal: bool
    score: int
    tiles: tuple  # ((row, col, letter, is_blank), ...) the tiles placed, in word order
    words: tuple  # every word formed: the main word first, then cross-words in board order


@dataclass(frozen=True)
class Tops:
    score: int | None
    plays: tuple


# ---------------------------------------------------------------------------------------------------
# Cross-checks: which letters may stand on an empty square given the tiles across it.

_hook_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_HOOK_CACHE_LIMIT = 200_000


def _hooks(lexicon, before: tuple, after: tuple) -> int:
    """Bitmask of the letter codes c such that before + c + after is a word."""
    cache = _hook_caches.get(lexicon)
    if cache is None:
        cache = _hook_caches[lexicon] = {}
    key = (before, after)
    mask = cache.get(key)
    if mask is None:
        mask = 0
        node = lexicon.walk(t & LETTER_MASK for t in before)
        if node is not None:
            letters = lexicon.masks[node]
            suffix = [t & LETTER_MASK for t in after]
            for c in range(1, 27):
                if letters >> c & 1:
                    end = lexicon.walk(suffix, lexicon.arcs[node << 5 | c])
                    if end is not None and lexicon.masks[end] & 1:
                        mask |= 1 << c
        if len(cache) >= _HOOK_CACHE_LIMIT:
            cache.clear()
        cache[key] = mask
    return mask


class _Orientation:
    """The board seen so that plays run along rows: the board itself for across plays, its transpose for
    down plays.  Holds per-square cross-checks, cross-word base scores and anchors."""

    def __init__(self, squares, horizontal: bool, lexicon, tileset, first_move: bool):
        self.horizontal = horizontal
        if horizontal:
            self.squares = squares
            self.letter_mult = LETTER_MULTIPLIER
            self.word_mult = WORD_MULTIPLIER
        else:
            self.squares = tuple(squares[i] for i in TRANSPOSE)
            self.letter_mult = tuple(LETTER_MULTIPLIER[i] for i in TRANSPOSE)
            self.word_mult = tuple(WORD_MULTIPLIER[i] for i in TRANSPOSE)
        sq = self.squares
        values = tileset.values
        n = SIZE * SIZE
        self.allowed = [0] * n  # letters allowed on the empty square (0 on a tile)
        self.cross_base = [-1] * n  # sum of the cross-word's board tiles, -1 if no cross-word
        self.anchor = [False] * n
        self.before = [()] * n  # tiles before/after the square across (the rest of a cross-word)
        self.after = [()] * n
        if first_move:
            centre = CENTRE[0] * SIZE + CENTRE[1]
            self.allowed = [ALL_LETTERS] * n
            self.anchor[centre] = True
            return
        for i in range(n):
            if sq[i] != EMPTY:
                continue
            r, c = divmod(i, SIZE)
            up = r > 0 and sq[i - SIZE] != EMPTY
            down = r < SIZE - 1 and sq[i + SIZE] != EMPTY
            left = c > 0 and sq[i - 1] != EMPTY
            right = c < SIZE - 1 and sq[i + 1] != EMPTY
            self.anchor[i] = up or down or left or right
            if up or down:
                before, after = cross_parts(sq, r, c, True)
                self.before[i], self.after[i] = before, after
                self.allowed[i] = _hooks(lexicon, before, after)
                self.cross_base[i] = sum(values[t] for t in before) + sum(values[t] for t in after)
            else:
                self.allowed[i] = ALL_LETTERS

    def original(self, i: int) -> tuple[int, int]:
        """(row, col) on the real board of this orientation's square ``i``."""
        if not self.horizontal:
            i = TRANSPOSE[i]
        return divmod(i, SIZE)


# ---------------------------------------------------------------------------------------------------
# The walk


class _Search:
    """One move search: a rack against a board.  ``keep_best`` keeps only the plays at the best score
    seen so far (and lets the bound prune); otherwise every play is kept."""

    def __init__(self, board, rack: str, lexicon, tileset, rules, keep_best: bool):
        self.lexicon = lexicon
        self.tileset = tileset
        self.rules = rules
        self.keep_best = keep_best
        self.counts = [0] * 27  # tiles on the rack by letter code; index 0 counts the blanks
        for ch in rack:
            t = encode(ch)
            if t == BLANK:
                self.counts[0] += 1
            elif t == EMPTY or t & BLANK:
                raise ValueError(f"bad rack tile {ch!r}")
            else:
                self.counts[t] += 1
        self.rack_len = len(rack)
        first_move = board.is_empty()
        directions = (True,) if first_move and rules.first_move_horizontal else (True, False)
        self.orientations = [
            _Orientation(board.squares, h, lexicon, tileset, first_move) for h in directions
        ]
        self.best = -1
        self.found = []  # (score, orientation, start square, ((square, tile), ...))

    def starts(self):
        """(orientation, start square) pairs from which a connected play can begin."""
        reach = min(self.rack_len, SIZE)
        for o in self.orientations:
            sq, anchor = o.squares, o.anchor
            for r in range(SIZE):
                base = r * SIZE
                for s in range(SIZE):
                    i = base + s
                    if s > 0 and sq[i - 1] != EMPTY:
                        continue
                    if sq[i] != EMPTY:
                        yield o, i
                        continue
                    # The squares from s to the first anchor are empty: it must be within reach.
                    for k in range(min(reach, SIZE - s)):
                        if anchor[i + k]:
                            yield o, i
                            break

    def run(self):
        for o, start in self.starts():
            self.walk_from(o, start)
        return self

    def walk_from(self, o, start: int) -> None:
        lexicon = self.lexicon
        arcs, masks = lexicon.arcs, lexicon.masks
        values = self.tileset.values
        counts = self.counts
        sq, allowed, cross_base, anchor = o.squares, o.allowed, o.cross_base, o.anchor
        lm, wm = o.letter_mult, o.word_mult
        end = start - start % SIZE + SIZE
        rack_len = self.rack_len
        bingo = self.rules.bingo_bonus if rack_len == self.rules.rack_size else 0
        placed = []
        found = self.found
        keep_best = self.keep_best

        def walk(p, node, main, wmul, cross, hooked):
            while p < end and sq[p]:
                t = sq[p]
                node = arcs.get(node << 5 | (t & LETTER_MASK))
                if node is None:
                    return
                main += values[t]
                p += 1
                hooked = True
            m = masks[node]
            if m & 1 and hooked and placed:
                score = main * wmul + cross
                if len(placed) == rack_len:
                    score += bingo
                if keep_best:
                    if score >= self.best:
                        if score > self.best:
                            self.best = score
                            found.clear()
                        found.append((score, o, start, tuple(placed)))
                else:
                    found.append((score, o, start, tuple(placed)))
            if p == end or len(placed) == rack_len:
                return
            letters = m & allowed[p]
            if not counts[0]:
                rack_mask = 0
                for c in range(1, 27):
                    if counts[c]:
                        rack_mask |= 1 << c
                letters &= rack_mask
            lmul, wmf, cb = lm[p], wm[p], cross_base[p]
            hooked = hooked or anchor[p]
            while letters:
                low = letters & -letters
                letters ^= low
                c = low.bit_length() - 1
                child = arcs[node << 5 | c]
                if counts[c]:
                    counts[c] -= 1
                    v = values[c] * lmul
                    placed.append((p, c))
                    walk(p + 1, child, main + v, wmul * wmf, cross + (cb + v) * wmf if cb >= 0 else cross, hooked)
                    placed.pop()
                    counts[c] += 1
                if counts[0]:
                    counts[0] -= 1
                    t = c | BLANK
                    v = values[t] * lmul
                    placed.append((p, t))
                    walk(p + 1, child, main + v, wmul * wmf, cross + (cb + v) * wmf if cb >= 0 else cross, hooked)
                    placed.pop()
                    counts[0] += 1

        walk(start, 0, 0, 1, 0, False)

    # -----------------------------------------------------------------------------------------------

    def plays(self) -> list[Play]:
        plays, seen_single = [], set()
        # Across first, so a one-tile play forming words both ways is named across (as the fixtures do).
        for score, o, start, placed in sorted(self.found, key=lambda f: not f[1].horizontal):
            if len(placed) == 1:
                key = (o.original(placed[0][0]), placed[0][1])
                if key in seen_single:
                    continue
                seen_single.add(key)
            plays.append(_make_play(o, start, placed, score))
        return plays


def _make_play(o: _Orientation, start: int, placed, score: int) -> Play:
    sq = o.squares
    new = dict(placed)
    end = start - start % SIZE + SIZE
    word, p = [], start
    while p < end and (sq[p] or p in new):
        word.append(decode(new.get(p, sq[p])))
        p += 1
    words = ["".join(word)]
    tiles = []
    for p, t in placed:
        row, col = o.original(p)
        ch = decode(t)
        tiles.append((row, col, ch.upper(), bool(t & BLANK)))
        if o.before[p] or o.after[p]:
            words.append("".join(decode(x) for x in o.before[p]) + ch + "".join(decode(x) for x in o.after[p]))
    row, col = o.original(start)
    return Play(words[0], row, col, o.horizontal, score, tuple(tiles), tuple(words))


def generate_plays(board, rack: str, lexicon, tileset, rules) -> list[Play]:
    """Every legal play of ``rack`` on ``board`` (a one-tile play forming words both ways, once)."""
    return _Search(board, rack, lexicon, tileset, rules, keep_best=False).run().plays()


def find_tops(board, rack: str, lexicon, tileset, rules) -> Tops:
    """The best score and every play that reaches it (score None when no play exists)."""
    search = _Search(board, rack, lexicon, tileset, rules, keep_best=True).run()
    plays = search.plays()
    return Tops(search.best if plays else None, tuple(sorted(plays, key=_play_order)))


def _play_order(play: Play):
    return (play.row, play.col, not play.horizontal, play.word)
