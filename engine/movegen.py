"""Move generation: every legal play, and the tops (the best score and every play tied at it).

One code path serves both directions: plays are generated along the lanes of the board's view in each
direction (``engine.lane``: down plays are across plays on the transposed board), and their squares
mapped back.  In each row, a play is found from the square of its
first letter (a "start": the square before it is empty or off the board) by walking the lexicon's DAWG
rightwards over board tiles and rack tiles allowed by the precomputed cross-checks, keeping the score
as it goes.

Before walking, each start's *windows* are listed: the stretches where a main word from that start
could end (an empty square or the edge after it, 1..len(rack) empty squares inside, an anchor covered),
each with the word multiplier it gets, its bonus, and an upper bound on any play's score there (rack
values paired with the squares' best multipliers).  The walk follows only DAWG paths that can end
exactly at one of the windows it was given (the DAWG records which word lengths each node can still
reach).  A window using the whole rack is dropped when no word is an anagram of the rack and the board
letters inside it.

``find_tops`` visits starts best-first by bound and gives each only its windows whose bound reaches the
best score found so far, stopping when no start's bound does: every tied play is still found, the set
of tops is exact.
"""
from __future__ import annotations

import operator
import weakref
from dataclasses import dataclass

from .lane import lanes
from .layout import CENTRE, SIZE
from .play import Play
from .scoring import cross_parts
from .tiles import BLANK, EMPTY, LETTER_MASK, decode, decode_word, encode

__all__ = ["Play", "Tops", "find_tops", "generate_plays"]

ALL_LETTERS = ((1 << 27) - 1) & ~1  # bits 1..26

_FAR = SIZE * SIZE  # farther than any rack reaches


@dataclass(frozen=True)
class Tops:
    score: int | None
    plays: tuple


# ---------------------------------------------------------------------------------------------------
# Cross-checks: which letters may stand on an empty square given the tiles across it.

_hook_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_HOOK_CACHE_LIMIT = 50_000


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
    """The board's view in one direction (``engine.lane``), so that plays run along its lanes.  Holds
    per-square cross-checks, cross-word base scores and anchors."""

    def __init__(self, board, horizontal: bool, lexicon, tileset, first_move: bool):
        self.horizontal = horizontal
        self.lane = lane = lanes(horizontal)
        self.squares = board.view(horizontal)
        self.letter_mult = lane.letter_mult
        self.word_mult = lane.word_mult
        sq = self.squares
        values = tileset.values
        n = SIZE * SIZE
        self.allowed = [0] * n  # letters allowed on the empty square (0 on a tile)
        self.cross_base = [-1] * n  # sum of the cross-word's board tiles, -1 if no cross-word
        self.anchor = [False] * n
        self.before = [()] * n  # tiles before/after the square across (the rest of a cross-word)
        self.after = [()] * n
        if first_move:
            centre = lane.index(*CENTRE)
            self.allowed = [ALL_LETTERS] * n
            self.anchor[centre] = True
        else:
            self._cross_checks(lexicon, values)
        # reach[i]: how many empty squares from i up to the row's next anchor, 0 on a tile.
        self.reach = reach = [0] * n
        for row_end in range(SIZE, n + 1, SIZE):
            after = _FAR
            for i in range(row_end - 1, row_end - SIZE - 1, -1):
                if sq[i]:
                    after = 0
                elif self.anchor[i]:
                    after = 1
                else:
                    after += 1
                reach[i] = after

    def _cross_checks(self, lexicon, values):
        sq = self.squares
        n = SIZE * SIZE
        for i in range(n):
            if sq[i] != EMPTY:
                continue
            number, position = divmod(i, SIZE)  # the lane and the square's place along it
            across_before = number > 0 and sq[i - SIZE] != EMPTY  # the cross-lane neighbours
            across_after = number < SIZE - 1 and sq[i + SIZE] != EMPTY
            along_before = position > 0 and sq[i - 1] != EMPTY
            along_after = position < SIZE - 1 and sq[i + 1] != EMPTY
            self.anchor[i] = across_before or across_after or along_before or along_after
            if across_before or across_after:
                before, after = cross_parts(sq, i)
                self.before[i], self.after[i] = before, after
                self.allowed[i] = _hooks(lexicon, before, after)
                self.cross_base[i] = sum(values[t] for t in before) + sum(values[t] for t in after)
            else:
                self.allowed[i] = ALL_LETTERS

    def original(self, i: int) -> tuple[int, int]:
        """(row, col) on the board of this view's square ``i``."""
        return self.lane.square(i)


# ---------------------------------------------------------------------------------------------------
# The walk


class _Search:
    """One move search: a rack against a board.

    A *window* is a stretch of a row where a play's main word could lie: from a start to an end with an
    empty square (or the edge) after it, holding 1..len(rack) empty squares, touching an anchor.  Each
    window gets an upper bound on the score of any play filling it; a walk from a start only follows
    DAWG paths that can end exactly at one of its windows still worth visiting.
    """

    def __init__(self, board, rack: str, lexicon, tileset, rules):
        self.lexicon = lexicon
        self.tileset = tileset
        self.rules = rules
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
        self.letters = sum(1 << c for c in range(1, 27) if self.counts[c])
        values = tileset.values
        self.rack_values = sorted(
            (values[BLANK] if t == BLANK else values[t] for t in map(encode, rack)), reverse=True
        )
        first_move = board.is_empty()
        directions = (True,) if first_move and rules.first_move_horizontal else (True, False)
        self.orientations = [
            _Orientation(board, h, lexicon, tileset, first_move) for h in directions
        ]
        self.best = -1
        self.keep_best = False
        self._anagrams = {}  # board letters a whole-rack play would go through -> whether an anagram exists
        self.found = []  # (score, orientation, start square, ((square, tile), ...))

    def units(self):
        """(best bound, orientation, start square, windows) for every start with a window."""
        units = []
        for o in self.orientations:
            sq, reach = o.squares, o.reach
            for s in range(SIZE * SIZE):
                if (s % SIZE and sq[s - 1]) or reach[s] > self.rack_len:
                    continue
                windows = self.windows(o, s)
                if windows:
                    units.append((max(windows)[0], o, s, windows))
        return units

    def windows(self, o, start: int) -> list:
        """The windows from ``start``, each (bound, word length, word multiplier, bonus): a play of that
        length from that start scores main-word letters x multiplier + cross-words + bonus."""
        values = self.tileset.values
        rack_len, rack_values = self.rack_len, self.rack_values
        avail = ALL_LETTERS if self.counts[0] else self.letters
        sq, allowed, cross_base, anchor = o.squares, o.allowed, o.cross_base, o.anchor
        lm, wm = o.letter_mult, o.word_mult
        row_end = start - start % SIZE + SIZE
        windows = []
        new, board_sum, cross_sum, wmul, hooked = 0, 0, 0, 1, False
        letter_mults, cross_mults, fixed = [], [], []
        for e in range(start, row_end):
            t = sq[e]
            if t:
                board_sum += values[t]
                hooked = True
                fixed.append(t & LETTER_MASK)
            else:
                if not allowed[e] & avail or new == rack_len:
                    break
                new += 1
                hooked = hooked or anchor[e]
                wmul *= wm[e]
                letter_mults.append(lm[e])
                cross_mult = wm[e] if cross_base[e] >= 0 else 0
                cross_mults.append(cross_mult)
                cross_sum += cross_base[e] * cross_mult
            if not (hooked and new and e > start and (e + 1 == row_end or not sq[e + 1])):
                continue
            if new == rack_len and not self.anagram_possible(fixed):
                continue
            # Rack values paired with the best coefficients (rearrangement inequality).
            coefficients = sorted([a * (wmul + b) for a, b in zip(letter_mults, cross_mults, strict=True)], reverse=True)
            bonus = self.rules.bingo_bonus if new == self.rules.rack_size else 0
            bound = wmul * board_sum + cross_sum + sum(map(operator.mul, coefficients, rack_values)) + bonus
            windows.append((bound, e - start + 1, wmul, bonus))
        return windows

    def anagram_possible(self, fixed) -> bool:
        """Whether the whole rack and the board letters ``fixed`` are an anagram of some word (a play using
        every tile through those letters needs one)."""
        key = tuple(sorted(fixed))
        known = self._anagrams.get(key)
        if known is None:
            counts = self.counts[:]
            for c in fixed:
                counts[c] += 1
            known = self._anagrams[key] = self.lexicon.has_anagram(counts)
        return known

    def run(self, keep_best: bool):
        """Walk every start; with ``keep_best``, best bound first, keeping only the plays at the best
        score and skipping windows whose bound is below it."""
        self.keep_best = keep_best
        units = self.units()
        if keep_best:
            units.sort(key=operator.itemgetter(0), reverse=True)
        for top_bound, o, start, windows in units:
            if keep_best and top_bound < self.best:
                break
            self.walk_from(o, start, [w for w in windows if w[0] >= self.best] if keep_best else windows)
        return self

    def walk_from(self, o, start: int, windows) -> None:
        """Follow the DAWG from ``start`` for the words that fill one of ``windows``."""
        lexicon = self.lexicon
        arcs, masks, suffixes = lexicon.arcs, lexicon.masks, lexicon.lengths
        values = self.tileset.values
        counts = self.counts
        sq, allowed, cross_base = o.squares, o.allowed, o.cross_base
        lm, wm = o.letter_mult, o.word_mult
        end = start - start % SIZE + SIZE
        word_lengths = 0
        word_mult = [0] * (SIZE + 1)
        bonus = [0] * (SIZE + 1)
        for _, length, mult, extra in windows:
            word_lengths |= 1 << length
            word_mult[length] = mult
            bonus[length] = extra
        placed = []
        found = self.found
        keep_best = self.keep_best

        def walk(p, node, main, cross, letters):
            while p < end and sq[p]:
                t = sq[p]
                node = arcs.get(node << 5 | (t & LETTER_MASK))
                if node is None:
                    return
                main += values[t]
                p += 1
            depth = p - start
            if not (suffixes[node] << depth) & word_lengths:
                return
            m = masks[node]
            if m & 1 and word_lengths >> depth & 1:
                score = main * word_mult[depth] + cross + bonus[depth]
                if keep_best:
                    if score >= self.best:
                        if score > self.best:
                            self.best = score
                            found.clear()
                        found.append((score, o, start, tuple(placed)))
                else:
                    found.append((score, o, start, tuple(placed)))
            if p == end:
                return
            candidates = m & allowed[p] & (ALL_LETTERS if counts[0] else letters)
            lmul, cb = lm[p], cross_base[p]
            cross_mult = wm[p] if cb >= 0 else 0
            depth += 1
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                c = low.bit_length() - 1
                child = arcs[node << 5 | c]
                if not (suffixes[child] << depth) & word_lengths:
                    continue
                if counts[c]:
                    counts[c] -= 1
                    v = values[c] * lmul
                    placed.append((p, c))
                    walk(p + 1, child, main + v, cross + (cb + v) * cross_mult, letters if counts[c] else letters ^ low)
                    placed.pop()
                    counts[c] += 1
                if counts[0]:
                    counts[0] -= 1
                    t = c | BLANK
                    v = values[t] * lmul
                    placed.append((p, t))
                    walk(p + 1, child, main + v, cross + (cb + v) * cross_mult, letters)
                    placed.pop()
                    counts[0] += 1

        walk(start, 0, 0, 0, self.letters)

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
    tiles = list(sq[start:start - start % SIZE + SIZE])
    for p, t in placed:
        tiles[p - start] = t
    if EMPTY in tiles:
        tiles = tiles[:tiles.index(EMPTY)]
    words = [decode_word(tiles)]
    placed_tiles = []
    for p, t in placed:
        row, col = o.original(p)
        ch = decode(t)
        placed_tiles.append((row, col, ch.upper(), bool(t & BLANK)))
        if o.before[p] or o.after[p]:
            words.append(decode_word(o.before[p]) + ch + decode_word(o.after[p]))
    row, col = o.original(start)
    return Play(words[0], row, col, o.horizontal, score, tuple(placed_tiles), tuple(words))


def generate_plays(board, rack: str, lexicon, tileset, rules) -> list[Play]:
    """Every legal play of ``rack`` on ``board`` (a one-tile play forming words both ways, once)."""
    return _Search(board, rack, lexicon, tileset, rules).run(keep_best=False).plays()


def find_tops(board, rack: str, lexicon, tileset, rules) -> Tops:
    """The best score and every play that reaches it (score None when no play exists)."""
    search = _Search(board, rack, lexicon, tileset, rules).run(keep_best=True)
    plays = search.plays()
    return Tops(search.best if plays else None, tuple(sorted(plays, key=_play_order)))


def _play_order(play: Play):
    return (play.row, play.col, not play.horizontal, play.word)
