"""The move search compiled with Numba: the same search as ``engine.movegen._Search`` (its board
analysis, windows, bounds, look-ahead, blank placings and best-first order), on flat arrays instead of
Python lists and dicts.

``engine.search`` imports this module on its first search, unless Numba is missing or the environment
says ``ARBITER_ENGINE=python``, and then runs ``best_plays``, ``find_tops``, ``count_plays`` and
``score_spread`` here; otherwise the pure-Python search (``engine.movegen``, the reference) runs.  Both
give the same plays: the tests run every reference position through each.  Numba's cache cannot hold a
recursive function, so every walk here keeps a stack of its own.

Arrays, all int64 unless said, grouped in NamedTuples (``Graph``, ``AnagramGraph``, ``BoardArrays``,
``RackArrays``):

* the word graph, int32 (held for the whole life of a process: half the memory of int64, and every node
  number and letter mask fits): ``arcs[node * 32 + c]`` the child or -1, ``masks``, ``lengths``
  (``engine.lexicon``), ``ahead[node, j]`` the letters some word has j letters after ``node``; the anagram
  graph likewise;
* a board's views (one row per direction): the squares, the cross-checks, cross-word base scores and
  multipliers, anchors, premium multipliers, ``need``/``next_need`` (``movegen._Orientation``), and the
  starts ((direction, square, reach), one per row of ``starts``);
* the rack: tile counts by letter code (index 0 the blanks) and tile values sorted, best first.

What a search finds comes back in ``found``, a flat list: for each play kept, its score, direction,
start square, number of new tiles, then (square, tile) for each new tile.
"""
from __future__ import annotations

import threading
import weakref
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import List

from .layout import SIZE
from .tiles import ALPHABET_SIZE

__all__ = [
    "BEST", "COUNT", "SPREAD", "AnagramGraph", "BoardArrays", "Graph", "RackArrays", "board_arrays",
    "lexicon_arrays", "rack_arrays", "search",
]

BLANK_BIT = 32
ALL_LETTERS = ((1 << ALPHABET_SIZE) - 1) & ~1  # bits 1..31: every tile code (engine.tiles)
AREA = SIZE * SIZE
COUNT, BEST, SPREAD = 0, 1, 2  # the searches: count the plays, keep the best, count them by score


def _jit(fn):
    # Compiled once per machine: the machine code is kept beside this file (or in NUMBA_CACHE_DIR).
    return njit(cache=True, nogil=True)(fn)


def _inline(fn):
    # As _jit, and compiled into each caller: what runs where a word ends reads its arrays from the
    # NamedTuples it is given, and a call of its own would count a reference for each.
    return njit(cache=True, nogil=True, inline="always")(fn)


# The index of the only bit set in a power of two below 2**36: powers of two are distinct mod 37.
_BIT_INDEX = np.zeros(37, dtype=np.int64)
for _i in range(36):
    _BIT_INDEX[(1 << _i) % 37] = _i
# _SUBSETS[b, n]: the ways of choosing at most b of n new tiles to be blanks; _COMB[m, k].
_SUBSETS = np.array([[sum(comb(n, k) for k in range(b + 1)) for n in range(SIZE + 1)] for b in range(8)],
                    dtype=np.int64)
_COMB = np.array([[comb(m, k) for k in range(SIZE + 1)] for m in range(SIZE + 1)], dtype=np.int64)


# ---------------------------------------------------------------------------------------------------
# Arrays from the Python structures (made once per lexicon, once per board analysis)


# The compiled functions take these NamedTuples whole (Numba compiles them as tuples of typed fields):
# what travels together has one name, and each function reads the fields it needs.


class Graph(NamedTuple):
    """The lexicon's word graph (int32): ``arcs[node * 32 + c]`` the child or -1, ``masks``, ``lengths``
    (``engine.lexicon``), ``ahead[node, j]`` the letters some word has j letters after ``node``."""

    arcs: np.ndarray
    masks: np.ndarray
    lengths: np.ndarray
    ahead: np.ndarray


class AnagramGraph(NamedTuple):
    """The lexicon's anagram graph (int32), as ``Graph`` without ``ahead``."""

    arcs: np.ndarray
    masks: np.ndarray
    lengths: np.ndarray


class BoardArrays(NamedTuple):
    """What a search needs of a board, one row per direction (``movegen._Orientation``'s lists): the
    view's squares, the cross-checks, cross-word base scores and multipliers, anchors, premium
    multipliers, ``need``/``next_need``, whether a one-tile play is named across only (one per
    direction), and the starts ((direction, square, reach), one per row)."""

    squares: np.ndarray
    allowed: np.ndarray
    cross_base: np.ndarray
    cross_mult: np.ndarray
    anchor: np.ndarray
    letter_mult: np.ndarray
    word_mult: np.ndarray
    need: np.ndarray
    next_need: np.ndarray
    single_named: np.ndarray
    starts: np.ndarray


class RackArrays(NamedTuple):
    """The rack and what scores it: its tiles by letter code (index 0 the blanks), its tiles' values best
    first, every tile's value (by tile code), the rules' tiles earning the bingo bonus (``rack_size``: 7),
    the bingo bonus, the bonus for one tile more (7 et 8) and the most tiles a play may place."""

    counts: np.ndarray
    rack_values: np.ndarray
    values: np.ndarray
    rack_size: int
    bingo: int
    big_bingo: int
    max_placed: int


class _Walk(NamedTuple):
    """What the walks of one search share: the search (``mode``, ``n``), the rack as dealt, its blanks and
    what the walk has left of it (``counts``), the tiles' values, the new tiles of the play being walked (squares,
    letters; ``tiles`` the same with the blanks marked), a tally by letter, and what is kept: ``found``,
    ``heap`` (the n best scores, or SPREAD's counts by score), ``state``."""

    mode: int
    n: int
    rack: np.ndarray
    blanks: int
    counts: np.ndarray
    values: np.ndarray
    placed_sq: np.ndarray
    placed_c: np.ndarray
    tiles: np.ndarray
    tally: np.ndarray
    found: object
    heap: np.ndarray
    state: np.ndarray


class _Unit(NamedTuple):
    """A start walked: its direction, square, the end of its lane, the word lengths of its windows worth
    walking (bit per length), and each length's word multiplier and bonus."""

    o: int
    start: int
    end: int
    word_lengths: int
    word_mult: np.ndarray
    bonus: np.ndarray


class _Windows(NamedTuple):
    """Every start's windows, one row per start: bound, length, word multiplier, bonus, whether it takes
    the whole rack (then the board letters inside are in ``fixed``, their count in fixed[u, SIZE]), and
    how many."""

    bound: np.ndarray
    length: np.ndarray
    mult: np.ndarray
    bonus: np.ndarray
    whole: np.ndarray
    fixed: np.ndarray
    count: np.ndarray


class LexiconArrays:
    """A lexicon's word graph and anagram graph as arrays."""

    __slots__ = ("graph", "anagrams")

    def __init__(self, lexicon):
        arcs, masks, lengths = _graph_arrays(lexicon.masks, lexicon.arcs, lexicon.lengths)
        self.graph = Graph(arcs, masks, lengths, _ahead_table(arcs, masks, len(lexicon.arcs)))
        self.anagrams = AnagramGraph(*_graph_arrays(*lexicon._anagrams))


def _graph_arrays(masks, arcs, lengths):
    n = len(masks)
    dense = np.full(n * 32, -1, dtype=np.int32)
    keys = np.fromiter(arcs.keys(), dtype=np.int64, count=len(arcs))
    dense[keys] = np.fromiter(arcs.values(), dtype=np.int32, count=len(arcs))
    return dense, np.array(masks, dtype=np.int32), np.array(lengths, dtype=np.int32)


@_jit
def _ahead_table(arcs, masks, n_arcs):
    """ahead[node, j]: the letters some word has j letters after ``node`` (movegen._ahead, one column per
    j): children before parents, by a depth-first walk of the graph."""
    n = masks.shape[0]
    ahead = np.zeros((n, SIZE), dtype=np.int32)
    done = np.zeros(n, dtype=np.uint8)
    # Each node is expanded once (the graph has no cycle): at most one entry per arc, two per node.
    stack = np.empty(n_arcs + 2 * n + 2, dtype=np.int64)  # node * 2 + 1 once its children are done
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        entry = stack[sp]
        node = entry >> 1
        if done[node]:
            continue
        letters = masks[node] & ALL_LETTERS
        if entry & 1:
            ahead[node, 0] = letters
            while letters:
                low = letters & -letters
                letters ^= low
                kid = arcs[node * 32 + _low_index(low)]
                for j in range(1, SIZE):
                    ahead[node, j] |= ahead[kid, j - 1]
            done[node] = 1
        else:
            stack[sp] = node * 2 + 1
            sp += 1
            while letters:
                low = letters & -letters
                letters ^= low
                kid = arcs[node * 32 + _low_index(low)]
                if not done[kid]:
                    stack[sp] = kid * 2
                    sp += 1
    return ahead


_lexicon_arrays: dict = {}
_lexicon_lock = threading.Lock()


def lexicon_arrays(lexicon) -> LexiconArrays:
    """The lexicon's arrays, made once per lexicon and process."""
    key = id(lexicon)
    with _lexicon_lock:
        known = _lexicon_arrays.get(key)
        if known is not None and known[0]() is lexicon:
            return known[1]
    made = LexiconArrays(lexicon)
    with _lexicon_lock:
        _lexicon_arrays[key] = (weakref.ref(lexicon), made)
    return made


def board_arrays(views, first_move: bool, centres, letter_mult, word_mult, single_named, graph: Graph,
                 values) -> BoardArrays:
    """What a search needs of a board (``views``: the board's view in each direction, one row each)."""
    rows = views.shape[0]
    allowed, cross_base, cross_mult, anchor, need, next_need = (np.zeros((rows, AREA), dtype=np.int64) for _ in range(6))
    board = BoardArrays(views, allowed, cross_base, cross_mult, anchor, letter_mult, word_mult, need, next_need,
                        single_named, np.zeros((rows * AREA, 3), dtype=np.int64))
    n_starts = _analyse(board, first_move, centres, graph, values)
    return board._replace(starts=board.starts[:n_starts].copy())


def rack_arrays(counts, rack_values, values, rack_size: int, bingo: int, big_bingo: int = 0,
                max_placed: int = 7) -> RackArrays:
    return RackArrays(np.array(counts, dtype=np.int64), np.array(rack_values, dtype=np.int64),
                      np.array(values, dtype=np.int64), rack_size, bingo, big_bingo, max_placed)


# ---------------------------------------------------------------------------------------------------
# The compiled search


@_jit
def _analyse(bd, first_move, centres, graph, values):
    """movegen._Orientation for each view: cross-checks, cross-word base scores and multipliers, anchors,
    need/next_need and the starts (into the arrays of ``bd``; how many starts)."""
    views, allowed, cross_base, cross_mult, anchor = bd.squares, bd.allowed, bd.cross_base, bd.cross_mult, bd.anchor
    word_mult, need, next_need, starts = bd.word_mult, bd.need, bd.next_need, bd.starts
    arcs, masks = graph.arcs, graph.masks
    n_starts = 0
    for o in range(views.shape[0]):
        sq = views[o]
        for i in range(AREA):
            cross_base[o, i] = -1
            allowed[o, i] = ALL_LETTERS if first_move or sq[i] == 0 else 0
            anchor[o, i] = 0
        if first_move:
            anchor[o, centres[o]] = 1
        else:
            for i in range(AREA):
                if sq[i]:
                    continue
                position = i % SIZE
                up = i >= SIZE and sq[i - SIZE] != 0
                down = i + SIZE < AREA and sq[i + SIZE] != 0
                if not (up or down or (position > 0 and sq[i - 1] != 0) or (position < SIZE - 1 and sq[i + 1] != 0)):
                    continue
                anchor[o, i] = 1
                if not (up or down):
                    continue
                # The cross-word's letters before and after i, and which letters may stand between.
                first = i
                while first >= SIZE and sq[first - SIZE]:
                    first -= SIZE
                node = 0
                base = 0
                j = first
                while j < i:
                    if node >= 0:
                        node = arcs[node * 32 + (sq[j] & 31)]
                    base += values[sq[j]]
                    j += SIZE
                j = i + SIZE
                while j < AREA and sq[j]:
                    base += values[sq[j]]
                    j += SIZE
                cross_base[o, i] = base
                mask = 0
                if node >= 0:
                    letters = masks[node] & ALL_LETTERS
                    while letters:
                        low = letters & -letters
                        letters ^= low
                        c = _low_index(low)
                        m = arcs[node * 32 + c]
                        j = i + SIZE
                        while j < AREA and sq[j] and m >= 0:
                            m = arcs[m * 32 + (sq[j] & 31)]
                            j += SIZE
                        if m >= 0 and masks[m] & 1:
                            mask |= low
                allowed[o, i] = mask
        for i in range(AREA):
            cross_mult[o, i] = word_mult[o, i] if cross_base[o, i] >= 0 else 0
            need[o, i] = (1 << (sq[i] & 31)) if sq[i] else allowed[o, i]
        for row_end in range(SIZE, AREA + 1, SIZE):
            k = AREA
            for i in range(row_end - 1, row_end - SIZE - 1, -1):
                if sq[i] or allowed[o, i] != ALL_LETTERS:
                    k = i
                next_need[o, i] = k
        # The starts: (direction, square, how many empty squares from it up to the row's next anchor).
        for row_start in range(0, AREA, SIZE):
            after = AREA
            first_start = n_starts
            for i in range(row_start + SIZE - 1, row_start - 1, -1):
                if sq[i]:
                    after = 0
                elif anchor[o, i]:
                    after = 1
                elif after < AREA:
                    after += 1
                if after < AREA and (i == row_start or sq[i - 1] == 0):
                    starts[n_starts, 0] = o
                    starts[n_starts, 1] = i
                    starts[n_starts, 2] = after
                    n_starts += 1
            # In the row's order, as movegen lists them.
            lo, hi = first_start, n_starts - 1
            while lo < hi:
                for k in range(3):
                    starts[lo, k], starts[hi, k] = starts[hi, k], starts[lo, k]
                lo += 1
                hi -= 1
    return n_starts


@_jit
def _low_index(low):
    return _BIT_INDEX[low % 37]


@_jit
def _has_anagram(counts, total, anagrams):
    """engine.lexicon.Lexicon.has_anagram on arrays, with a stack of its own (Numba's cache cannot hold a
    recursive function): whether some word is made of exactly ``counts`` (``total`` tiles, at least one).
    ``counts`` is left changed."""
    aarcs, amasks, alengths = anagrams.arcs, anagrams.masks, anagrams.lengths
    f_node = np.zeros(total + 1, dtype=np.int64)
    f_remaining = np.zeros(total + 1, dtype=np.int64)
    f_next = np.zeros(total + 1, dtype=np.int64)  # the next letter to try
    f_top = np.zeros(total + 1, dtype=np.int64)
    f_real = np.zeros(total + 1, dtype=np.int64)  # the smallest real tile left
    f_use = np.full(total + 1, -1, dtype=np.int64)  # the tile taken for the letter tried, -1 none
    sp = 0
    node, lowest, remaining = 0, 1, total
    while True:
        # A frame: keys are sorted, so the next letter is at least ``lowest`` and at most the smallest
        # real tile left (a letter skipped now could never be placed); letters below that take a blank.
        real = lowest
        while real < ALPHABET_SIZE and counts[real] == 0:
            real += 1
        top = real if real < ALPHABET_SIZE else ALPHABET_SIZE - 1
        f_node[sp], f_remaining[sp], f_top[sp], f_real[sp] = node, remaining, top, real
        f_next[sp] = lowest if counts[0] > 0 else top
        f_use[sp] = -1
        pushed = False
        while sp >= 0 and not pushed:
            if f_use[sp] >= 0:
                counts[f_use[sp]] += 1
                f_use[sp] = -1
            node = f_node[sp]
            left = f_remaining[sp] - 1
            while f_next[sp] <= f_top[sp]:
                c = f_next[sp]
                f_next[sp] = c + 1
                if not (amasks[node] >> c) & 1:
                    continue
                child = aarcs[node * 32 + c]
                if not (alengths[child] >> left) & 1:
                    continue
                if left == 0:
                    if amasks[child] & 1:
                        return True
                    continue
                use = c if c == f_real[sp] else 0
                counts[use] -= 1
                f_use[sp] = use
                node, lowest, remaining = child, c, left
                sp += 1
                pushed = True
                break
            if not pushed:
                sp -= 1
        if not pushed:
            return False


@_inline
def _keep(score, o, start, n_placed, walk):
    found, heap, state, n = walk.found, walk.heap, walk.state, walk.n
    found.append(score)
    found.append(o)
    found.append(start)
    found.append(n_placed)
    for i in range(n_placed):
        found.append(walk.placed_sq[i])
        found.append(walk.tiles[i])
    # heap: the n best scores so far, a min-heap of state[2] entries; state[0] the n-th best.
    size = state[2]
    if size < n:
        i = size
        heap[i] = score
        while i > 0:
            parent = (i - 1) >> 1
            if heap[parent] <= heap[i]:
                break
            heap[parent], heap[i] = heap[i], heap[parent]
            i = parent
        state[2] = size + 1
        if size + 1 == n:
            state[0] = heap[0]
    elif score > heap[0]:
        heap[0] = score
        i = 0
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and heap[child + 1] < heap[child]:
                child += 1
            if heap[i] <= heap[child]:
                break
            heap[i], heap[child] = heap[child], heap[i]
            i = child
        state[0] = heap[0]


@_inline
def _keep_or_tally(score, o, start, n_placed, walk):
    # SPREAD: ``heap`` counts the plays by score, sized by the best bound (state[1] -1 if one were above).
    if walk.mode == SPREAD:
        heap = walk.heap
        if 0 <= score < heap.shape[0]:
            heap[score] += 1
        else:
            walk.state[1] = -1
    else:
        _keep(score, o, start, n_placed, walk)
    return 0


@_jit
def _assign(score, wmul, unit, n_placed, real, bd, walk):
    """Every placing of the blanks that the rack allows for the letters placed, real tiles first, each kept
    if it reaches the n-th best score (a stack of its own: Numba's cache cannot hold a recursive
    function).  ``real``: the rack's real tiles not yet given a letter."""
    o, start = unit.o, unit.start
    placed_sq, placed_c, tiles, state, values = walk.placed_sq, walk.placed_c, walk.tiles, walk.state, walk.values
    lm, cm = bd.letter_mult, bd.cross_mult
    choice = np.zeros(n_placed + 1, dtype=np.int64)  # 0 untried, 1 the real tile taken, 2 a blank
    loss = np.zeros(n_placed + 1, dtype=np.int64)  # points lost to the blanks before tile i
    left = np.zeros(n_placed + 1, dtype=np.int64)  # blanks left before tile i
    left[0] = walk.rack[0]
    i = 0
    while i >= 0:
        if score - loss[i] < state[0]:
            i -= 1  # every placing from here scores less
            continue
        if i == n_placed:
            _keep_or_tally(score - loss[i], o, start, n_placed, walk)
            i -= 1
            continue
        c = placed_c[i]
        tried = choice[i]
        if tried == 1:
            real[c] += 1
        if tried == 0 and real[c] > 0:
            real[c] -= 1
            choice[i] = 1
            tiles[i] = c
            loss[i + 1] = loss[i]
            left[i + 1] = left[i]
        elif tried <= 1 and left[i] > 0:
            p = placed_sq[i]
            choice[i] = 2
            tiles[i] = c | BLANK_BIT
            loss[i + 1] = loss[i] + (values[c] - values[c | BLANK_BIT]) * lm[o, p] * (wmul + cm[o, p])
            left[i + 1] = left[i] - 1
        else:
            choice[i] = 0
            i -= 1
            continue
        i += 1
        choice[i] = 0
    return 0


@_inline
def _record(depth, main, cross, word_mult, bonus, unit, n_placed, bd, walk):
    """Where a word ends (``depth`` letters long, its main-word letters' sum, its cross-words' score):
    the plays counted (mode COUNT), or those reaching the n-th best score kept (0 counted).  (Each array
    is read from its NamedTuple only where it is used: a read costs a reference count, and most words
    end here.)"""
    mode, blanks = walk.mode, walk.blanks
    score = main * word_mult[depth] + cross + bonus[depth]  # the most any placing of the blanks scores
    if mode == BEST:
        if score < walk.state[0]:
            return 0
    o = unit.o
    if n_placed == 1 and bd.single_named[o] and bd.cross_base[o, walk.placed_sq[0]] >= 0:
        return 0  # a one-tile play forming a word across too is named across
    if mode == COUNT:
        if blanks == 0:
            return 1
        if walk.counts[0] == blanks:  # no blank needed: any of the new tiles may be one
            return _SUBSETS[blanks, n_placed]
        else:
            # At least the missing tiles of each letter are blanks, at most the blanks held.
            rack, tally, placed_c = walk.rack, walk.tally, walk.placed_c
            for i in range(n_placed):
                tally[placed_c[i]] += 1
            ways = np.zeros(blanks + 1, dtype=np.int64)
            ways[0] = 1
            for i in range(n_placed):
                c = placed_c[i]
                m = tally[c]
                if m == 0:
                    continue
                tally[c] = 0
                lowest = m - rack[c] if m > rack[c] else 0
                nxt = np.zeros(blanks + 1, dtype=np.int64)
                for k in range(blanks + 1):
                    for j in range(k + 1):
                        if lowest <= k - j <= m:
                            nxt[k] += ways[j] * _COMB[m, k - j]
                ways = nxt
            return ways.sum()
    rack, start, placed_c = walk.rack, unit.start, walk.placed_c
    if blanks == 0:
        tiles = walk.tiles
        for i in range(n_placed):
            tiles[i] = placed_c[i]
        _keep_or_tally(score, o, start, n_placed, walk)
        return 0
    wmul = word_mult[depth]
    if walk.counts[0] != blanks:
        # The walk took each needed blank's letter value off the main word's sum: every tile a real one.
        tally, values = walk.tally, walk.values
        extra = 0
        for i in range(n_placed):
            c = placed_c[i]
            tally[c] += 1
            if tally[c] > rack[c]:
                extra += values[c] - values[c | BLANK_BIT]
        for i in range(n_placed):
            tally[placed_c[i]] = 0
        score += extra * wmul
    _assign(score, wmul, unit, n_placed, rack.copy(), bd, walk)
    return 0


@_jit
def _through_tiles(r, end, node, main, sq, arcs, values):
    """From square r, along the board tiles there up to the next empty square (or the lane's end):
    (the square reached, the node reached or -1 where no word goes on, the main word's sum so far).
    The same walk as ``movegen._through_tiles``; ``sq``: the squares of the view walked."""
    while r < end:
        t = sq[r]
        if t == 0:
            break
        node = arcs[node * 32 + (t & 31)]
        if node < 0:
            break
        main += values[t]
        r += 1
    return r, node, main


@_jit
def _reaches(q, node, start, end, word_lengths, ahead, need, next_need, o):
    # Whether the word, going on from ``node`` on square q, can pass the squares ahead that not every
    # letter can fill, as far as every window still open goes.  (Arrays, not the NamedTuples holding
    # them: a step takes it, and each array read from a NamedTuple costs a reference count.)
    later = word_lengths >> (q - start + 1)
    if later == 0:
        return True
    last = q + _low_index(later & -later)
    k = next_need[o, q]
    while k <= last:
        if not ahead[node, k - q] & need[o, k]:
            return False
        k = next_need[o, k + 1] if k + 1 < end else end
    return True


@_jit
def _walk(p0, node0, main0, letters0, unit, graph, bd, walk):
    """movegen._Search.walk_from's walk, from the empty square p0 where some letter of node0's arcs may
    stand, with a stack of its own (Numba's cache cannot hold a recursive function): frame f places the
    (f+1)-th new tile."""
    arcs, masks, suffixes, ahead = graph.arcs, graph.masks, graph.lengths, graph.ahead
    o, start, end, word_lengths = unit.o, unit.start, unit.end, unit.word_lengths
    word_mult, bonus = unit.word_mult, unit.bonus
    sq, allowed, cross_base, cross_mult, lm = bd.squares[o], bd.allowed, bd.cross_base, bd.cross_mult, bd.letter_mult
    counts, values, placed_sq, placed_c = walk.counts, walk.values, walk.placed_sq, walk.placed_c
    need, next_need = bd.need, bd.next_need
    f_p = np.zeros(SIZE + 1, dtype=np.int64)
    f_node = np.zeros(SIZE + 1, dtype=np.int64)
    f_main = np.zeros(SIZE + 1, dtype=np.int64)
    f_cross = np.zeros(SIZE + 1, dtype=np.int64)
    f_letters = np.zeros(SIZE + 1, dtype=np.int64)
    f_candidates = np.zeros(SIZE + 1, dtype=np.int64)
    f_letter = np.zeros(SIZE + 1, dtype=np.int64)  # the letter placed now, 0 none
    f_real = np.zeros(SIZE + 1, dtype=np.int64)  # whether it is a real tile (else a blank)
    f = 0
    f_p[0], f_node[0], f_main[0], f_cross[0], f_letters[0] = p0, node0, main0, 0, letters0
    f_candidates[0] = masks[node0] & allowed[o, p0] & (ALL_LETTERS if counts[0] > 0 else letters0)
    f_letter[0] = 0
    counted = 0  # the plays counted (mode COUNT)
    while f >= 0:
        c = f_letter[f]
        if c:  # take back the tile placed last on this frame's square
            if f_real[f]:
                counts[c] += 1
            else:
                counts[0] += 1
            f_letter[f] = 0
        candidates = f_candidates[f]
        if candidates == 0:
            f -= 1
            continue
        p, node, main, cross, letters = f_p[f], f_node[f], f_main[f], f_cross[f], f_letters[f]
        depth = p - start + 1  # the word's length with a tile on p
        q = p + 1
        follows = q < end and sq[q] != 0  # a board tile right after p: the word goes on through it
        low = candidates & -candidates
        f_candidates[f] = candidates ^ low
        c = _low_index(low)
        child = arcs[node * 32 + c]
        if not (suffixes[child] << depth) & word_lengths:
            continue
        lmul = lm[o, p]
        v = values[c] * lmul
        cross_c = cross + (cross_base[o, p] + v) * cross_mult[o, p]
        if counts[c] > 0:
            counts[c] -= 1
            f_real[f] = 1
            main_c = main + v
            letters_c = letters if counts[c] > 0 else letters ^ low
        else:
            counts[0] -= 1
            f_real[f] = 0
            main_c = main + v - values[c] + values[c | BLANK_BIT]
            letters_c = letters
        f_letter[f] = c
        placed_sq[f] = p
        placed_c[f] = c
        n_placed = f + 1
        next_p = -1
        if follows:
            # Through the board tiles after p.
            r, m, main_r = _through_tiles(q, end, child, main_c, sq, arcs, values)
            if m >= 0:
                d = r - start
                if (suffixes[m] << d) & word_lengths:
                    if (masks[m] & 1) != 0 and ((word_lengths >> d) & 1) != 0:
                        counted += _record(d, main_r, cross_c, word_mult, bonus, unit, n_placed, bd, walk)
                    if r < end and (word_lengths >> (d + 1)) != 0 and (masks[m] & allowed[o, r] & (
                        ALL_LETTERS if counts[0] > 0 else letters_c
                    )) != 0 and _reaches(r, m, start, end, word_lengths, ahead, need, next_need, o):
                        next_p, next_node, next_main = r, m, main_r
        else:
            if ((word_lengths >> depth) & 1) != 0 and (masks[child] & 1) != 0:
                counted += _record(depth, main_c, cross_c, word_mult, bonus, unit, n_placed, bd, walk)
            if q < end and (word_lengths >> (depth + 1)) != 0 and (
                masks[child] & allowed[o, q] & (ALL_LETTERS if counts[0] > 0 else letters_c)
            ) != 0 and (((suffixes[child] >> 1) << (depth + 1)) & word_lengths) != 0 and _reaches(
                q, child, start, end, word_lengths, ahead, need, next_need, o
            ):
                next_p, next_node, next_main = q, child, main_c
        if next_p >= 0:
            f += 1
            f_p[f], f_node[f], f_main[f], f_cross[f], f_letters[f] = next_p, next_node, next_main, cross_c, letters_c
            f_candidates[f] = masks[next_node] & allowed[o, next_p] & (ALL_LETTERS if counts[0] > 0 else letters_c)
            f_letter[f] = 0
    walk.state[1] += counted
    return 0


@_jit
def _windows(bd, rack, rack_len, avail, with_bounds, windows, u_bound):
    """movegen._Search.windows for every start within the rack's reach: start u's windows into row u of
    ``windows``, their best bound into u_bound[u] (-1 with none).  (One call for every start: each array
    read from a NamedTuple costs a reference count.)"""
    values, rack_values, rack_size, bingo = rack.values, rack.rack_values, rack.rack_size, rack.bingo
    most = min(rack_len, rack.max_placed)
    sq, allowed, cross_base, cross_mult, anchor = bd.squares, bd.allowed, bd.cross_base, bd.cross_mult, bd.anchor
    lm, wm, starts = bd.letter_mult, bd.word_mult, bd.starts
    w_bound, w_len, w_mult, w_bonus = windows.bound, windows.length, windows.mult, windows.bonus
    w_whole, fixed, w_count = windows.whole, windows.fixed, windows.count
    coefficients = np.empty(SIZE, dtype=np.int64)
    letter_mults = np.empty(SIZE, dtype=np.int64)
    cross_mults = np.empty(SIZE, dtype=np.int64)
    for u in range(starts.shape[0]):
        o, start, reach = starts[u, 0], starts[u, 1], starts[u, 2]
        if reach > most:
            continue
        row_end = start - start % SIZE + SIZE
        count = 0
        new = 0
        board_sum = 0
        cross_sum = 0
        wmul = 1
        hooked = False
        n_fixed = 0
        for e in range(start, row_end):
            t = sq[o, e]
            if t:
                board_sum += values[t]
                hooked = True
                fixed[u, n_fixed] = t & 31
                n_fixed += 1
            else:
                if new == most or not allowed[o, e] & avail:
                    break
                letter_mults[new] = lm[o, e]
                cross_mults[new] = cross_mult[o, e]
                new += 1
                if anchor[o, e]:
                    hooked = True
                wmul *= wm[o, e]
                cross_sum += cross_base[o, e] * cross_mult[o, e]
            if not hooked or e == start or (e + 1 < row_end and sq[o, e + 1]) or new == 0:
                continue
            bonus = bingo if new == rack_size else (rack.big_bingo if new == rack_size + 1 else 0)
            bound = 0
            if with_bounds:
                # Rack values (best first) paired with the squares' coefficients best first.
                for i in range(new):
                    coefficients[i] = letter_mults[i] * (wmul + cross_mults[i])
                coefficients[:new].sort()
                bound = wmul * board_sum + cross_sum + bonus
                for i in range(new):
                    bound += coefficients[new - 1 - i] * rack_values[i]
            w_bound[u, count] = bound
            w_len[u, count] = e - start + 1
            w_mult[u, count] = wmul
            w_bonus[u, count] = bonus
            w_whole[u, count] = 1 if new == rack_len else 0
            if new == rack_len:
                fixed[u, SIZE] = n_fixed
            count += 1
        w_count[u] = count
        if count:
            u_bound[u] = w_bound[u, :count].max()


@_jit
def search(mode, n, graph, anagrams, bd, rack, state):
    """Count the plays (mode COUNT: the total in state[1]), keep those reaching the n-th best score
    (mode BEST: in ``found``, the n-th best score in state[0]), or count the plays by score (mode SPREAD:
    the counts indexed by score come back instead of ``found``).  ``graph``, ``anagrams``: the lexicon's
    (``Graph``, ``AnagramGraph``); ``bd``: the board's ``BoardArrays``; ``rack``: ``RackArrays``."""
    starts = bd.starts
    found = List.empty_list(types.int64)
    counts = rack.counts
    blanks = counts[0]
    rack_len = 0
    letters = 0
    for c in range(ALPHABET_SIZE):
        rack_len += counts[c]
        if c > 0 and counts[c] > 0:
            letters |= 1 << c
    avail = ALL_LETTERS if blanks > 0 else letters
    with_bounds = mode != COUNT
    units = starts.shape[0]
    windows = _Windows(
        np.zeros((units, SIZE), dtype=np.int64),
        np.zeros((units, SIZE), dtype=np.int64),
        np.zeros((units, SIZE), dtype=np.int64),
        np.zeros((units, SIZE), dtype=np.int64),
        np.zeros((units, SIZE), dtype=np.int64),
        np.zeros((units, SIZE + 1), dtype=np.int64),
        np.zeros(units, dtype=np.int64),
    )
    u_bound = np.full(units, -1, dtype=np.int64)
    _windows(bd, rack, rack_len, avail, with_bounds, windows, u_bound)
    order = np.argsort(-u_bound, kind="mergesort") if with_bounds else np.arange(units)
    if mode == SPREAD:
        heap = np.zeros(max(u_bound.max(), 0) + 1 if units else 1, dtype=np.int64)
    else:
        heap = np.zeros(max(n, 1), dtype=np.int64)
    walk = _Walk(mode, n, counts, blanks, counts.copy(), rack.values, np.zeros(SIZE, dtype=np.int64),
                 np.zeros(SIZE, dtype=np.int64), np.zeros(SIZE, dtype=np.int64), np.zeros(ALPHABET_SIZE, dtype=np.int64), found,
                 heap, state)
    word_mult = np.zeros(SIZE + 1, dtype=np.int64)
    bonus = np.zeros(SIZE + 1, dtype=np.int64)
    anagram_counts = np.zeros(ALPHABET_SIZE, dtype=np.int64)
    arcs, masks = graph.arcs, graph.masks
    anagram_known = dict()  # the board letters of a whole-rack window (sorted, 5 bits each) -> an anagram?
    anagram_known[-1] = True  # (a first entry gives the dictionary its types; no key is negative)
    for u in order:
        k = windows.count[u]
        if k == 0:
            continue
        if mode == BEST and u_bound[u] < state[0]:
            break  # the starts come best bound first: none left can reach the n-th best score
        o, start = starts[u, 0], starts[u, 1]
        word_lengths = 0
        for w in range(k):
            if mode == BEST and windows.bound[u, w] < state[0]:
                continue
            if windows.whole[u, w]:
                # A play of the whole rack through these board letters needs a word made of them all.
                n_fixed = windows.fixed[u, SIZE]
                key = 0
                sorted_fixed = np.sort(windows.fixed[u, :n_fixed])
                for i in range(n_fixed):
                    key = key * 32 + sorted_fixed[i]
                if key in anagram_known:
                    ok = anagram_known[key]
                else:
                    for c in range(ALPHABET_SIZE):
                        anagram_counts[c] = counts[c]
                    for i in range(n_fixed):
                        anagram_counts[sorted_fixed[i]] += 1
                    ok = _has_anagram(anagram_counts, rack_len + n_fixed, anagrams)
                    anagram_known[key] = ok
                if not ok:
                    continue
            length = windows.length[u, w]
            word_lengths |= 1 << length
            word_mult[length] = windows.mult[u, w]
            bonus[length] = windows.bonus[u, w]
        if word_lengths == 0:
            continue
        unit = _Unit(o, start, start - start % SIZE + SIZE, word_lengths, word_mult, bonus)
        # From the start: through the board tiles there, if any, to the first empty square.
        p, node, main = _through_tiles(start, unit.end, 0, 0, bd.squares[o], arcs, rack.values)
        if node >= 0 and p < unit.end and (masks[node] & bd.allowed[o, p]) != 0 and _reaches(
            p, node, start, unit.end, word_lengths, graph.ahead, bd.need, bd.next_need, o
        ):
            _walk(p, node, main, letters, unit, graph, bd, walk)
    if mode == SPREAD:
        return heap
    out = np.empty(len(found), dtype=np.int64)
    for i in range(len(found)):
        out[i] = found[i]
    return out
