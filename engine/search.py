"""The move search as the rest of the project calls it: ``best_plays``, ``find_tops``, ``count_plays``,
``score_spread`` and ``generate_plays``, run by one of the two forms of the same search.

* ``engine.movegen``: the reference search, in pure Python (``movegen._Search``), always there;
* ``engine.kernel``: the same search compiled with Numba, imported on the first search unless Numba (or
  NumPy) is missing or the environment says ``ARBITER_ENGINE=python``.

This module owns the choice between them (``use_compiled_search``), what each keeps from one search to
the next on the same board (the board analysis of the last few boards, per lexicon, shared by threads),
and the warm-up that compiles or loads the compiled search before the first real one.  Both forms give
the same plays (the tests run every reference position through each); a compiled search that cannot run
(a Numba release that refuses it, a cache it cannot write) gives way to the reference for the rest of
the process, with a warning: it costs speed, never a result.  ``generate_plays`` (every play, as Play
objects) is the reference's in both.
"""
from __future__ import annotations

import importlib
import os
import threading
import warnings
import weakref
from collections import OrderedDict

from . import movegen
from .board import Board
from .lane import lanes
from .layout import CENTRE
from .lexicon import Lexicon, compile_lexicon
from .movegen import Tops
from .play import Play
from .rules import rules_preset
from .scoring import cross_parts
from .tiles import load_tileset

__all__ = [
    "Play", "Tops", "best_plays", "compiled_search_cached", "compiled_search_installed", "compiled_search_wanted",
    "count_plays", "find_tops", "generate_plays",
    "score_spread", "use_compiled_search", "warm_up", "warm_up_in_background",
]

# ---------------------------------------------------------------------------------------------------
# Which search runs

# The compiled search (engine.kernel, with Numba): imported on the first search unless turned off.
_compiled = {"wanted": os.environ.get("ARBITER_ENGINE", "").strip().lower() != "python", "module": None,
             "tried": False}
_compiled_lock = threading.Lock()


def _load_kernel():
    """engine.kernel, imported once; None when Numba (or NumPy) is not installed."""
    if not _compiled["tried"]:
        with _compiled_lock:
            if not _compiled["tried"]:
                try:
                    _compiled["module"] = importlib.import_module(".kernel", __package__)
                except ImportError:  # the reference search runs
                    _compiled["module"] = None
                _compiled["tried"] = True
    return _compiled["module"]


def _kernel():
    """engine.kernel when the compiled search runs, else None."""
    return _load_kernel() if _compiled["wanted"] else None


def compiled_search_installed() -> bool:
    """Whether the compiled search can run here (Numba installed), whatever ``use_compiled_search`` says."""
    return _load_kernel() is not None


def compiled_search_wanted() -> bool:
    """Whether this process would run the compiled search (``ARBITER_ENGINE`` is not ``python``, or
    ``use_compiled_search(True)``), without importing it."""
    return bool(_compiled["wanted"])


def compiled_search_cached() -> bool:
    """Whether Numba's cache holds the compiled search's machine code for the present engine/kernel.py (the
    first search then loads it rather than compiling it), judged from the cache's files, without importing
    Numba: the index of ``kernel.search`` in ``NUMBA_CACHE_DIR`` or beside engine/kernel.py, written after
    engine/kernel.py was."""
    from pathlib import Path

    source = Path(__file__).with_name("kernel.py")
    roots = [Path(os.environ["NUMBA_CACHE_DIR"])] if os.environ.get("NUMBA_CACHE_DIR") else [source.parent / "__pycache__"]
    try:
        changed = source.stat().st_mtime
        return any(index.stat().st_mtime >= changed for root in roots if root.is_dir()
                   for index in root.rglob("kernel.search-*.nbi"))
    except OSError:
        return False


def use_compiled_search(enabled: bool) -> bool:
    """Turn the compiled search on or off for this process; whether it was on.  ``ARBITER_ENGINE=python``
    in the environment turns it off from the start."""
    was = _kernel() is not None
    _compiled["wanted"] = bool(enabled)
    return was


def _compiled_failed(error: Exception) -> None:
    # The reference search gives the same plays: a compiled search that cannot run costs speed, never a
    # result.
    _compiled["wanted"] = False
    warnings.warn(f"the compiled move search failed ({error!r}); the pure-Python search runs from now on",
                  RuntimeWarning, stacklevel=4)


# ---------------------------------------------------------------------------------------------------
# The warm-up


def warm_up(lexicon=None, tileset=None, rules=None) -> str:
    """Run each search once on a small position, so that the compiled search is compiled (once per
    machine) or loaded from its cache now rather than in the first real search; which search runs:
    ``"compiled"`` or ``"python"`` (which has nothing to ready: no search is run then).  Without a lexicon, a word list of three words stands in (the
    compiled code is the same for every lexicon; a real one's arrays are made on its first search)."""
    if _kernel() is None:  # the pure-Python search has nothing to compile or load
        return "python"
    if lexicon is None:
        lexicon = Lexicon("warm-up", "", 3, *compile_lexicon(["AT", "EAST", "SEAT"]))
    tileset = tileset or load_tileset("english")
    rules = rules or rules_preset("fisf")
    board = Board.empty()
    for rack in ("AEINST?", "ERST??"):
        best_plays(board, rack, lexicon, tileset, rules, n=3)
        count_plays(board, rack, lexicon, tileset, rules)
        score_spread(board, rack, lexicon, tileset, rules)
    return "compiled" if _kernel() is not None else "python"


def warm_up_in_background() -> threading.Thread:
    """``warm_up()`` in a thread of its own, for a server process that should not make its first search
    wait for it.  Start it in the process that searches, not before a fork."""
    thread = threading.Thread(target=_warm_up_quietly, name="engine-warm-up", daemon=True)
    thread.start()
    return thread


def _warm_up_quietly() -> None:
    try:
        warm_up()
    except Exception as error:  # noqa: BLE001 - a warm-up that fails leaves the first search to do it
        warnings.warn(f"the move search could not be warmed up ({error!r})", RuntimeWarning, stacklevel=1)


# ---------------------------------------------------------------------------------------------------
# What is kept from one search to the next: the board analysis of the last few boards


_board_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BOARD_CACHE_LIMIT = 16
_board_caches_lock = threading.Lock()  # a web process searches from several threads


def _kept(lexicon, key, make):
    """What ``make()`` gives for ``key``, kept for the last few boards of the lexicon (shared by threads)."""
    with _board_caches_lock:
        cache = _board_caches.get(lexicon)
        if cache is None:
            cache = _board_caches[lexicon] = OrderedDict()
        known = cache.get(key)
        if known is not None:
            cache.move_to_end(key)
            return known
    known = make()
    with _board_caches_lock:
        cache[key] = known
        if len(cache) > _BOARD_CACHE_LIMIT:
            cache.popitem(last=False)
    return known


def _reference_analysis(board, lexicon, tileset, rules) -> list:
    """``movegen.board_analysis``, kept for the last few boards, so that the tops, the best plays and the
    count of one position share it."""
    key = (board.squares, movegen.directions(board, rules), tuple(tileset.values))
    return _kept(lexicon, key, lambda: movegen.board_analysis(board, lexicon, tileset, rules))


class _View:
    """The board's view in one direction as the compiled search sees it: what naming a play needs."""

    __slots__ = ("horizontal", "lane", "squares")

    def __init__(self, board, horizontal: bool):
        self.horizontal = horizontal
        self.lane = lanes(horizontal)
        self.squares = board.view(horizontal)

    def original(self, i: int) -> tuple[int, int]:
        """(row, col) on the board of this view's square ``i``."""
        return self.lane.square(i)

    def cross_word(self, i: int) -> tuple[tuple, tuple]:
        """The board tiles before and after the empty square ``i`` across its lane."""
        return cross_parts(self.squares, i)


def _compiled_analysis(kernel, board, lexicon, tileset, rules, arrays) -> tuple[list[_View], tuple]:
    """The board's views and the compiled search's arrays of them (``engine.kernel.board_arrays``), kept
    for the last few boards as ``_reference_analysis``."""
    directions = movegen.directions(board, rules)
    values = tileset.values

    def make():
        np = kernel.np
        views = [_View(board, h) for h in directions]
        both = len(directions) == 2
        analysis = kernel.board_arrays(
            np.array([v.squares for v in views], dtype=np.int64),
            board.is_empty(),
            np.array([v.lane.index(*CENTRE) for v in views], dtype=np.int64),
            np.array([v.lane.letter_mult for v in views], dtype=np.int64),
            np.array([v.lane.word_mult for v in views], dtype=np.int64),
            np.array([1 if both and not v.horizontal else 0 for v in views], dtype=np.int64),
            arrays.graph,
            np.array(values, dtype=np.int64),
        )
        return views, analysis

    return _kept(lexicon, (board.squares, directions, tuple(values), "compiled"), make)


# ---------------------------------------------------------------------------------------------------
# The compiled search, when it runs


def _run_compiled(mode: str, n: int, board, rack: str, lexicon, tileset, rules):
    """(the views, what the compiled search gives back, its state) for the search ``mode`` (``COUNT``,
    ``BEST``, ``SPREAD`` of engine.kernel); None when it does not run here, or failed (then never again).
    A bad rack is a ValueError, whichever search runs."""
    counts, rack_values = movegen.read_rack(rack, tileset.values)
    kernel = _kernel()
    if kernel is None:
        return None
    try:
        arrays = kernel.lexicon_arrays(lexicon)
        views, analysis = _compiled_analysis(kernel, board, lexicon, tileset, rules, arrays)
        state = kernel.np.array([-1, 0, 0, 0], dtype=kernel.np.int64)
        held = kernel.rack_arrays(counts, rack_values, tileset.values, rules.bingo_tiles, rules.bingo_bonus,
                                  rules.big_bingo_bonus, rules.max_placed)
        found = kernel.search(getattr(kernel, mode), n, arrays.graph, arrays.anagrams, analysis, held, state)
        if mode == "SPREAD" and state[1] < 0:
            raise RuntimeError("a play scored above its bound")
    except Exception as error:  # noqa: BLE001 - any failure of the compiled search: see _compiled_failed
        _compiled_failed(error)
        return None
    return views, found, state


def _compiled_plays(views, found, threshold: int) -> list[Play]:
    """The plays the compiled search kept (flat: score, view, start, new tiles, (square, tile)...) that
    reach ``threshold``."""
    found = found.tolist()
    plays = []
    i, end = 0, len(found)
    while i < end:
        score, o, start, placed = found[i], found[i + 1], found[i + 2], found[i + 3]
        j = i + 4 + 2 * placed
        if score >= threshold:
            tiles = tuple(zip(found[i + 4:j:2], found[i + 5:j:2], strict=True))
            plays.append(movegen.make_play(views[o], start, tiles, score))
        i = j
    return plays


def _best(board, rack: str, lexicon, tileset, rules, n: int) -> tuple[int, list[Play]]:
    """(the n-th best score, every play reaching it), by whichever search runs."""
    ran = _run_compiled("BEST", n, board, rack, lexicon, tileset, rules)
    if ran is not None:
        views, found, state = ran
        threshold = int(state[0])
        return threshold, _compiled_plays(views, found, threshold)
    analysis = _reference_analysis(board, lexicon, tileset, rules)
    search = movegen._Search(board, rack, lexicon, tileset, rules, analysis).run_best(n)
    return search.threshold, search.plays()


# ---------------------------------------------------------------------------------------------------
# The searches


def generate_plays(board, rack: str, lexicon, tileset, rules) -> list[Play]:
    """``movegen.generate_plays`` (every legal play, each distinct play once), with the board analysis
    kept."""
    analysis = _reference_analysis(board, lexicon, tileset, rules)
    return movegen._Search(board, rack, lexicon, tileset, rules, analysis).run_all().plays()


def count_plays(board, rack: str, lexicon, tileset, rules) -> int:
    """How many plays ``generate_plays`` lists, without building them."""
    ran = _run_compiled("COUNT", 1, board, rack, lexicon, tileset, rules)
    if ran is not None:
        return int(ran[2][1])
    analysis = _reference_analysis(board, lexicon, tileset, rules)
    return movegen._Search(board, rack, lexicon, tileset, rules, analysis).run_count()


def score_spread(board, rack: str, lexicon, tileset, rules) -> dict[int, int]:
    """How many of the plays ``generate_plays`` lists score each score: {score: plays}, no Play built by
    the compiled search."""
    ran = _run_compiled("SPREAD", 1, board, rack, lexicon, tileset, rules)
    if ran is not None:
        return {score: int(k) for score, k in enumerate(ran[1].tolist()) if k}
    spread: dict[int, int] = {}
    for play in generate_plays(board, rack, lexicon, tileset, rules):
        spread[play.score] = spread.get(play.score, 0) + 1
    return spread


def best_plays(board, rack: str, lexicon, tileset, rules, n: int = 10) -> list[Play]:
    """``movegen.best_plays``: the ``n`` best distinct plays and every play tied with the n-th, sorted by
    score, best first, then by square (row, column), across before down, and word."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    return sorted(_best(board, rack, lexicon, tileset, rules, n)[1], key=movegen.best_order)


def find_tops(board, rack: str, lexicon, tileset, rules) -> Tops:
    """The best score and every play that reaches it (score None when no play exists)."""
    threshold, plays = _best(board, rack, lexicon, tileset, rules, 1)
    return Tops(threshold if plays else None, tuple(sorted(plays, key=movegen.play_order)))
