"""Server time of a festival round, in process (no HTTP): handing in slips, closing, publishing.

For one game of PLAYERS players on PostgreSQL and Redis, repeated ROUNDS times:
- slip_submit for every player (the service a slip request calls): median / p99 per slip;
- round_close with every slip judged (the tops already computed at the draw, as the worker does); the
  players as a hall of phones (joined by phone: no paper slips to wait for);
- the snapshot the pages read after the close (standings of every player, each player's own row).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_close REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/close.py [--players 1000] [--rounds 3] [--profile 25]

--profile N: the last round's close and snapshot run under cProfile, and the N functions with the most time
of their own are printed for each (the profiler's cost included in the times printed for that round).

The database named in DATABASE_URL is dropped and created again (it must not be a real one).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0)
    args = parser.parse_args()
    args.players = max(1, min(args.players, 5000))
    args.rounds = max(1, min(args.rounds, 10))
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        raise SystemExit("set DATABASE_URL to a scratch PostgreSQL database (it is dropped)")
    name = url.rsplit("/", 1)[1]
    base = url.rsplit("/", 1)[0]
    subprocess.run(["psql", f"{base}/postgres", "-qc", f'DROP DATABASE IF EXISTS "{name}"'], check=True)
    subprocess.run(["psql", f"{base}/postgres", "-qc", f'CREATE DATABASE "{name}"'], check=True)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.core.management import call_command

    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    call_command("migrate", verbosity=0)
    cache.clear()

    from django.utils import timezone

    from tournaments import services
    from tournaments.live import snapshot as live
    from tournaments.models import Player, Result

    tournament = services.tournament_create(name="Close bench", round_seconds=180)
    game = services.game_create(tournament=tournament, seed=7)
    started = time.perf_counter()
    players = [services.player_register(game=game, name=f"P{i}")[0] for i in range(args.players)]
    Player.objects.filter(pk__in=[p.pk for p in players]).update(joined_by_phone=True)  # a hall of phones
    print(f"{args.players} players registered in {time.perf_counter() - started:.1f} s")
    rng = random.Random(1)
    submit, close, snapshot = [], [], []
    for number in range(1, args.rounds + 1):
        rnd = services.round_compute_tops(round=services.round_draw(game=game))
        rnd = services.round_start(round=rnd)
        top = rnd.tops[0] if rnd.tops else None
        for i, player in enumerate(players):
            kind = i % 4
            if top is None or kind == 3:
                word, ref, score = "QXZW", "H8", 30  # not a word, nor in the rack
            else:
                word, ref = top["word"], top["ref"]
                score = top["score"] if kind < 2 else top["score"] + rng.randint(1, 9)
            t0 = time.perf_counter()
            services.slip_submit(round=rnd, player=player, word=word, ref=ref, score=score, key=f"{number}-{i}",
                                 now=timezone.now())
            submit.append(time.perf_counter() - t0)
        profiled = args.profile and number == args.rounds
        profiles = [cProfile.Profile(), cProfile.Profile()] if profiled else [None, None]
        t0 = time.perf_counter()
        with profiles[0] or contextlib.nullcontext():
            services.round_close(round=rnd)
        close.append(time.perf_counter() - t0)
        assert Result.objects.filter(round=rnd).count() == args.players
        t0 = time.perf_counter()
        with profiles[1] or contextlib.nullcontext():
            live.game_snapshot(game.pk)
        snapshot.append(time.perf_counter() - t0)
        if profiled:
            for what, profile in zip(("round_close", "snapshot"), profiles, strict=True):
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out).sort_stats(os.environ.get("BENCH_SORT", "tottime"))
                stats.print_stats(os.environ.get("BENCH_ONLY", ""), args.profile)
                if os.environ.get("BENCH_CALLERS"):
                    stats.print_callers(os.environ["BENCH_CALLERS"])
                print(f"profile of {what}, round {number}:")
                print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000])
        print(f"round {number}: top {rnd.top_score}, close {close[-1] * 1000:.0f} ms, "
              f"snapshot {snapshot[-1] * 1000:.0f} ms")
    print(f"slip_submit: median {statistics.median(submit) * 1000:.2f} ms, p99 {percentile(submit, 0.99) * 1000:.2f} ms "
          f"over {len(submit)} slips")
    print(f"round_close ({args.players} slips judged): median {statistics.median(close) * 1000:.0f} ms")
    print(f"snapshot after the close: median {statistics.median(snapshot) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
