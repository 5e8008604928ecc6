"""Time of the solutions sheet of whole games: the best plays of every round, then the PDF.

    .venv/bin/python bench/solutions.py [--games 5] [--first-seed 1] [--lexicon TWL06] [--language en] [--labelling rows-letters]

Each game is played by the engine from a seed (``python -m engine simulate``: random racks, the master on
the board, to the end of the bag), so its rounds are a real game's positions, blanks included. For each game
it prints the rounds, how many racks held 1 and 2 blanks, the time of ``best_plays`` over every round (as the
sheet asks it: ``ARBITER_SOLUTIONS_PLAYS``), the slowest round, and the time to draw the PDF. The word graph's
one-off table is built before the first game, as a server that has run a round has it already.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from engine.board import Board  # noqa: E402
from engine.cli import simulate_game  # noqa: E402
from engine.lexicon import load_lexicon  # noqa: E402
from engine.rules import rules_preset  # noqa: E402
from engine.search import best_plays, find_tops  # noqa: E402
from engine.tiles import load_tileset  # noqa: E402
from tournaments.sheets.data import Header  # noqa: E402
from tournaments.sheets.solutions import SolutionRound, Solutions, render_solutions  # noqa: E402
from tournaments.sheets.solutions_source import ordered  # noqa: E402


def _rounds(game, lexicon, tileset, rules, labelling) -> tuple[list[SolutionRound], list[float], list[int]]:
    count = settings.ARBITER_SOLUTIONS_PLAYS
    board, lines, times, blanks = Board.empty(), [], [], []
    for record in game.rounds:
        rack = record.rack.replace("+", "")
        if record.master is None:  # cancelled: drawn again under its number, left off the sheet
            continue
        started = time.perf_counter()
        plays = best_plays(board, rack, lexicon, tileset, rules, count)
        times.append(time.perf_counter() - started)
        blanks.append(rack.count("?"))
        top = plays[0].score
        found = [{"word": p.word, "row": p.row, "col": p.col, "horizontal": p.horizontal, "score": p.score}
                 for p in plays]
        master = {"word": record.master.word, "row": record.master.row, "col": record.master.col,
                  "horizontal": record.master.horizontal}
        rows = ordered(found, master, labelling)
        lines.append(SolutionRound(number=record.number, rack=record.rack, plays=tuple(rows), top_score=top,
                                   tops=sum(1 for row in rows if row.top), players=24, found_top=3))
        board = board.place(record.master)
    return lines, times, blanks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--lexicon", default="TWL06")
    parser.add_argument("--language", default="en", choices=("en", "fr"))
    parser.add_argument("--labelling", default="rows-letters", choices=("rows-letters", "rows-numbers"))
    args = parser.parse_args()
    lexicon = load_lexicon(args.lexicon, cache_dir=str(settings.LEXICON_CACHE_DIR))
    tileset, rules = load_tileset("english"), rules_preset("fisf")
    find_tops(Board.empty(), "AEINRST", lexicon, tileset, rules)  # the word graph's one-off table
    print(f"{'seed':>4} {'rounds':>6} {'1 blank':>7} {'2 blanks':>8} {'best plays':>10} {'slowest':>8} "
          f"{'PDF':>6} {'total':>6}")
    for seed in range(args.first_seed, args.first_seed + args.games):
        game = simulate_game(seed, lexicon, tileset, rules)
        started = time.perf_counter()
        lines, times, blanks = _rounds(game, lexicon, tileset, rules, args.labelling)
        engine_done = time.perf_counter()
        header = Header(tournament="Bench", game=f"Game {seed}", lexicon=args.lexicon, language=args.language,
                        coordinates=args.labelling)
        pdf = render_solutions(Solutions(header=header, rounds=tuple(lines), status="over"))
        done = time.perf_counter()
        assert pdf.startswith(b"%PDF")
        print(f"{seed:>4} {len(game.rounds):>6} {blanks.count(1):>7} {blanks.count(2):>8} "
              f"{engine_done - started:>9.2f}s {max(times):>7.3f}s {done - engine_done:>5.2f}s "
              f"{done - started:>5.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
