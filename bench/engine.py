"""Engine benchmark: prints figures, asserts nothing.

    python bench/engine.py [--repeat N] [--lexicon TWL06] [--baseline DIR] [--only tops,best,count]

Lexicon compile time (into a throw-away cache) and cached-load time; then, over the reference positions
(median, p90, max; overall and by blanks on the rack), the time of:

* the top search (``find_tops``);
* the 10 best plays (``best_plays(n=10)``);
* the count of legal plays (``count_plays``);

each from a board not seen before (the board analysis kept between searches is cleared before each
call); and the peak memory of each.

With Numba installed, the compiled search (``engine.kernel``) and the pure-Python one are both timed, in
the same run, position by position alternating (``--search compiled`` or ``python`` times one only).

``--baseline DIR`` also times another copy of the engine, the package ``DIR/baseline_engine`` (a copy of
``engine/`` from an earlier version, e.g. ``git archive REV engine``, renamed), imported as ``engine`` in its
worker so that it reads its own data files: before and after, each search (compiled, Python) in a process of
its own (``--worker``), the parent asking each position of each in turn, so that both see the same load on the
machine and nothing of one is in the other's process.  (Timed in one process, the same code came out 0.69 ms
a top search for the engine imported first and 1.57 ms for the second, whichever it was, with or without
the garbage collector, from Numba's disk cache or just compiled: every call of the second engine's compiled
functions went through Numba's slow dispatch, ``Dispatcher._compile_for_args``, twice a search, because its
NamedTuple arguments have the layout of the first engine's, which Numba's fast type lookup finds first.)
Memory is traced without ``--baseline`` only.  An engine without
``best_plays`` or ``count_plays`` is timed sorting, or counting, ``generate_plays``; the searches are taken
from ``engine.search``, or from ``engine.movegen`` in a copy from before ``engine.search`` existed.

Then, for each ``--language NAME=WORDLIST`` (by default Spanish and Catalan on Debian's ``wspanish`` and
``wcatalan`` lists in /usr/share/dict, when installed; not tournament lists), the list imported and the
searches timed on positions of seeded games (``engine.pregame.draw_game``), every third one again with two
blanks: cpu time, the searches ``--search`` names.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import lexicon as lexicon_module  # noqa: E402
from engine import search as search_module  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "positions_twl06.jsonl"
GROUPS = ("all", "0 blanks", "1 blank", "2 blanks")
TASKS = ("tops", "best", "count")
TASK_NAMES = {"tops": "top search", "best": "best_plays(n=10)", "count": "count of legal plays"}


class Engine:
    """One engine package: its lexicon, tile set, rules, and the three searches as functions of
    (board rows, rack)."""

    def __init__(self, label, package, lexicon_name, cache_dir=None, compiled=None, tileset="english", lexicon=None):
        self.label = label
        self.compiled = compiled  # engine.kernel on (True) or off (False); None: the package's default
        modules = {
            name: importlib.import_module(f"{package}.{name}")
            for name in ("board", "lexicon", "movegen", "rules", "tiles")
        }
        self.board_cls = modules["board"].Board
        # The searches as the project calls them: ``engine.search`` (``movegen`` before it existed).
        try:
            movegen = importlib.import_module(f"{package}.search")
        except ModuleNotFoundError:
            movegen = modules["movegen"]
        self.movegen = movegen
        self.lexicon = lexicon or modules["lexicon"].load_lexicon(lexicon_name, cache_dir=cache_dir)
        self.tileset = modules["tiles"].load_tileset(tileset)
        self.rules = modules["rules"].rules_preset("fisf")
        self._board_caches = getattr(movegen, "_board_caches", None)
        args = (self.lexicon, self.tileset, self.rules)
        if hasattr(movegen, "best_plays"):
            self.best = lambda board, rack: movegen.best_plays(board, rack, *args, n=10)
        else:
            self.best = lambda board, rack: _best_by_sorting(movegen.generate_plays(board, rack, *args), 10)
        if hasattr(movegen, "count_plays"):
            self.count = lambda board, rack: movegen.count_plays(board, rack, *args)
        else:
            self.count = lambda board, rack: len(movegen.generate_plays(board, rack, *args))
        self.tops = lambda board, rack: movegen.find_tops(board, rack, *args)
        # What a search builds once per lexicon and process is built here, not in the first position timed.
        self._use()
        self.warm_up = _timed(self.tops, self.board_cls.empty(), "AEINRST")

    def _use(self):
        # The package's own switch: a baseline copy has its own engine.search.
        if self.compiled is not None and hasattr(self.movegen, "use_compiled_search"):
            self.movegen.use_compiled_search(self.compiled)

    def run(self, task, rows, rack):
        """(cpu seconds, wall seconds) of one search from a board not seen before."""
        self._use()
        board = self.board_cls.from_rows(rows)
        if self._board_caches is not None:
            self._board_caches.clear()
        return _timed(getattr(self, task), board, rack)


def _best_by_sorting(plays, n):
    plays = sorted(plays, key=lambda p: -p.score)
    return [p for p in plays if p.score >= plays[min(n, len(plays)) - 1].score] if plays else []


def _load_baseline_as_engine(directory):
    """In a worker of its own, the baseline copy is the package ``engine``, as it was in its time: its
    modules read their data files (the tile sets) from ``engine``'s, not from this version's."""
    for name in [m for m in sys.modules if m == "engine" or m.startswith("engine.")]:
        del sys.modules[name]
    path = Path(directory).resolve() / "baseline_engine"
    spec = importlib.util.spec_from_file_location("engine", path / "__init__.py", submodule_search_locations=[str(path)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine"] = module
    spec.loader.exec_module(module)
    return "engine"


def quantiles(times):
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    return f"n={len(times):3d}  median {1000 * statistics.median(times):8.2f} ms  p90 {1000 * p90:8.2f} ms  max {1000 * times[-1]:8.1f} ms"


def bench_lexicon(name):
    words = lexicon_module.builtin_words(name)
    with tempfile.TemporaryDirectory() as cache:
        compiled = _timed(lambda: lexicon_module.compile_lexicon(lexicon_module.normalise(words)[0]))
        lexicon_module.load_lexicon(name, cache_dir=cache)  # writes the cache
        lexicon_module._loaded.clear()
        loaded = _timed(lexicon_module.load_lexicon, name, cache)
        lexicon = lexicon_module.load_lexicon(name, cache_dir=cache)
    print(f"lexicon {name}: {len(lexicon)} words, {len(lexicon.masks)} nodes, {len(lexicon.arcs)} arcs")
    print(f"  compile {compiled[0]:.2f} s cpu ({compiled[1]:.2f} s wall)")
    print(f"  cached load {1000 * loaded[0]:.0f} ms cpu ({1000 * loaded[1]:.0f} ms wall)")


def _group(rack):
    blanks = rack.count("?")
    return f"{blanks} blank{'' if blanks == 1 else 's'}"


def bench_searches(engines, positions, repeat, tasks, cpu_only=False):
    # times[task][engine label][group] -> [(cpu, wall), ...]
    times = {task: {e.label: {g: [] for g in GROUPS} for e in engines} for task in tasks}
    for position in positions:
        rows, rack = position["board"], position["rack"]
        for task in tasks:
            for engine in engines:
                best = min(engine.run(task, rows, rack) for _ in range(repeat))  # the fastest run
                for group in ("all", _group(rack)):
                    times[task][engine.label][group].append(best)
    for task in tasks:
        print(f"{TASK_NAMES[task]}, {len(positions)} positions (fastest of {repeat} runs each), cpu time:")
        for engine in engines:
            for group in GROUPS:
                found = times[task][engine.label][group]
                if found:
                    print(f"  {engine.label:8s} {group:9s} {quantiles([t[0] for t in found])}")
        if cpu_only:
            continue
        print("  wall time:")
        for engine in engines:
            for group in GROUPS:
                found = times[task][engine.label][group]
                if found:
                    print(f"  {engine.label:8s} {group:9s} {quantiles([t[1] for t in found])}")


def _timed(fn, *args):
    """(cpu seconds, wall seconds) of one call: cpu time is what the search costs on a busy machine."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def bench_memory(engine, positions, tasks):
    """Peak memory traced during each search, over ``positions`` (tracemalloc slows the searches)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    peaks = {}
    for task in tasks:
        worst = 0
        for position in positions:
            tracemalloc.reset_peak()
            start = tracemalloc.get_traced_memory()[0]
            engine.run(task, position["board"], position["rack"])
            worst = max(worst, tracemalloc.get_traced_memory()[1] - start)
        peaks[task] = worst
    tracemalloc.stop()
    figures = ", ".join(f"{TASK_NAMES[t]} {peaks[t] / 2**20:.1f} MiB" for t in tasks)
    print(f"  {engine.label:8s} most allocated during one search, over {len(positions)} positions: {figures}")
    return base


def bench_lexicon_memory(name):
    lexicon_module._loaded.clear()
    tracemalloc.start()
    lexicon_module.load_lexicon(name)
    loaded = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    lexicon_module._loaded.clear()
    print(f"  lexicon {name} loaded: {loaded / 2**20:.1f} MiB (tracemalloc)")


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


class Worker:
    """One engine timed in a process of its own (``--worker``), asked position by position: nothing of one
    engine (its compiled code, caches, garbage) is in the other's process."""

    def __init__(self, label, argv):
        self.label = label
        self.compiled = None
        self.process = subprocess.Popen(  # noqa: S603 - this script, with arguments built here
            [sys.executable, str(Path(__file__).resolve()), "--worker", *argv],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        ready = json.loads(self.process.stdout.readline())
        self.warm_up = tuple(ready["warm_up"])

    def run(self, task, rows, rack):
        self.process.stdin.write(json.dumps({"task": task, "board": rows, "rack": rack}) + "\n")
        self.process.stdin.flush()
        return tuple(json.loads(self.process.stdout.readline()))

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def worker(args):
    """``--worker``: one engine, timing what the parent asks on stdin, one JSON line each way."""
    package = _load_baseline_as_engine(args.baseline) if args.baseline else "engine"
    with tempfile.TemporaryDirectory() as cache:
        engine = Engine(args.search, package, args.lexicon, cache_dir=cache if args.baseline else None,
                        compiled=args.search == "compiled")
        print(json.dumps({"warm_up": engine.warm_up}), flush=True)
        for line in sys.stdin:
            asked = json.loads(line)
            print(json.dumps(engine.run(asked["task"], asked["board"], asked["rack"])), flush=True)


# ---------------------------------------------------------------------------------------------------
# Other languages: a word list imported, positions from seeded games (engine.pregame.draw_game)

DEFAULT_LISTS = {"spanish": "/usr/share/dict/spanish", "catalan": "/usr/share/dict/catalan"}


def language_positions(lexicon, tileset, rules, wanted, seed=27):
    """``wanted`` positions (board rows, rack) of seeded games played top by top, and every third one again
    with two of its tiles turned into blanks (the 2-blank figures)."""
    from engine.pregame import draw_game

    positions = []
    for game in range(seed, seed + 50):  # bounded: a game gives about 20 positions
        for played in draw_game(game, lexicon, tileset, rules).rounds:
            positions.append({"board": list(played.board), "rack": played.rack})
            blanks = played.rack.count("?")
            if len(positions) % 3 == 0 and blanks < 2 and len(played.rack) > 2:
                letters = [ch for ch in played.rack if ch != "?"]
                positions.append({"board": list(played.board), "rack": "".join(letters[2 - blanks:]) + "??"})
            if len(positions) >= wanted:
                return positions
    return positions


def bench_language(name, path, args, tasks):
    from engine.rules import rules_preset
    from engine.tiles import load_tileset

    tileset, rules = load_tileset(name), rules_preset("fisf")
    words = Path(path).read_text(encoding="utf-8").split()
    started = time.process_time()
    result = lexicon_module.import_lexicon(f"bench-{name}", words, tileset)
    imported = time.process_time() - started
    lexicon = result.lexicon
    print(f"{name}: {path}, {len(lexicon)} words ({len(result.rejected)} entries refused), imported in "
          f"{imported:.1f} s cpu (or loaded from the cache)")
    positions = language_positions(lexicon, tileset, rules, args.language_positions)
    installed = search_module.compiled_search_installed()
    searches = {"both": ["python", "compiled"]}.get(args.search, [args.search]) if installed else ["python"]
    engines = [Engine(search, "engine", None, compiled=search == "compiled", tileset=name, lexicon=lexicon)
               for search in searches]
    bench_searches(engines, positions, args.repeat, tasks, cpu_only=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lexicon", default="TWL06")
    parser.add_argument("--repeat", type=int, default=1, help="runs per position; the fastest counts")
    parser.add_argument("--baseline", metavar="DIR", help="also time DIR/baseline_engine, in a process of its own")
    parser.add_argument("--only", default=",".join(TASKS), help="searches to time: tops,best,count")
    parser.add_argument("--search", choices=("both", "compiled", "python"), default="both",
                        help="which of this engine's searches to time (compiled needs Numba)")
    parser.add_argument("--memory-positions", type=int, default=40, help="positions traced for memory")
    parser.add_argument("--language", action="append", metavar="NAME=WORDLIST",
                        help="also time a tile set on a word list (default: spanish and catalan from "
                             "/usr/share/dict when there)")
    parser.add_argument("--language-positions", type=int, default=60, help="positions per other language")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    tasks = [t for t in args.only.split(",") if t]
    positions = [json.loads(line) for line in FIXTURES.read_text().splitlines() if line.strip()]
    print(f"load average before: {_loadavg()}")
    bench_lexicon(args.lexicon)
    engines = []
    installed = search_module.compiled_search_installed()
    searches = {"both": ["python", "compiled"]}.get(args.search, [args.search]) if installed else ["python"]
    if not installed:
        print("Numba is not installed: only the pure-Python search is timed")
    workers = []
    if args.baseline:
        # Before and after, each in a process of its own, asked position by position in turn (see the
        # docstring: timed in one process, the same code timed 0.7 and 1.6 ms).
        for search in searches:
            common = ["--lexicon", args.lexicon, "--search", search]
            workers.append(Worker(f"before {search}"[:15], [*common, "--baseline", args.baseline]))
            workers.append(Worker(f"after {search}"[:15], common))
        engines = workers
    else:
        for search in searches:
            engines.append(Engine(search, "engine", args.lexicon, compiled=search == "compiled"))
    for engine in engines:
        print(f"{engine.label}: first search on the lexicon {1000 * engine.warm_up[0]:.0f} ms cpu (not counted below)")
    bench_searches(engines, positions, args.repeat, tasks)
    for w in workers:
        w.close()
    if not args.baseline:
        print("memory:")
        bench_lexicon_memory(args.lexicon)
        # Spread over the blank counts: every fifth position.
        traced = positions[::max(1, len(positions) // args.memory_positions)][:args.memory_positions]
        for engine in engines:
            bench_memory(engine, traced, tasks)
        if any(engine.compiled for engine in engines):
            print("  (tracemalloc sees the compiled search's NumPy arrays made in Python, not the arrays it makes"
                  " inside Numba's runtime: a few hundred KiB, the windows of every start; ru_maxrss covers all)")
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        print(f"  ru_maxrss (whole process) {maxrss / 1024:.1f} MiB")
    languages = args.language or [f"{n}={p}" for n, p in DEFAULT_LISTS.items() if Path(p).is_file()]
    for spec in languages:
        name, _, path = spec.partition("=")
        bench_language(name, path, args, tasks)
    print(f"load average after: {_loadavg()}")


if __name__ == "__main__":
    main()
