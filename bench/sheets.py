"""Time and peak memory of the printed sheets, rendered from synthetic plain data (no database).

    .venv/bin/python bench/sheets.py [--runs 5] [--players 1000] [--scoresheets 200] [--rounds 20]

Prints, for the standings of --players players and the scoresheets of --scoresheets players over --rounds
rounds (one PDF, one player per page), and for a game record: the median wall time of --runs runs, the
peak Python memory of one run (tracemalloc), the peak resident memory of the process that rendered it
(each case runs in a fresh process, after the fonts are loaded) and the size of the PDF.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.sheets.data import (  # noqa: E402
    GameRecord,
    Header,
    RecordRound,
    Scoresheet,
    ScoresheetRound,
    StandingRow,
    Standings,
)
from tournaments.sheets.record import render_record  # noqa: E402
from tournaments.sheets.scoresheet import render_scoresheets  # noqa: E402
from tournaments.sheets.standings import render_standings  # noqa: E402
from tournaments.sheets.typefaces import register_fonts  # noqa: E402

FIRST = ["Zoé", "Łukasz", "Anne", "José", "Ingrid", "Chloé", "Søren", "Hélène", "Mátyás", "Ágnes", "Paul"]
LAST = ["Lefèvre", "Żmuda", "Dupont", "Müller", "Østergård", "Nguyễn", "Öztürk", "Martin", "Čapek", "Smith"]
LETTERS = "AAAAAAAAABBCCDDDDEEEEEEEEEEEEFFGGGHHIIIIIIIIIJKLLLLMMNNNNNNOOOOOOOOPPQRRRRRRSSSSTTTTTTUUUUVVWWXYYZ"
REASONS = ["ok"] * 12 + ["wrong_score", "reversed_ref", "invalid_word", "no_slip", "wrong_ref", "not_in_rack"]
OUTCOMES = {"ok": "ok", "wrong_score": "warning", "reversed_ref": "warning", "wrong_ref": "penalty"}

HEADER = Header(
    tournament="Open de Vichy — Festival 2026",
    game="Game 1",
    date="2026-11-21",
    lexicon="TWL06",
    lexicon_sha256="9f" * 32,
    ruleset="fisf",
)


def _word(rng: random.Random, length: int) -> str:
    word = "".join(rng.choice(LETTERS) for _ in range(length))
    if rng.random() < 0.1:
        index = rng.randrange(length)
        word = word[:index] + word[index].lower() + word[index + 1 :]
    return word


def _ref(rng: random.Random) -> str:
    row, col = chr(ord("A") + rng.randrange(15)), str(rng.randrange(1, 16))
    return row + col if rng.random() < 0.5 else col + row


def synthetic_standings(players: int, seed: int = 1) -> Standings:
    rng = random.Random(seed)
    top_total = 1000
    totals = sorted((rng.randint(300, top_total) for _ in range(players)), reverse=True)
    rows = []
    for index, total in enumerate(totals):
        rank = index + 1 if index == 0 or totals[index - 1] != total else rows[-1].rank
        rows.append(
            StandingRow(
                rank=rank,
                name=f"{rng.choice(FIRST)} {rng.choice(LAST)}",
                table=index + 1,
                series=str(rng.randint(1, 7)),
                total=total,
                diff=total - top_total,
                percent=100 * total / top_total,
                tops=rng.randint(0, 8),
                solos=rng.randint(0, 2),
                warnings=rng.randint(0, 4),
                penalties=rng.randint(0, 2),
            )
        )
    return Standings(header=HEADER, rows=tuple(rows), top_total=top_total)


def synthetic_scoresheets(players: int, rounds: int, seed: int = 2) -> list[Scoresheet]:
    rng = random.Random(seed)
    tops = [(_word(rng, rng.randint(4, 9)), _ref(rng), rng.randint(20, 110)) for _ in range(rounds)]
    sheets = []
    for index in range(players):
        lines, total, top_total = [], 0, 0
        for number, (top_word, top_ref, top_score) in enumerate(tops, start=1):
            reason = rng.choice(REASONS)
            outcome = OUTCOMES.get(reason, "zero")
            paid = 0 if outcome == "zero" else rng.randint(0, top_score)
            total += paid
            top_total += top_score
            lines.append(
                ScoresheetRound(
                    number=number,
                    rack=_word(rng, 3) + "+" + _word(rng, 4).upper(),
                    word="" if reason == "no_slip" else _word(rng, rng.randint(2, 9)),
                    ref="" if reason == "no_slip" else _ref(rng),
                    claimed=paid + rng.choice([0, 0, 0, 2]),
                    paid=paid,
                    outcome=outcome,
                    reason=reason,
                    top_word=top_word,
                    top_ref=top_ref,
                    top_score=top_score,
                    total=total,
                    top_total=top_total,
                )
            )
        summary = StandingRow(
            rank=index + 1,
            name=f"{rng.choice(FIRST)} {rng.choice(LAST)}",
            table=index + 1,
            total=total,
            diff=total - top_total,
            percent=100 * total / top_total,
            tops=2,
            solos=0,
            warnings=3,
            penalties=1,
        )
        sheets.append(
            Scoresheet(
                header=HEADER,
                name=summary.name,
                table=summary.table,
                rounds=tuple(lines),
                summary=summary,
                players=players,
                top_total=top_total,
            )
        )
    return sheets


def synthetic_record(rounds: int, seed: int = 3) -> GameRecord:
    rng = random.Random(seed)
    lines, total = [], 0
    for number in range(1, rounds + 1):
        score = rng.randint(20, 110)
        total += score
        rejected = ("-" + _word(rng, 7).upper() + "+",) if rng.random() < 0.1 else ()
        lines.append(
            RecordRound(
                number=number,
                rack=_word(rng, 3).upper() + "+" + _word(rng, 4).upper(),
                rejected=rejected,
                master_word=_word(rng, rng.randint(4, 9)),
                master_ref=_ref(rng),
                master_score=score,
                top_total=total,
                tops=rng.choice([1, 1, 1, 2]),
            )
        )
    board = tuple("".join(rng.choice(LETTERS + "." * 150) for _ in range(15)) for _ in range(15))
    return GameRecord(header=HEADER, rounds=tuple(lines), board=board)


def _measure(label: str, render, data, runs: int) -> str:
    register_fonts()
    times = []
    size = 0
    for _ in range(runs):
        start = time.perf_counter()
        size = len(render(data))
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    render(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return (
        f"{label:<40} median {statistics.median(times):5.2f} s (min {min(times):.2f}, max {max(times):.2f}, "
        f"{runs} runs)  peak {peak / 2**20:5.1f} MiB traced, {rss:5.0f} MiB resident  pdf {size / 2**10:5.0f} KiB"
    )


def measure(label: str, render, data, runs: int) -> None:
    """Run ``_measure`` in a fresh process so that each case's resident peak is its own."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        print(pool.apply(_measure, (label, render, data, runs)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--scoresheets", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    measure(
        f"standings, {args.players} players", render_standings, synthetic_standings(args.players), args.runs
    )
    measure(
        f"scoresheets, {args.scoresheets} players x {args.rounds} rounds",
        render_scoresheets,
        synthetic_scoresheets(args.scoresheets, args.rounds),
        args.runs,
    )
    measure(f"game record, {args.rounds} rounds", render_record, synthetic_record(args.rounds), args.runs)


if __name__ == "__main__":
    main()
