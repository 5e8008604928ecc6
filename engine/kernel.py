"""The move search compiled with Numba: the same search as ``engine.movegen._Search`` (its board
analysis, windows, bounds, look-ahead, blank placings and best-first order), on flat arrays instead of
Python lists and dicts.

``engine.movegen`` imports this module on its first search, unless Numba is missing or the environment
says ``ARBITER_ENGINE=python``, and then runs ``best_plays``, ``find_tops`` and ``count_plays`` here;
otherwise the pure-Python search runs.  Both give the same plays: the tests run every reference position
through each.  Numba's cache cannot hold a recursive function, so every walk here keeps a stack of its
own.

Arrays, all int64 unless said:

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

import numpy as np
from numba import njit, types
from numba.typed import List

from .layout import SIZE

__all__ = ["BEST", "COUNT", "SPREAD", "board_arrays", "lexicon_arrays", "rack_arrays", "search"]

BLANK_BIT = 32
ALL_LETTERS = ((1 << 27) - 1) & ~1
AREA = SIZE * SIZE
COUNT, BEST, SPREAD = 0, 1, 2  # the searches: count the plays, keep the best, count them by score


def _jit(fn):
    # Compiled once per machine: the machine code is kept beside this file (or in NUMBA_CACHE_DIR).
    return njit(cache=True, nogil=True)(fn)


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


class LexiconArrays:
    """A lexicon's word graph and anagram graph as arrays (``graph``: arcs, masks, lengths, ahead)."""

    __slots__ = ("graph", "anagrams")

    def __init__(self, lexicon):
        arcs, masks, lengths = _graph_arrays(lexicon.masks, lexicon.arcs, lexicon.lengths)
        self.graph = (arcs, masks, lengths, _ahead_table(arcs, masks, len(lexicon.arcs)))
        self.anagrams = _graph_arrays(*lexicon._anagrams)


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


def board_arrays(views, first_move: bool, centres, letter_mult, word_mult, single_named, graph, values) -> tuple:
    """What a search needs of a board, one row per direction (``views``: the board's view in each):
    its squares, the cross-checks and the rest as in ``movegen._Orientation``, and the starts."""
    rows = views.shape[0]
    allowed, cross_base, cross_mult, anchor, need, next_need = (np.zeros((rows, AREA), dtype=np.int64) for _ in range(6))
    starts = np.zeros((rows * AREA, 3), dtype=np.int64)
    n_starts = _analyse(views, first_move, centres, graph[0], graph[1], values, word_mult, allowed, cross_base,
                        cross_mult, anchor, need, next_need, starts)
    return (views, allowed, cross_base, cross_mult, anchor, letter_mult, word_mult, need, next_need, single_named,
            starts[:n_starts].copy())


def rack_arrays(counts, rack_values, values) -> tuple:
    return (np.array(counts, dtype=np.int64), np.array(rack_values, dtype=np.int64),
            np.array(values, dtype=np.int64))


# ---------------------------------------------------------------------------------------------------
# The compiled search


@_jit
def _analyse(views, first_move, centres, arcs, masks, values, word_mult, allowed, cross_base, cross_mult, anchor,
             need, next_need, starts):
    """movegen._Orientation for each view: cross-checks, cross-word base scores and multipliers, anchors,
    need/next_need and the starts (into ``starts``; how many)."""
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
def _has_anagram(counts, total, amasks, aarcs, alengths):
    """engine.lexicon.Lexicon.has_anagram on arrays, with a stack of its own (Numba's cache cannot hold a
    recursive function): whether some word is made of exactly ``counts`` (``total`` tiles, at least one).
    ``counts`` is left changed."""
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
        while real < 27 and counts[real] == 0:
            real += 1
        top = real if real < 27 else 26
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


@_jit
def _keep(score, o, start, n_placed, placed_sq, tiles, found, heap, state, n):
    found.append(score)
    found.append(o)
    found.append(start)
    found.append(n_placed)
    for i in range(n_placed):
        found.append(placed_sq[i])
        found.append(tiles[i])
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


@_jit
def _keep_or_tally(mode, score, o, start, n_placed, placed_sq, tiles, found, heap, state, n):
    # SPREAD: ``heap`` counts the plays by score, sized by the best bound (state[1] -1 if one were above).
    if mode == SPREAD:
        if 0 <= score < heap.shape[0]:
            heap[score] += 1
        else:
            state[1] = -1
    else:
        _keep(score, o, start, n_placed, placed_sq, tiles, found, heap, state, n)
    return 0


@_jit
def _assign(mode, blanks, score, wmul, o, start, n_placed, placed_sq, placed_c, tiles, real, values, lm, cm, found,
             heap, state, n):
    """Every placing of the blanks that the rack allows for the letters placed, real tiles first, each kept
    if it reaches the n-th best score (a stack of its own: Numba's cache cannot hold a recursive
    function)."""
    choice = np.zeros(n_placed + 1, dtype=np.int64)  # 0 untried, 1 the real tile taken, 2 a blank
    loss = np.zeros(n_placed + 1, dtype=np.int64)  # points lost to the blanks before tile i
    left = np.zeros(n_placed + 1, dtype=np.int64)  # blanks left before tile i
    left[0] = blanks
    i = 0
    while i >= 0:
        if score - loss[i] < state[0]:
            i -= 1  # every placing from here scores less
            continue
        if i == n_placed:
            _keep_or_tally(mode, score - loss[i], o, start, n_placed, placed_sq, tiles, found, heap, state, n)
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


@_jit
def _record(depth, main, cross, mode, o, start, word_mult, bonus, placed_sq, placed_c, n_placed, counts, rack,
            blanks, values, lm, cm, cross_base, skip, tally, tiles, found, heap, state, n):
    score = main * word_mult[depth] + cross + bonus[depth]  # the most any placing of the blanks scores
    if mode == BEST:
        if score < state[0]:
            return 0
    if skip and n_placed == 1 and cross_base[o, placed_sq[0]] >= 0:
        return 0  # a one-tile play forming a word across too is named across
    if mode == COUNT:
        if blanks == 0:
            state[1] += 1
        elif counts[0] == blanks:  # no blank needed: any of the new tiles may be one
            state[1] += _SUBSETS[blanks, n_placed]
        else:
            # At least the missing tiles of each letter are blanks, at most the blanks held.
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
            state[1] += ways.sum()
        return 0
    if blanks == 0:
        for i in range(n_placed):
            tiles[i] = placed_c[i]
        _keep_or_tally(mode, score, o, start, n_placed, placed_sq, tiles, found, heap, state, n)
        return 0
    wmul = word_mult[depth]
    if counts[0] != blanks:
        # The walk took each needed blank's letter value off the main word's sum: every tile a real one.
        extra = 0
        for i in range(n_placed):
            c = placed_c[i]
            tally[c] += 1
            if tally[c] > rack[c]:
                extra += values[c] - values[c | BLANK_BIT]
        for i in range(n_placed):
            tally[placed_c[i]] = 0
        score += extra * wmul
    real = rack.copy()
    _assign(mode, blanks, score, wmul, o, start, n_placed, placed_sq, placed_c, tiles, real, values, lm, cm, found, heap,
            state, n)
    return 0


@_jit
def _through_tiles(o, r, end, node, main, sq, arcs, values):
    """From square r, along the board tiles there up to the next empty square (or the lane's end):
    (the square reached, the node reached or -1 where no word goes on, the main word's sum so far)."""
    while r < end:
        t = sq[o, r]
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
    # letter can fill, as far as every window still open goes.
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
def _walk(p0, node0, main0, letters0, o, start, end, word_lengths, word_mult, bonus, mode, graph, bd, values, counts,
          rack, blanks, placed_sq, placed_c, tally, tiles, found, heap, state, n):
    """movegen._Search.walk_from's walk, from the empty square p0 where some letter of node0's arcs may
    stand, with a stack of its own (Numba's cache cannot hold a recursive function): frame f places the
    (f+1)-th new tile."""
    arcs, masks, suffixes, ahead = graph
    sq, allowed, cross_base, cross_mult, _anchor, lm, _wm, need, next_need, skip_single, _starts = bd
    skip = skip_single[o]
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
        follows = q < end and sq[o, q] != 0  # a board tile right after p: the word goes on through it
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
            r, m, main_r = _through_tiles(o, q, end, child, main_c, sq, arcs, values)
            if m >= 0:
                d = r - start
                if (suffixes[m] << d) & word_lengths:
                    if (masks[m] & 1) != 0 and ((word_lengths >> d) & 1) != 0:
                        _record(d, main_r, cross_c, mode, o, start, word_mult, bonus, placed_sq, placed_c, n_placed,
                                counts, rack, blanks, values, lm, cross_mult, cross_base, skip, tally, tiles, found,
                                heap, state, n)
                    if r < end and (word_lengths >> (d + 1)) != 0 and (masks[m] & allowed[o, r] & (
                        ALL_LETTERS if counts[0] > 0 else letters_c
                    )) != 0 and _reaches(r, m, start, end, word_lengths, ahead, need, next_need, o):
                        next_p, next_node, next_main = r, m, main_r
        else:
            if ((word_lengths >> depth) & 1) != 0 and (masks[child] & 1) != 0:
                _record(depth, main_c, cross_c, mode, o, start, word_mult, bonus, placed_sq, placed_c, n_placed,
                        counts, rack, blanks, values, lm, cross_mult, cross_base, skip, tally, tiles, found, heap,
                        state, n)
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
    return 0


@_jit
def _windows(o, start, bd, values, rack_len, rack_values, rack_size, bingo, avail, with_bounds, w_bound, w_len,
             w_mult, w_bonus, w_whole, fixed, scratch):
    """movegen._Search.windows: the windows from ``start`` into the w_* arrays (w_whole 1 for the one
    taking the whole rack, whose board letters go in ``fixed``, their count in fixed[SIZE]); how many.
    ``scratch``: three rows of SIZE, reused from start to start."""
    sq, allowed, cross_base, cross_mult, anchor, lm, wm, _need, _next_need, _skip, _starts = bd
    row_end = start - start % SIZE + SIZE
    count = 0
    new = 0
    board_sum = 0
    cross_sum = 0
    wmul = 1
    hooked = False
    n_fixed = 0
    coefficients, letter_mults, cross_mults = scratch[0], scratch[1], scratch[2]
    for e in range(start, row_end):
        t = sq[o, e]
        if t:
            board_sum += values[t]
            hooked = True
            fixed[n_fixed] = t & 31
            n_fixed += 1
        else:
            if new == rack_len or not allowed[o, e] & avail:
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
        bonus = bingo if new == rack_size else 0
        bound = 0
        if with_bounds:
            # Rack values (best first) paired with the squares' coefficients best first.
            for i in range(new):
                coefficients[i] = letter_mults[i] * (wmul + cross_mults[i])
            coefficients[:new].sort()
            bound = wmul * board_sum + cross_sum + bonus
            for i in range(new):
                bound += coefficients[new - 1 - i] * rack_values[i]
        w_bound[count] = bound
        w_len[count] = e - start + 1
        w_mult[count] = wmul
        w_bonus[count] = bonus
        w_whole[count] = 1 if new == rack_len else 0
        if new == rack_len:
            fixed[SIZE] = n_fixed
        count += 1
    return count


@_jit
def search(mode, n, graph, anagram_graph, bd, values, rack, rack_values, rack_size, bingo, state):
    """Count the plays (mode COUNT: the total in state[1]), keep those reaching the n-th best score
    (mode BEST: in ``found``, the n-th best score in state[0]), or count the plays by score (mode SPREAD:
    the counts indexed by score come back instead of ``found``)."""
    starts = bd[10]
    found = List.empty_list(types.int64)
    aarcs, amasks, alengths = anagram_graph
    counts = rack.copy()
    blanks = rack[0]
    rack_len = 0
    letters = 0
    for c in range(27):
        rack_len += rack[c]
        if c > 0 and rack[c] > 0:
            letters |= 1 << c
    avail = ALL_LETTERS if blanks > 0 else letters
    with_bounds = mode != COUNT
    units = starts.shape[0]
    # Every start's windows: bound, length, word multiplier, bonus, whole rack.
    w_bound = np.zeros((units, SIZE), dtype=np.int64)
    w_len = np.zeros((units, SIZE), dtype=np.int64)
    w_mult = np.zeros((units, SIZE), dtype=np.int64)
    w_bonus = np.zeros((units, SIZE), dtype=np.int64)
    w_whole = np.zeros((units, SIZE), dtype=np.int64)
    w_count = np.zeros(units, dtype=np.int64)
    u_bound = np.full(units, -1, dtype=np.int64)
    fixed = np.zeros((units, SIZE + 1), dtype=np.int64)
    scratch = np.empty((3, SIZE), dtype=np.int64)
    for u in range(units):
        o, s, reach = starts[u, 0], starts[u, 1], starts[u, 2]
        if reach > rack_len:
            continue
        k = _windows(o, s, bd, values, rack_len, rack_values, rack_size, bingo, avail, with_bounds, w_bound[u],
                     w_len[u], w_mult[u], w_bonus[u], w_whole[u], fixed[u], scratch)
        w_count[u] = k
        if k:
            u_bound[u] = w_bound[u, :k].max()
    order = np.argsort(-u_bound, kind="mergesort") if with_bounds else np.arange(units)
    if mode == SPREAD:
        heap = np.zeros(max(u_bound.max(), 0) + 1 if units else 1, dtype=np.int64)
    else:
        heap = np.zeros(max(n, 1), dtype=np.int64)
    placed_sq = np.zeros(SIZE, dtype=np.int64)
    placed_c = np.zeros(SIZE, dtype=np.int64)
    tiles = np.zeros(SIZE, dtype=np.int64)
    tally = np.zeros(27, dtype=np.int64)
    word_mult = np.zeros(SIZE + 1, dtype=np.int64)
    bonus = np.zeros(SIZE + 1, dtype=np.int64)
    anagram_counts = np.zeros(27, dtype=np.int64)
    arcs, masks = graph[0], graph[1]
    sq, allowed = bd[0], bd[1]
    anagram_known = dict()  # the board letters of a whole-rack window (sorted, 5 bits each) -> an anagram?
    anagram_known[-1] = True  # (a first entry gives the dictionary its types; no key is negative)
    for u in order:
        k = w_count[u]
        if k == 0:
            continue
        if mode == BEST and u_bound[u] < state[0]:
            break  # the starts come best bound first: none left can reach the n-th best score
        o, start = starts[u, 0], starts[u, 1]
        word_lengths = 0
        for w in range(k):
            if mode == BEST and w_bound[u, w] < state[0]:
                continue
            if w_whole[u, w]:
                # A play of the whole rack through these board letters needs a word made of them all.
                n_fixed = fixed[u, SIZE]
                key = 0
                sorted_fixed = np.sort(fixed[u, :n_fixed])
                for i in range(n_fixed):
                    key = key * 32 + sorted_fixed[i]
                if key in anagram_known:
                    ok = anagram_known[key]
                else:
                    for c in range(27):
                        anagram_counts[c] = rack[c]
                    for i in range(n_fixed):
                        anagram_counts[sorted_fixed[i]] += 1
                    ok = _has_anagram(anagram_counts, rack_len + n_fixed, amasks, aarcs, alengths)
                    anagram_known[key] = ok
                if not ok:
                    continue
            length = w_len[u, w]
            word_lengths |= 1 << length
            word_mult[length] = w_mult[u, w]
            bonus[length] = w_bonus[u, w]
        if word_lengths == 0:
            continue
        end = start - start % SIZE + SIZE
        # From the start: through the board tiles there, if any, to the first empty square.
        p, node, main = _through_tiles(o, start, end, 0, 0, sq, arcs, values)
        if node >= 0 and p < end and (masks[node] & allowed[o, p]) != 0 and _reaches(
            p, node, start, end, word_lengths, graph[3], bd[7], bd[8], o
        ):
            _walk(p, node, main, letters, o, start, end, word_lengths, word_mult, bonus, mode, graph, bd, values,
                  counts, rack, blanks, placed_sq, placed_c, tally, tiles, found, heap, state, n)
    if mode == SPREAD:
        return heap
    out = np.empty(len(found), dtype=np.int64)
    for i in range(len(found)):
        out[i] = found[i]
    return out
