"""What a round costs the live read model, counted rather than timed: figures that a loaded machine does not move.

In one process, against a fresh PostgreSQL database (dropped and recreated, default arbiter_bench_counts) and a
Redis db it flushes (default 13), with DJANGO_SETTINGS_MODULE=arbiter.settings.base and DEBUG=0: a tournament,
a game of --players players, round 1 drawn and started. Then, through the code a hall runs:

1. the open round: every player but --after ones hands in a slip through the slips' fast path
   (tournaments.api.fast: parse and submit, in this thread), and after each slip the reads a live stream's
   watcher and a phone's poll make (the snapshot at the game's version, its slip counts as of the progress
   mark);
2. the close at the deadline (services.round_close, as the clock's task makes it), then the reads of the
   pages told of it: the watcher's snapshot, each player's own line (a phone asks for it), the projector's
   whole standings;
3. the last --after players' slips, arrived before the deadline and served after the close (a crowd at the
   deadline), each followed by the watcher's read.

It prints for each phase: the game's versions (bumps), the snapshots built (tournaments.live.snapshot
build_snapshot), the standings computed (selectors.game_standings), SQL statements per accepted slip (min,
mean, max), and the CPU time of this process per slip and per snapshot built (time.process_time: much less
moved by other work on the machine than a wall clock, still not free of it). The counts are what to compare
between two versions of the code; the times only say where the CPU goes.

Run from the repository, PostgreSQL (trust auth) and Redis on 127.0.0.1:
    .venv/bin/python bench/live_counts.py --players 300
Options: --players 300 --after 10 --database arbiter_bench_counts --redis-db 13 --csv (one line of figures).
Bounded: --players 10..5000, --after 0..--players/2.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_BASE = "postgres://postgres@127.0.0.1:5432"
REDIS_BASE = "redis://127.0.0.1:6379"
RACK = "ACEILMN"


class Tally:
    """Counts of what the live side did, from wrappers around the functions that do it."""

    def __init__(self):
        self.sql = 0
        self.bumps = 0
        self.builds = 0
        self.build_cpu = 0.0
        self.standings = 0
        self.degraded = 0

    def install(self) -> None:
        from django.db.backends import utils

        from tournaments import selectors, versions
        from tournaments.live import snapshot

        tally = self
        execute, executemany = utils.CursorWrapper.execute, utils.CursorWrapper.executemany

        def counted_execute(cursor, sql, params=None):
            tally.sql += 1
            return execute(cursor, sql, params)

        def counted_executemany(cursor, sql, param_list):
            tally.sql += 1
            return executemany(cursor, sql, param_list)

        utils.CursorWrapper.execute, utils.CursorWrapper.executemany = counted_execute, counted_executemany
        bump = versions.bump

        def counted_bump(game_id):
            tally.bumps += 1
            return bump(game_id)

        versions.bump = counted_bump
        import tournaments.reading as reading

        reading.bump = counted_bump
        build = snapshot.build_snapshot

        def counted_build(game_id):
            began = time.process_time()
            try:
                return build(game_id)
            finally:
                tally.builds += 1
                tally.build_cpu += time.process_time() - began

        snapshot.build_snapshot = counted_build
        degraded = snapshot.degraded_snapshot

        def counted_degraded(game_id):
            tally.degraded += 1
            return degraded(game_id)

        snapshot.degraded_snapshot = counted_degraded
        standings = selectors.game_standings

        def counted_standings(*args, **kwargs):
            tally.standings += 1
            return standings(*args, **kwargs)

        selectors.game_standings = counted_standings

    def mark(self) -> dict:
        from arbiter.cache import outage

        return {"sql": self.sql, "bumps": self.bumps, "builds": self.builds, "build_cpu": self.build_cpu,
                "standings": self.standings, "degraded": self.degraded, "cache_failures": outage.failures,
                "cpu": time.process_time()}


def setup_django(database: str, redis_db: int) -> None:
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "arbiter.settings.base", "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"{PG_BASE}/{database}", "REDIS_URL": f"{REDIS_BASE}/{redis_db}",
    })
    sys.path.insert(0, str(ROOT))
    import psycopg

    with psycopg.connect(f"{PG_BASE}/postgres", autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}"')
    import django

    django.setup()
    from django.conf import settings

    # Keys of their own: versions and progress marks are named by game id, which another run on the same
    # Redis db (a second checkout measured at once) would share.
    settings.CACHES["default"]["KEY_PREFIX"] = f"{database}-{os.getpid()}"
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def make_hall(players: int):
    from tournaments import services
    from tournaments.models import Tournament

    tournament = Tournament.objects.create(name="Live counts", round_seconds=3600)
    game = services.game_create(tournament=tournament, seed=1)
    hall = [services.player_register(game=game, name=f"Player {i + 1}") for i in range(players)]
    round_ = services.round_start(round=services.round_draw(game=game, rack=RACK))
    # The tops are searched while the round runs (the worker's task), not by the close.
    round_ = services.round_compute_tops(round=round_)
    return game, round_, hall


def scope_of(path: str, token: str, content: bytes) -> dict:
    headers = [(b"host", b"localhost"), (b"content-type", b"application/json"),
               (b"content-length", str(len(content)).encode()), (b"authorization", f"Bearer {token}".encode()),
               (b"accept-language", b"fr-FR,fr;q=0.9,en;q=0.5")]
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}


def slip_of(i: int) -> dict:
    # Two of three at the top's score, the others at a wrong one: a hall's few distinct slips.
    return {"word": "MELANIC", "ref": "H4", "score": 78 if i % 3 else 70, "key": f"slip-{i}", "seq": 1000 + i}


def hand_in(game_id: int, number: int, token: str, body: dict, arrived: float, tally: Tally) -> tuple[int, float]:
    """One slip through the fast path (parse and submit, as its thread does); (SQL statements, CPU s)."""
    from tournaments.api import fast

    content = json.dumps(body).encode()
    scope = scope_of(f"/api/games/{game_id}/rounds/{number}/slips", token, content)
    sql, cpu = tally.sql, time.process_time()
    parsed = fast._parse(scope, content)
    answer = None if parsed is None else fast._submit(game_id, number, parsed[0], parsed[1], arrived,
                                                       fast._language(scope))
    cpu, sql = time.process_time() - cpu, tally.sql - sql
    if answer is None or answer[0] != 201:
        raise SystemExit(f"a slip was not accepted on the fast path: {answer}")
    return sql, cpu


def watcher_read(game_id: int) -> dict | None:
    """What a live stream's watcher and a phone's /live poll read: the snapshot at the game's version (a round
    past its deadline closed on the way), with its slip counts as of the progress mark."""
    from django.db import connections

    from tournaments import reading
    from tournaments.live import snapshot as live
    from tournaments.versions import progress_mark

    try:
        snapshot = reading.game_snapshot(game_id)
        if snapshot is not None:
            snapshot = live.with_progress(snapshot, progress_mark(game_id))
        return snapshot
    finally:
        connections.close_all()


def phase(before: dict, after: dict, slips: list[tuple[int, float]] | None = None) -> dict:
    figures = {key: after[key] - before[key] for key in ("sql", "bumps", "builds", "standings", "degraded",
                                                         "cache_failures")}
    figures["cpu_ms"] = (after["cpu"] - before["cpu"]) * 1000
    figures["build_ms"] = (after["build_cpu"] - before["build_cpu"]) * 1000 / max(1, figures["builds"])
    if slips:
        queries = [q for q, _ in slips]
        figures["slips"] = len(slips)
        figures["sql_per_slip"] = (min(queries), statistics.mean(queries), max(queries))
        figures["slip_cpu_ms"] = statistics.mean(c for _, c in slips) * 1000
    return figures


def profile_build(game_id: int) -> None:
    """cProfile (CPU time) of one snapshot build of the closed round, its standings not in the cache."""
    import cProfile
    import io
    import pstats

    from django.core.cache import cache

    from tournaments.live import snapshot as live
    from tournaments.models import Game
    from tournaments.versions import live_key

    game = Game.objects.select_related("tournament").get(pk=game_id)
    cache.delete(live_key(game_id, "scores", live._scores_signature(game)))
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    live.build_snapshot(game_id)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(30)
    print(out.getvalue())


def commit() -> str:
    head = ROOT / ".git"
    try:
        import subprocess

        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or "?"
    except OSError:
        return head.name


def main() -> None:  # noqa: PLR0915 - one measure, phase by phase
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--after", type=int, default=10)
    parser.add_argument("--database", default="arbiter_bench_counts")
    parser.add_argument("--redis-db", type=int, default=13)
    parser.add_argument("--csv", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile one whole snapshot build after the close")
    args = parser.parse_args()
    if not 10 <= args.players <= 5000 or not 0 <= args.after <= args.players // 2:
        raise SystemExit("--players 10..5000, --after 0..players/2")
    if not 0 <= args.redis_db <= 15:
        raise SystemExit("--redis-db 0..15")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database) or "bench" not in args.database:
        raise SystemExit("--database: a lowercase name containing 'bench' (it is dropped)")
    setup_django(args.database, args.redis_db)
    import threading

    from django.db import connections
    from django.utils import timezone

    from tournaments import services
    from tournaments.live import snapshot as live
    from tournaments.models import Round

    for thread in threading.enumerate():
        if thread.name == "engine-warm-up":
            thread.join(timeout=180)
    import logging

    logging.getLogger("tournaments").setLevel(logging.WARNING)  # the counts say what the info lines would
    tally = Tally()
    tally.install()
    game, round_, hall = make_hall(args.players)
    connections.close_all()
    watcher_read(game.pk)  # the phones open their streams before the round: the snapshot is there
    tokens = [token for _, token in hall]
    in_round, after = tokens[: len(tokens) - args.after], tokens[len(tokens) - args.after:]
    # 1. The open round.
    hand_in(game.pk, 1, in_round[0], slip_of(0), time.time(), tally)  # the first slip warms the code up
    watcher_read(game.pk)
    before = tally.mark()
    slips = []
    for i, token in enumerate(in_round[1:], start=1):
        slips.append(hand_in(game.pk, 1, token, slip_of(i), time.time(), tally))
        watcher_read(game.pk)
    open_round = phase(before, tally.mark(), slips)
    # 2. The deadline, and the close the clock makes at it; the pages told of it read.
    deadline = timezone.now()
    Round.objects.filter(pk=round_.pk).update(deadline=deadline)
    connections.close_all()
    before = tally.mark()
    closed = services.round_close(round=Round.objects.get(pk=round_.pk), now=deadline)
    if not closed:
        raise SystemExit("the round did not close")
    connections.close_all()
    watcher_read(game.pk)
    for player, _ in hall:
        live.player_view(game.pk, player.pk)
    live.hall_standings(game.pk)
    connections.close_all()
    close = phase(before, tally.mark())
    # 3. Slips that arrived before the deadline, served after the close.
    before = tally.mark()
    late = []
    for i, token in enumerate(after, start=len(in_round)):
        late.append(hand_in(game.pk, 1, token, slip_of(i), deadline.timestamp() - 0.5, tally))
        watcher_read(game.pk)
    served_after = phase(before, tally.mark(), late) if late else None
    connections.close_all()
    # Sanity: every player has a result.
    results = Round.objects.get(pk=round_.pk).results.count()
    if results != args.players:
        raise SystemExit(f"{results} results for {args.players} players")
    if args.profile:
        profile_build(game.pk)
    head = commit()
    load = os.getloadavg()[0]
    q = open_round["sql_per_slip"]
    row = {
        "commit": head, "players": args.players, "load": round(load, 1),
        "open_bumps": open_round["bumps"], "open_builds": open_round["builds"],
        "open_standings": open_round["standings"], "open_degraded": open_round["degraded"],
        "cache_failures": open_round["cache_failures"] + close["cache_failures"]
        + (served_after["cache_failures"] if served_after else 0),
        "sql_per_slip": f"{q[0]}/{q[1]:.2f}/{q[2]}",
        "slip_cpu_ms": round(open_round["slip_cpu_ms"], 2),
        "open_cpu_ms_per_slip": round(open_round["cpu_ms"] / open_round["slips"], 2),
        "close_bumps": close["bumps"], "close_builds": close["builds"], "close_standings": close["standings"],
        "close_build_ms": round(close["build_ms"], 1), "close_cpu_ms": round(close["cpu_ms"], 0),
        "after_slips": args.after,
        "after_bumps": served_after["bumps"] if served_after else 0,
        "after_builds": served_after["builds"] if served_after else 0,
        "after_standings": served_after["standings"] if served_after else 0,
        "after_cpu_ms_per_slip": round(served_after["cpu_ms"] / served_after["slips"], 1) if served_after else 0,
    }
    if args.csv:
        print(",".join(str(value) for value in row.values()))
        return
    from django.core.cache import cache

    print(f"live counts at {head}: {args.players} players, load average {load:.1f}, cache keys under "
          f"{cache.key_prefix!r}")
    print(f"open round, {open_round['slips']} slips each followed by the watcher's read: "
          f"{open_round['bumps']} versions, {open_round['builds']} snapshots built, "
          f"{open_round['standings']} standings computed, {open_round['degraded']} reads without the cache; SQL per accepted slip min/mean/max {row['sql_per_slip']}; "
          f"CPU per slip {row['slip_cpu_ms']:.2f} ms (the slip alone), {row['open_cpu_ms_per_slip']:.2f} ms "
          f"with the reads")
    print(f"close and its readers ({args.players} phones' own lines, the projector's standings): "
          f"{close['bumps']} versions, {close['builds']} snapshots built ({close['build_ms']:.0f} ms CPU each), "
          f"{close['standings']} standings computed, {close['cpu_ms']:.0f} ms CPU in all")
    if served_after:
        print(f"{args.after} slips served after the close, each followed by the watcher's read: "
              f"{served_after['bumps']} versions, {served_after['builds']} snapshots built "
              f"({served_after['build_ms']:.0f} ms CPU each), {served_after['standings']} standings computed, "
              f"{row['after_cpu_ms_per_slip']:.1f} ms CPU per slip with its read")
    print("header: " + ",".join(row))
    print("csv: " + ",".join(str(value) for value in row.values()))


if __name__ == "__main__":
    main()
