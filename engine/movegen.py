"""Move generation, the reference search: every legal play, the best plays, the tops, and a count of the
legal plays, in pure Python.

``engine.kernel`` is the same search compiled with Numba, and ``engine.search`` chooses which of the two
runs (the rest of the project calls the search there); the functions here always run this one, the form
that is read to understand the search and that the compiled one is checked against (the tests run every
reference position through both).

One code path serves both directions: plays are generated along the lanes of the board's view in each
direction (``engine.lane``: down plays are across plays on the transposed board), and their squares
mapped back.  In each row, a play is found from the square of its first letter (a "start": the square
before it is empty or off the board) by walking the lexicon's DAWG rightwards over board tiles and
letters allowed by the cross-checks, keeping the score as it goes.

What depends on the board alone (each empty square's cross-check, the board part of its cross-word's
score, the anchors, the starts) is worked out once per board (``board_analysis``); ``engine.search``
keeps it for the next search on the same board.

The walk goes letter by letter, not tile by tile: a letter is taken from the rack's real tiles while it
holds some, else from a blank.  Which of the new tiles are blanks is decided only where a word ends: the
plays there are every way of choosing the blanks among the new tiles that the rack allows (a blank may
also stand for a letter the rack holds: ``CATS`` and ``CATs`` are two plays).  The score kept along the
walk is the score with no blank at all, an upper bound of every way of placing the blanks; each blank
then costs its letter's value times the square's coefficient.

Before walking, each start's *windows* are listed: the stretches where a main word from that start
could end (an empty square or the edge after it, 1..len(rack) empty squares inside, an anchor covered),
each with the word multiplier it gets, its bonus, and an upper bound on any play's score there (rack
values paired with the squares' best multipliers).  The walk follows only DAWG paths that can end
exactly at one of the windows it was given (the DAWG records which word lengths each node can still
reach).  A window using the whole rack is dropped when no word is an anagram of the rack and the board
letters inside it.  A step is taken only when the word can still get past the squares ahead that not
every letter can fill (board tiles, cross-checks) as far as every open window goes: for each node of the
DAWG, ``_ahead`` records which letters some word has 1, 2, ... letters further on.

``best_plays`` (and ``find_tops``, its n = 1) visits starts best-first by bound and gives each only its
windows whose bound reaches the n-th best score found so far, stopping when no start's bound does:
every play tied at the n-th score is still found, the result is exact.  ``count_plays`` walks every
window but builds no play: where a word ends it adds how many ways the blanks can be placed.

**Distinct plays.**  A play is its placed tiles: the squares, the letters and which of them are blanks.
The same word at the same square and direction with the same tiles is one play; two plays that differ
only in which tile is a blank (``CHEeSE`` and ``CHeESE``), or in a blank standing for a letter the rack
also holds (``CATs`` and ``CATS``), are two plays.  A single new tile forming words both across and
down is one play, named across.  This is what ``generate_plays`` lists, what ``count_plays`` counts, and
what ``best_plays`` ranks.
"""
from __future__ import annotations

import heapq
import operator
import weakref
from dataclasses import dataclass
from math import comb

from .lane import lanes
from .layout import CENTRE, SIZE
from .play import Play
from .scoring import cross_parts
from .tiles import ALPHABET_SIZE, BLANK, EMPTY, LETTER_MASK, decode, decode_word, encode

__all__ = ["Play", "Tops", "best_plays", "count_plays", "find_tops", "generate_plays", "score_spread"]

ALL_LETTERS = ((1 << ALPHABET_SIZE) - 1) & ~1  # bits 1..31: every tile code (engine.tiles)

_FAR = SIZE * SIZE  # farther than any rack reaches

# _SUBSETS[b][n]: the ways of choosing at most b of n new tiles to be blanks.
_SUBSETS = tuple(tuple(sum(comb(n, k) for k in range(b + 1)) for n in range(SIZE + 1)) for b in range(8))


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
            for c in range(1, ALPHABET_SIZE):
                if letters >> c & 1:
                    end = lexicon.walk(suffix, lexicon.arcs[node << 5 | c])
                    if end is not None and lexicon.masks[end] & 1:
                        mask |= 1 << c
        if len(cache) >= _HOOK_CACHE_LIMIT:
            cache.clear()
        cache[key] = mask
    return mask


_ahead_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LANE_BITS = ALPHABET_SIZE  # bits per square ahead: one for each tile code


def _ahead(lexicon) -> list:
    """ahead[node]: bit _LANE_BITS * j + c set when some word goes on from ``node`` with letter c as its j-th
    letter after it (j from 0)."""
    known = _ahead_caches.get(lexicon)
    if known is not None:
        return known
    masks, arcs = lexicon.masks, lexicon.arcs
    width = _LANE_BITS * SIZE
    keep = (1 << width) - 1
    ahead = [None] * len(masks)
    stack = [(0, False)]
    while stack:
        node, expanded = stack.pop()
        if ahead[node] is not None:
            continue
        m = masks[node] & ALL_LETTERS
        kids = []
        while m:
            low = m & -m
            m ^= low
            kids.append(arcs[node << 5 | (low.bit_length() - 1)])
        if expanded:
            bits = masks[node] & ALL_LETTERS
            for kid in kids:
                bits |= ahead[kid] << _LANE_BITS
            ahead[node] = bits & keep
        else:
            stack.append((node, True))
            stack.extend((kid, False) for kid in kids if ahead[kid] is None)
    _ahead_caches[lexicon] = ahead
    return ahead


class _Orientation:
    """The board's view in one direction (``engine.lane``), so that plays run along its lanes.  Holds
    per-square cross-checks, cross-word base scores and anchors, and the starts: nothing here depends on
    the rack."""

    def __init__(self, board, horizontal: bool, lexicon, values, first_move: bool, single_named_across: bool):
        self.horizontal = horizontal
        self.lane = lane = lanes(horizontal)
        self.squares = sq = board.view(horizontal)
        self.letter_mult = lane.letter_mult
        self.word_mult = lane.word_mult
        # A one-tile play forming a word across too is listed from the view across only.
        self.single_named_across = single_named_across
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
        # The cross-word's multiplier of a tile on the square: the square's word multiplier, 0 when no
        # cross-word is formed there.
        wm, cross_base = self.word_mult, self.cross_base
        self.cross_mult = [wm[i] if cross_base[i] >= 0 else 0 for i in range(n)]
        # The first square at or after each one, in its lane, that not every letter can fill: a board
        # tile or a cross-check (SIZE * SIZE when none), and the letters it takes.
        self.need = [1 << (t & LETTER_MASK) if t else self.allowed[i] for i, t in enumerate(sq)]
        self.next_need = next_need = [n] * n
        for row_end in range(SIZE, n + 1, SIZE):
            k = n
            for i in range(row_end - 1, row_end - SIZE - 1, -1):
                if sq[i] or self.allowed[i] != ALL_LETTERS:
                    k = i
                next_need[i] = k
        # The starts: (square, how many empty squares from it up to the row's next anchor).
        self.starts = starts = []
        for row_end in range(n, 0, -SIZE):
            after = _FAR
            for i in range(row_end - 1, row_end - SIZE - 1, -1):
                if sq[i]:
                    after = 0
                elif self.anchor[i]:
                    after = 1
                else:
                    after += 1
                if after < _FAR and (i == row_end - SIZE or not sq[i - 1]):
                    starts.append((i, after))
        starts.reverse()

    def _cross_checks(self, lexicon, values):
        sq = self.squares
        n = SIZE * SIZE
        allowed, anchor, cross_base = self.allowed, self.anchor, self.cross_base
        for i in range(n):
            allowed[i] = 0 if sq[i] else ALL_LETTERS
        # Only the empty squares next to a tile are anchors, and only those with a tile across from
        # them (in the neighbouring lanes) have a cross-check.
        touched = set()
        for i, t in enumerate(sq):
            if t:
                position = i % SIZE
                touched.update(
                    j for j, ok in ((i - SIZE, i >= SIZE), (i + SIZE, i + SIZE < n), (i - 1, position > 0),
                                    (i + 1, position < SIZE - 1))
                    if ok and not sq[j]
                )
        for i in touched:
            anchor[i] = True
            if (i >= SIZE and sq[i - SIZE]) or (i + SIZE < n and sq[i + SIZE]):
                before, after = cross_parts(sq, i)
                self.before[i], self.after[i] = before, after
                allowed[i] = _hooks(lexicon, before, after)
                cross_base[i] = sum(values[t] for t in before) + sum(values[t] for t in after)

    def original(self, i: int) -> tuple[int, int]:
        """(row, col) on the board of this view's square ``i``."""
        return self.lane.square(i)

    def cross_word(self, i: int) -> tuple[tuple, tuple]:
        """The board tiles before and after the empty square ``i`` across its lane."""
        return self.before[i], self.after[i]


def directions(board, rules) -> tuple:
    """The directions a search walks: across only for a first move that must be across."""
    return (True,) if board.is_empty() and rules.first_move_horizontal else (True, False)


def board_analysis(board, lexicon, tileset, rules) -> list[_Orientation]:
    """The views a search walks, each with what depends on the board alone (``engine.search`` keeps the
    last few boards' analyses, so that the tops, the best plays and the count of one position share
    them)."""
    walked = directions(board, rules)
    values = tileset.values
    first_move, both = board.is_empty(), len(walked) == 2
    return [_Orientation(board, h, lexicon, values, first_move, both and not h) for h in walked]


def read_rack(rack: str, values) -> tuple[tuple, list]:
    """The rack's tiles by letter code (index 0 counts the blanks) and its tiles' values, best first; a
    ValueError for a tile that is no letter or blank."""
    counts = [0] * ALPHABET_SIZE
    for ch in rack:
        t = encode(ch)
        if t == BLANK:
            counts[0] += 1
        elif t == EMPTY or t & BLANK:
            raise ValueError(f"bad rack tile {ch!r}")
        else:
            counts[t] += 1
    rack_values = sorted((values[BLANK] if t == BLANK else values[t] for t in map(encode, rack)), reverse=True)
    return tuple(counts), rack_values


# ---------------------------------------------------------------------------------------------------
# The walk


class _Search:
    """One move search: a rack against a board.

    A *window* is a stretch of a row where a play's main word could lie: from a start to an end with an
    empty square (or the edge) after it, holding 1..len(rack) empty squares, touching an anchor.  Each
    window gets an upper bound on the score of any play filling it; a walk from a start only follows
    DAWG paths that can end exactly at one of its windows still worth visiting.
    """

    def __init__(self, board, rack: str, lexicon, tileset, rules, orientations=None):
        """``orientations``: ``board_analysis(board, ...)`` when the caller kept it."""
        self.lexicon = lexicon
        self.rules = rules
        self.values = tileset.values
        # The rack's tiles by letter code, index 0 the blanks, as dealt; ``counts``: what the walk has left.
        self.rack, self.rack_values = read_rack(rack, self.values)
        self.counts = list(self.rack)
        self.blanks = self.counts[0]
        self.rack_len = len(rack)
        self.most = rules.placeable(len(rack))  # tiles a play may place (7 of a rack of 8 in 7 sur 8)
        self.letters = sum(1 << c for c in range(1, ALPHABET_SIZE) if self.counts[c])
        if orientations is None:
            orientations = board_analysis(board, lexicon, tileset, rules)
        self.orientations = orientations
        self._anagrams = {}  # board letters a whole-rack play would go through -> whether an anagram exists
        self._forced = {}  # letters placed (sorted) -> ways of placing the blanks, when some are needed
        self.found = []  # (score, orientation, start square, ((square, tile), ...))
        self.threshold = -1  # the n-th best score found so far (best_plays)
        self.total = 0  # plays counted (count_plays)

    # -- windows ------------------------------------------------------------------------------------

    def units(self, bounds: bool):
        """(best bound, orientation, start square, windows) for every start with a window."""
        units = []
        most = self.most
        for o in self.orientations:
            for s, reach in o.starts:
                if reach > most:
                    continue
                windows = self.windows(o, s, bounds)
                if windows:
                    units.append((max(windows)[0], o, s, windows))
        return units

    def windows(self, o, start: int, bounds: bool) -> list:
        """The windows from ``start``, each (bound, word length, word multiplier, bonus, board letters
        inside when the window takes the whole rack, else None): a play of that length from that start
        scores main-word letters x multiplier + cross-words + bonus.  Without ``bounds`` the bound is 0."""
        values = self.values
        rack_len, rack_values, most = self.rack_len, self.rack_values, self.most
        bonus_for = self.rules.bonus_for
        avail = ALL_LETTERS if self.blanks else self.letters
        sq, allowed, cross_base, cross_mult, anchor = o.squares, o.allowed, o.cross_base, o.cross_mult, o.anchor
        lm, wm = o.letter_mult, o.word_mult
        row_end = start - start % SIZE + SIZE
        windows = []
        new, board_sum, cross_sum, wmul, hooked = 0, 0, 0, 1, False
        letter_mults, cross_mults, fixed = [], [], []
        bound = 0
        for e in range(start, row_end):
            t = sq[e]
            if t:
                board_sum += values[t]
                hooked = True
                fixed.append(t & LETTER_MASK)
            else:
                if new == most or not allowed[e] & avail:
                    break
                new += 1
                if anchor[e]:
                    hooked = True
                wmul *= wm[e]
                letter_mults.append(lm[e])
                cross_mults.append(cross_mult[e])
                cross_sum += cross_base[e] * cross_mult[e]
            if not hooked or e == start or (e + 1 < row_end and sq[e + 1]) or not new:
                continue
            bonus = bonus_for(new)
            if bounds:
                # Rack values paired with the best coefficients (rearrangement inequality).
                coefficients = sorted([a * (wmul + b) for a, b in zip(letter_mults, cross_mults, strict=True)], reverse=True)
                bound = wmul * board_sum + cross_sum + sum(map(operator.mul, coefficients, rack_values)) + bonus
            windows.append((bound, e - start + 1, wmul, bonus, tuple(fixed) if new == rack_len else None))
        return windows

    def anagram_possible(self, fixed) -> bool:
        """Whether the whole rack and the board letters ``fixed`` are an anagram of some word (a play using
        every tile through those letters needs one)."""
        key = tuple(sorted(fixed))
        known = self._anagrams.get(key)
        if known is None:
            counts = list(self.rack)
            for c in fixed:
                counts[c] += 1
            known = self._anagrams[key] = self.lexicon.has_anagram(counts)
        return known

    # -- the three searches -------------------------------------------------------------------------

    def run_all(self):
        """Every play, in ``found``."""
        for _, o, start, windows in self.units(bounds=False):
            windows = [w for w in windows if w[4] is None or self.anagram_possible(w[4])]
            if windows:
                self.walk_from(o, start, windows, self._recorder_all)
        return self

    def run_count(self) -> int:
        """How many plays there are, in ``total``."""
        for _, o, start, windows in self.units(bounds=False):
            windows = [w for w in windows if w[4] is None or self.anagram_possible(w[4])]
            if windows:
                self.walk_from(o, start, windows, self._recorder_count)
        return self.total

    def run_best(self, n: int):
        """The plays scoring at least the n-th best score, in ``found``: starts best bound first, skipping
        windows whose bound is below the n-th best score found so far."""
        self.n = n
        self.heap = []  # the n best scores found so far (a min-heap)
        # Best bound first; a start's whole-rack windows are checked for an anagram when it comes up,
        # and the start goes back in its place if its best bound was one that has none.
        queue = [(-bound, i, o, start, windows, False) for i, (bound, o, start, windows) in enumerate(self.units(bounds=True))]
        heapq.heapify(queue)
        while queue:
            top_bound, i, o, start, windows, checked = heapq.heappop(queue)
            if -top_bound < self.threshold:
                break
            if not checked:
                windows = [w for w in windows if w[4] is None or self.anagram_possible(w[4])]
                if not windows:
                    continue
                bound = max(windows)[0]
                if bound < -top_bound:
                    heapq.heappush(queue, (-bound, i, o, start, windows, True))
                    continue
            windows = [w for w in windows if w[0] >= self.threshold]
            self.walk_from(o, start, windows, self._recorder_best)
        threshold = self.threshold
        self.found = [f for f in self.found if f[0] >= threshold]
        return self

    # -- where a word ends --------------------------------------------------------------------------

    def _assignments(self, o, placed, wmul):
        """Every way the rack allows of placing the letters ``placed`` ((square, letter), ...): (tiles
        ((square, tile), ...), points lost to blanks), the play with fewest blanks first."""
        values, lm, cm = self.values, o.letter_mult, o.cross_mult
        real = list(self.rack)
        n = len(placed)
        out, tiles = [], []

        def assign(i, blanks, loss):
            if i == n:
                out.append((tuple(tiles), loss))
                return
            p, c = placed[i]
            if real[c]:
                real[c] -= 1
                tiles.append((p, c))
                assign(i + 1, blanks, loss)
                tiles.pop()
                real[c] += 1
            if blanks:
                tiles.append((p, c | BLANK))
                assign(i + 1, blanks - 1, loss + (values[c] - values[c | BLANK]) * lm[p] * (wmul + cm[p]))
                tiles.pop()

        assign(0, self.blanks, 0)
        return out

    def _forced_count(self, placed) -> int:
        """The ways of choosing which of the new tiles ``placed`` are blanks when the rack's real tiles
        are too few for them: at least the missing ones of each letter, at most the blanks held."""
        key = tuple(sorted(c for _, c in placed))
        known = self._forced.get(key)
        if known is None:
            blanks, rack = self.blanks, self.rack
            ways = [1] + [0] * blanks  # ways[k]: k blanks chosen so far
            for c in set(key):
                m = key.count(c)
                lowest = max(0, m - rack[c])
                choose = [comb(m, k) if lowest <= k <= m else 0 for k in range(blanks + 1)]
                ways = [sum(ways[j] * choose[k - j] for j in range(k + 1)) for k in range(blanks + 1)]
            known = self._forced[key] = sum(ways)
        return known

    def _needed_blanks(self, placed) -> int:
        """What the walk took off the main word's sum for the blanks the letters ``placed`` need (the
        letters the rack's real tiles cannot spell): each blank's letter value less a blank's."""
        values, rack = self.values, self.rack
        letters = [c for _, c in placed]
        return sum(
            max(0, letters.count(c) - rack[c]) * (values[c] - values[c | BLANK]) for c in set(letters)
        )

    def _recorder_all(self, o, start, placed, word_mult, bonus):
        found, blanks, counts = self.found, self.blanks, self.counts
        skip_single = o.single_named_across
        cross_base = o.cross_base

        def record(depth, main, cross):
            if skip_single and len(placed) == 1 and cross_base[placed[0][0]] >= 0:
                return
            if not blanks:
                found.append((main * word_mult[depth] + cross + bonus[depth], o, start, tuple(placed)))
                return
            if counts[0] != blanks:
                main += self._needed_blanks(placed)
            score = main * word_mult[depth] + cross + bonus[depth]  # every tile a real one
            for tiles, loss in self._assignments(o, placed, word_mult[depth]):
                found.append((score - loss, o, start, tiles))

        return record

    def _recorder_count(self, o, start, placed, word_mult, bonus):
        blanks, counts = self.blanks, self.counts
        subsets = _SUBSETS[blanks]
        skip_single = o.single_named_across
        cross_base = o.cross_base

        def record(depth, main, cross):
            if skip_single and len(placed) == 1 and cross_base[placed[0][0]] >= 0:
                return
            if not blanks:
                self.total += 1
            elif counts[0] == blanks:  # no blank needed: any of the new tiles may be one
                self.total += subsets[len(placed)]
            else:
                self.total += self._forced_count(placed)

        return record

    def _recorder_best(self, o, start, placed, word_mult, bonus):
        found, blanks, heap, n, counts = self.found, self.blanks, self.heap, self.n, self.counts
        skip_single = o.single_named_across
        cross_base = o.cross_base

        def keep(score, tiles):
            found.append((score, o, start, tiles))
            if len(heap) < n:
                heapq.heappush(heap, score)
                if len(heap) == n:
                    self.threshold = heap[0]
            elif score > heap[0]:
                heapq.heapreplace(heap, score)
                self.threshold = heap[0]

        def record(depth, main, cross):
            # The most any placing of the blanks can score.
            score = main * word_mult[depth] + cross + bonus[depth]
            if score < self.threshold:
                return
            if skip_single and len(placed) == 1 and cross_base[placed[0][0]] >= 0:
                return
            if not blanks:
                keep(score, tuple(placed))
                return
            if counts[0] != blanks:
                score += self._needed_blanks(placed) * word_mult[depth]  # every tile a real one
            for tiles, loss in self._assignments(o, placed, word_mult[depth]):
                if score - loss >= self.threshold:
                    keep(score - loss, tiles)

        return record

    def walk_from(self, o, start: int, windows, recorder) -> None:
        """Follow the DAWG from ``start`` for the words that fill one of ``windows``; ``recorder`` makes
        what is called where a word ends, with the word's length, its main-word letters' sum and its
        cross-words' score, the letters placed being in ``placed``.

        The sum of the main word's letters counts each blank the rack's real tiles cannot spare as if
        it stood on a plain square: with the cross-words counted as if no tile were a blank, the score
        so kept is the most any placing of the blanks can make.

        Each step looks one square ahead before going on: through the board tiles that follow, to the
        next empty square only when some letter can stand there."""
        lexicon = self.lexicon
        arcs, masks, suffixes = lexicon.arcs, lexicon.masks, lexicon.lengths
        values = self.values
        counts = self.counts
        sq, allowed, cross_base, cross_mult, lm = o.squares, o.allowed, o.cross_base, o.cross_mult, o.letter_mult
        end = start - start % SIZE + SIZE
        word_lengths = 0
        word_mult = [0] * (SIZE + 1)
        bonus = [0] * (SIZE + 1)
        for _, length, mult, extra, _ in windows:
            word_lengths |= 1 << length
            word_mult[length] = mult
            bonus[length] = extra
        placed = []  # (square, letter) of the new tiles
        record = recorder(o, start, placed, word_mult, bonus)
        ahead = _ahead(lexicon)
        next_need, need = o.next_need, o.need

        def reaches(q, node) -> bool:
            # Whether the word, going on from ``node`` on square q, can pass the squares ahead that not
            # every letter can fill, as far as every window still open goes.
            later = word_lengths >> (q - start + 1)  # the windows still open, from a word ending on q
            if not later:
                return True
            last = q + (later & -later).bit_length() - 1  # where the shortest of them ends
            k = next_need[q]
            bits = ahead[node]
            while k <= last:
                if not (bits >> (_LANE_BITS * (k - q))) & need[k]:
                    return False
                k = next_need[k + 1] if k + 1 < end else end
            return True

        def walk(p, node, main, cross, letters):
            # ``p`` is an empty square where some letter of ``node``'s arcs may stand.
            depth = p - start + 1  # the word's length with a tile on p
            q = p + 1
            follows = q < end and sq[q]  # a board tile right after p: the word goes on through it
            ends_here = not follows and word_lengths >> depth & 1
            longer = q < end and word_lengths >> (depth + 1)
            candidates = masks[node] & allowed[p] & (ALL_LETTERS if counts[0] else letters)
            lmul, cb, cmul = lm[p], cross_base[p], cross_mult[p]
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                c = low.bit_length() - 1
                child = arcs[node << 5 | c]
                if not (suffixes[child] << depth) & word_lengths:
                    continue
                v = values[c] * lmul
                cross_c = cross + (cb + v) * cmul
                real = counts[c]
                if real:
                    counts[c] -= 1
                    main_c = main + v
                    letters_c = letters if counts[c] else letters ^ low
                else:
                    counts[0] -= 1
                    main_c = main + v - values[c] + values[c | BLANK]
                    letters_c = letters
                placed.append((p, c))
                if follows:
                    # Through the board tiles after p.
                    r, n, main_r = _through_tiles(q, end, child, main_c, sq, arcs, values)
                    if n is not None:
                        d = r - start
                        if (suffixes[n] << d) & word_lengths:
                            if masks[n] & 1 and word_lengths >> d & 1:
                                record(d, main_r, cross_c)
                            if r < end and word_lengths >> (d + 1) and masks[n] & allowed[r] & (
                                ALL_LETTERS if counts[0] else letters_c
                            ) and reaches(r, n):
                                walk(r, n, main_r, cross_c, letters_c)
                else:
                    if ends_here and masks[child] & 1:
                        record(depth, main_c, cross_c)
                    if longer and masks[child] & allowed[q] & (ALL_LETTERS if counts[0] else letters_c) and (
                        (suffixes[child] >> 1) << (depth + 1)
                    ) & word_lengths and reaches(q, child):
                        walk(q, child, main_c, cross_c, letters_c)
                placed.pop()
                if real:
                    counts[c] += 1
                else:
                    counts[0] += 1

        # From the start: through the board tiles there, if any, to the first empty square.
        p, node, main = _through_tiles(start, end, 0, 0, sq, arcs, values)
        if node is not None and p < end and masks[node] & allowed[p] and reaches(p, node):
            walk(p, node, main, 0, self.letters)

    # -----------------------------------------------------------------------------------------------

    def plays(self) -> list[Play]:
        return [make_play(o, start, placed, score) for score, o, start, placed in self.found]


def _through_tiles(r: int, end: int, node, main: int, sq, arcs, values) -> tuple:
    """From square r, along the board tiles there up to the next empty square (or the lane's end): (the
    square reached, the node reached or None where no word goes on, the main word's sum so far).  The
    same walk as ``engine.kernel._through_tiles``."""
    while r < end:
        t = sq[r]
        if not t:
            break
        node = arcs.get(node << 5 | (t & LETTER_MASK))
        if node is None:
            break
        main += values[t]
        r += 1
    return r, node, main


def make_play(o: _Orientation, start: int, placed, score: int) -> Play:
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
        before, after = o.cross_word(p)
        if before or after:
            words.append(decode_word(before) + ch + decode_word(after))
    row, col = o.original(start)
    return Play(words[0], row, col, o.horizontal, score, tuple(placed_tiles), tuple(words))


def generate_plays(board, rack: str, lexicon, tileset, rules) -> list[Play]:
    """Every legal play of ``rack`` on ``board``, each distinct play once (see the module's docstring:
    plays differing only in which tile is a blank are distinct; a one-tile play forming words both ways
    is listed once, across).  Across plays first."""
    return _Search(board, rack, lexicon, tileset, rules).run_all().plays()


def count_plays(board, rack: str, lexicon, tileset, rules) -> int:
    """How many plays ``generate_plays`` lists, without building them."""
    return _Search(board, rack, lexicon, tileset, rules).run_count()


def score_spread(board, rack: str, lexicon, tileset, rules) -> dict[int, int]:
    """How many of the plays ``generate_plays`` lists score each score: {score: plays}, no Play built."""
    spread: dict[int, int] = {}
    for play in generate_plays(board, rack, lexicon, tileset, rules):
        spread[play.score] = spread.get(play.score, 0) + 1
    return spread


def best_plays(board, rack: str, lexicon, tileset, rules, n: int = 10) -> list[Play]:
    """The ``n`` best distinct plays and every play tied with the n-th: with the plays sorted by score,
    best first, the n-th play's score is the least kept, and every play scoring that much or more is
    kept (so more than ``n`` plays when the n-th is tied; fewer when fewer plays exist).  Distinct as in
    ``generate_plays`` (the module's docstring).  Sorted by score, best first, then by square (row,
    column), across before down, and word.  Found by a bounded search, as ``find_tops``."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    search = _Search(board, rack, lexicon, tileset, rules).run_best(n)
    return sorted(search.plays(), key=best_order)


def find_tops(board, rack: str, lexicon, tileset, rules) -> Tops:
    """The best score and every play that reaches it (score None when no play exists)."""
    search = _Search(board, rack, lexicon, tileset, rules).run_best(1)
    plays = search.plays()
    return Tops(search.threshold if plays else None, tuple(sorted(plays, key=play_order)))


def play_order(play: Play):
    return (play.row, play.col, not play.horizontal, play.word)


def best_order(play: Play):
    return (-play.score, play.row, play.col, not play.horizontal, play.word)
