"""Search speed on the tile sets with tiles of several letters: prints figures, asserts nothing.

    python bench/tilesets.py [--games 3] [--sets spanish,catalan]

For each set, a free word list (Debian's wspanish / wcatalan in /usr/share/dict, not tournament lists) is
imported into a throw-away cache, a few whole games are simulated from fixed seeds (engine.cli.simulate_game),
and the top search (``find_tops``) and the count of legal plays are timed on every position of those games
(board before the round, its rack), compiled and pure Python alternating position by position, cpu time,
each from a board not seen before.  The positions are taken again with two of the rack's tiles made blanks.  Medians (overall and with 2
blanks on the rack) and p90 are printed, and on how many positions both searches answered the same.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import search as search_module  # noqa: E402
from engine.board import Board  # noqa: E402
from engine.cli import simulate_game  # noqa: E402
from engine.lexicon import import_lexicon  # noqa: E402
from engine.rules import rules_preset  # noqa: E402
from engine.tiles import load_tileset  # noqa: E402

LISTS = {"spanish": "/usr/share/dict/spanish", "catalan": "/usr/share/dict/catalan"}


def positions(game) -> list[tuple[Board, str]]:
    board, out = Board.empty(), []
    for r in game.rounds:
        rack = r.rack.replace("+", "")
        out.append((board, rack))
        if r.master is not None:
            board = board.place(r.master)
    return out


def _time(fn, *args) -> float:
    search_module._board_caches.clear()  # the board's analysis: made again, as for a board not seen before
    started = time.process_time()
    fn(*args)
    return time.process_time() - started


def _figures(times: list[float]) -> str:
    if not times:
        return "-"
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {1000 * statistics.median(ordered):.2f} ms, p90 {1000 * p90:.2f} ms ({len(ordered)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--sets", default="spanish,catalan")
    args = parser.parse_args()
    rules = rules_preset("fisf")
    compiled_ok = search_module.compiled_search_installed()
    with tempfile.TemporaryDirectory() as cache:
        for name in [s for s in args.sets.split(",") if s]:
            path = Path(LISTS.get(name, ""))
            if not path.is_file():
                print(f"{name}: no word list at {path} (apt-get install w{name}): skipped")
                continue
            tileset = load_tileset(name)
            started = time.process_time()
            result = import_lexicon(f"bench-{name}", path.read_text(encoding="utf-8").split(), tileset, cache_dir=cache)
            lexicon = result.lexicon
            print(f"{name}: {len(lexicon)} words ({len(result.rejected)} entries refused), import "
                  f"{time.process_time() - started:.1f} s cpu")
            search_module.use_compiled_search(True)
            games = [simulate_game(seed, lexicon, tileset, rules) for seed in range(1, args.games + 1)]
            spots = [p for game in games for p in positions(game)]
            # The same positions with two of the rack's tiles made blanks: the 2-blank figures.
            spots += [(board, rack[:-2] + "??") for board, rack in spots if len(rack) > 2 and "?" not in rack]
            searches = ["python", "compiled"] if compiled_ok else ["python"]
            times = {(s, task): {"all": [], "2 blanks": []} for s in searches for task in ("tops", "count")}
            answers: dict = {}  # (position, task) -> what each search answered (the tops' score, the count)
            for k, (board, rack) in enumerate(spots):
                for s in searches:
                    search_module.use_compiled_search(s == "compiled")
                    for task, fn in (("tops", search_module.find_tops), ("count", search_module.count_plays)):
                        out = []
                        t = _time(lambda *a, fn=fn, out=out: out.append(fn(*a)), board, rack, lexicon, tileset, rules)
                        answer = out[0].score if task == "tops" else out[0]
                        answers.setdefault((k, task), set()).add(answer)
                        times[(s, task)]["all"].append(t)
                        if rack.count("?") == 2:
                            times[(s, task)]["2 blanks"].append(t)
            search_module.use_compiled_search(True)
            agree = sum(len(a) == 1 for a in answers.values())
            print(f"  {len(spots)} positions from {len(games)} games (seeds 1-{args.games}) and the same with 2 "
                  f"blanks; both searches answered the same (top score, count) on {agree} of {len(answers)}; cpu time:")
            for (s, task), groups in times.items():
                print(f"  {task:5s} {s:8s} all: {_figures(groups['all'])}; 2 blanks: {_figures(groups['2 blanks'])}")


if __name__ == "__main__":
    main()
