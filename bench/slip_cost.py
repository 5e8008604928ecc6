"""The cost of one slip on the server: CPU of the web process, of PostgreSQL and of Redis, round trips.

In one process, against a fresh PostgreSQL database (dropped and recreated, default arbiter_bench_slips) and
a Redis db it flushes (default 13), with DJANGO_SETTINGS_MODULE=arbiter.settings.base and DEBUG=0 (as
production): a tournament, a game, --players players, round 1 drawn and started (a round long enough that
no slip is late). Then each player hands in one slip (a top of the rack at its score, or at a wrong score)
through the ASGI application uvicorn serves (arbiter.asgi.application: arrival stamp, the slips' fast path,
Django for anything else), --concurrency at a time, each answer checked (201 with a receipt). Then every
player sends the same slip again (the phone's retry: 200, replayed). Then the round is closed: every slip
judged, the results written and, with the log chain's rows, every slip and result hashed into the close's
entry (tournaments/logchain.py): its cost is printed per player, beside the whole close's time.

It prints, for the new slips and for the replays: slips per second, this process's CPU per slip (user +
system, from the process's counters), the CPU per slip of the PostgreSQL backends serving this database
(their /proc counters) and of redis-server (the whole server: other users of it count too), the SQL
statements and Redis commands per slip (counted in this process), and the load average beside them (other
work on the machine skews wall-clock figures, much less the CPU ones). --profile N: cProfile of N more new
slips served one at a time in this thread (the fast path's sync part: parse and submit), the top functions.

Run from the repository, PostgreSQL (trust auth) and Redis on 127.0.0.1:
    .venv/bin/python bench/slip_cost.py --players 500
    .venv/bin/python bench/slip_cost.py --players 500 --concurrency 8 --profile 300
Options: --players 500 --concurrency 1 --profile 0 --database arbiter_bench_slips --redis-db 13 --repeat 1
(runs of the whole measure, the median printed when more than one).
Bounded: --players at most 5,000, --repeat at most 9, one slip waits at most 30 s.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import re
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_BASE = "postgres://postgres@127.0.0.1:5432"
REDIS_BASE = "redis://127.0.0.1:6379"
TICK = os.sysconf("SC_CLK_TCK")
RACK = "ACEILMN"


def proc_cpu(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def redis_pids() -> list[int]:
    pids = []
    for stat in Path("/proc").glob("[0-9]*/comm"):
        try:
            if stat.read_text().startswith("redis"):
                pids.append(int(stat.parent.name))
        except OSError:
            pass
    return pids


class Counters:
    """SQL statements (every cursor of this process) and Redis commands (every client of this process)."""

    def __init__(self):
        self.sql = 0
        self.redis = 0

    def install(self) -> None:
        from django.db.backends import utils
        from redis import client

        counters = self
        execute, executemany = utils.CursorWrapper.execute, utils.CursorWrapper.executemany

        def counted_execute(cursor, sql, params=None):
            counters.sql += 1
            return execute(cursor, sql, params)

        def counted_executemany(cursor, sql, param_list):
            counters.sql += 1
            return executemany(cursor, sql, param_list)

        utils.CursorWrapper.execute, utils.CursorWrapper.executemany = counted_execute, counted_executemany
        command = client.Redis.execute_command

        def counted_command(redis, *args, **options):
            counters.redis += 1
            return command(redis, *args, **options)

        client.Redis.execute_command = counted_command
        pipeline = client.Pipeline.execute

        def counted_pipeline(pipe, *args, **options):
            counters.redis += len(pipe.command_stack)
            return pipeline(pipe, *args, **options)

        client.Pipeline.execute = counted_pipeline


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
    from django.core.cache import cache
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    cache.clear()


def make_hall(players: int):
    from tournaments import services
    from tournaments.models import Tournament

    tournament = Tournament.objects.create(name="Slip cost", round_seconds=3600)
    game = services.game_create(tournament=tournament, seed=1)
    hall = [services.player_register(game=game, name=f"Player {i + 1}") for i in range(players)]
    round_ = services.round_start(round=services.round_draw(game=game, rack=RACK))
    return game, round_, [token for _, token in hall]


def scope_of(path: str, token: str, content: bytes) -> dict:
    headers = [(b"host", b"localhost"), (b"content-type", b"application/json"),
               (b"content-length", str(len(content)).encode()), (b"authorization", f"Bearer {token}".encode()),
               (b"accept-language", b"fr-FR,fr;q=0.9,en;q=0.5")]
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}


async def post(application, path: str, token: str, body: dict) -> tuple[int, dict]:
    content = json.dumps(body).encode()
    sent: list[dict] = []
    given = []

    async def receive():
        if not given:
            given.append(1)
            return {"type": "http.request", "body": content, "more_body": False}
        await asyncio.sleep(30)
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await asyncio.wait_for(application(scope_of(path, token, content), receive, send), 30)
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(answer)


def slips(tokens: list[str], tag: str) -> list[tuple[str, dict]]:
    out = []
    for i, token in enumerate(tokens):
        score = 78 if i % 3 else 70
        out.append((token, {"word": "MELANIC", "ref": "H4", "score": score, "key": f"{tag}-{i}", "seq": 1000 + i}))
    return out


class Meter:
    def __init__(self, database: str):
        self.database = database

    def backends(self) -> list[int]:
        from django.db import connections

        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.database])
            return [row[0] for row in cursor.fetchall()]

    def mark(self, counters: Counters) -> dict:
        pids = self.backends()
        times = os.times()
        return {"wall": time.monotonic(), "cpu": times.user + times.system, "pg": {p: proc_cpu(p) for p in pids},
                "redis": sum(proc_cpu(p) for p in redis_pids()), "sql": counters.sql, "cmds": counters.redis}

    @staticmethod
    def per(before: dict, after: dict, n: int) -> dict:
        pg = sum(v - before["pg"].get(p, 0.0) for p, v in after["pg"].items())
        return {"per_s": n / (after["wall"] - before["wall"]), "web_ms": (after["cpu"] - before["cpu"]) / n * 1000,
                "pg_ms": pg / n * 1000, "redis_ms": (after["redis"] - before["redis"]) / n * 1000,
                "sql": (after["sql"] - before["sql"]) / n, "cmds": (after["cmds"] - before["cmds"]) / n}


async def send_all(application, path: str, batch, concurrency: int, expect: int) -> None:
    gate = asyncio.Semaphore(concurrency)
    wrong = []

    async def one(token, body):
        async with gate:
            status, answer = await post(application, path, token, body)
            if status != expect or "receipt" not in answer:
                wrong.append((status, answer))

    await asyncio.gather(*(one(token, body) for token, body in batch))
    if wrong:
        raise SystemExit(f"{len(wrong)} slips answered otherwise than {expect}, e.g. {wrong[0]}")


def fmt(figures: dict) -> str:
    return (f"{figures['per_s']:.0f} slips/s; CPU per slip: web process {figures['web_ms']:.2f} ms, PostgreSQL "
            f"{figures['pg_ms']:.2f} ms, redis-server {figures['redis_ms']:.2f} ms; {figures['sql']:.1f} SQL "
            f"statements and {figures['cmds']:.1f} Redis commands per slip")


def fmt_close(figures: dict, players: int) -> str:
    return (f"{players / figures['per_s'] * 1000:.0f} ms for the whole close; CPU per player: web process "
            f"{figures['web_ms']:.3f} ms, PostgreSQL {figures['pg_ms']:.3f} ms; {figures['sql'] * players:.0f} SQL "
            "statements in all")


def median_of(runs: list[dict]) -> dict:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--profile", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--database", default="arbiter_bench_slips")
    parser.add_argument("--redis-db", type=int, default=13)
    args = parser.parse_args()
    if not 10 <= args.players <= 5000 or not 1 <= args.concurrency <= 64 or not 0 <= args.profile <= 5000:
        raise SystemExit("--players 10..5000, --concurrency 1..64, --profile 0..5000")
    if not 1 <= args.repeat <= 9 or not 0 <= args.redis_db <= 15:
        raise SystemExit("--repeat 1..9, --redis-db 0..15")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database) or "bench" not in args.database and \
            "festival" not in args.database:
        raise SystemExit("--database: a lowercase name containing 'bench' or 'festival' (it is dropped)")
    setup_django(args.database, args.redis_db)
    counters = Counters()
    counters.install()
    # The server process warms the move search up in a thread of its own (arbiter/asgi.py): its CPU is not a
    # slip's, so it is let finish first.
    import threading

    from arbiter.asgi import application
    from tournaments.api import fast

    for thread in threading.enumerate():
        if thread.name == "engine-warm-up":
            thread.join(timeout=180)

    print(f"slip cost: {args.players} players, {args.concurrency} at a time, database {args.database}, "
          f"Redis db {args.redis_db}; load average {os.getloadavg()[0]:.2f} at the start")
    news, replays, closes = [], [], []
    meter = Meter(args.database)
    for run in range(args.repeat):
        game, round_, tokens = make_hall(args.players)
        path = f"/api/games/{game.pk}/rounds/{round_.number}/slips"
        warm = slips(tokens[:5], f"warm{run}")
        asyncio.run(send_all(application, path, warm, 1, 201))
        batch = slips(tokens[5:], f"new{run}")
        served = fast.served["fast"]
        before = meter.mark(counters)
        asyncio.run(send_all(application, path, batch, args.concurrency, 201))
        news.append(meter.per(before, meter.mark(counters), len(batch)))
        if fast.served["fast"] - served != len(batch):
            raise SystemExit(f"only {fast.served['fast'] - served} of {len(batch)} slips took the fast path")
        before = meter.mark(counters)
        asyncio.run(send_all(application, path, batch, args.concurrency, 200))
        replays.append(meter.per(before, meter.mark(counters), len(batch)))
        from tournaments import services

        before = meter.mark(counters)
        if not services.round_close(round=round_):
            raise SystemExit("the round did not close")
        closes.append(meter.per(before, meter.mark(counters), args.players))
        print(f"  run {run + 1}: new slips {fmt(news[-1])}")
        print(f"         replays   {fmt(replays[-1])}")
        print(f"         close     {fmt_close(closes[-1], args.players)}")
    label = f"median of {args.repeat}" if args.repeat > 1 else "one run"
    print(f"new slips ({label}): {fmt(median_of(news))}")
    print(f"replays   ({label}): {fmt(median_of(replays))}")
    print(f"close     ({label}): {fmt_close(median_of(closes), args.players)}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    if args.profile:
        game, round_, tokens = make_hall(args.profile)
        path = f"/api/games/{game.pk}/rounds/{round_.number}/slips"
        profile = cProfile.Profile(time.process_time)
        cpu_before = time.process_time()
        for token, body in slips(tokens, "profiled"):
            content = json.dumps(body).encode()
            scope = scope_of(path, token, content)
            profile.enable()
            parsed = fast._parse(scope, content)
            answer = fast._submit(game.pk, round_.number, parsed[0], parsed[1], time.time(), fast._language(scope))
            profile.disable()
            if answer is None or answer[0] != 201:
                raise SystemExit(f"a profiled slip was not accepted: {answer}")
        direct = (time.process_time() - cpu_before) / args.profile * 1000
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out)
        stats.sort_stats("cumulative").print_stats(35)
        stats.sort_stats("tottime").print_stats(25)
        print(f"profile of {args.profile} slips (parse and submit, one at a time, this thread; CPU time, "
              f"{direct:.2f} ms per slip with the profiler's own cost):")
        print(out.getvalue())


if __name__ == "__main__":
    main()
