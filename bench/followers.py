"""Followers at home polling a public results feed (tournaments/public.py), on 127.0.0.0/8 only.

``follow(base_url, path, count, every, until)`` runs ``count`` followers, each polling ``path`` every ``every``
seconds with ``If-None-Match`` (the ETag of its last 200), their moments spread evenly over the period (as
followers who opened the page at different moments are), each on a keep-alive connection of its own (opened
again when the server closed it while idle). It stops at ``until`` (seconds from now, or an ``asyncio.Event``,
bounded by ``MAX_SECONDS``) and returns the counts of 200, 304, other answers and errors, and the latency median
/ p99 (all answers, and 304 and 200 apart), with how many distinct ETags the followers saw, the polls per second
achieved beside those planned (count / every), answers per wall-clock second, and how late the client sent its
polls (``kept_up`` is false when it fell behind). bench/festival.py runs its CLI as ``--followers N`` during a
round.

Made to cost as little CPU per poll as Python allows, so that on a machine shared with the servers it stands
for people on the internet and not for the hall: one scheduler for all the followers (no task or timer per
follower), a protocol per connection (no stream objects), the request built once per ETag, the status read from
the answer's first bytes and the headers parsed only on a 200, and uvloop when installed. ``--nice 19`` runs it
at the lowest priority; it then reports whether it kept its schedule.

The CLI runs it against a running server:
    .venv/bin/python bench/followers.py http://127.0.0.1:8000 /api/public/<key> --count 1000 --every 10 --seconds 60
or, with ``--serve``, starts uvicorn itself (PostgreSQL and Redis from DATABASE_URL and REDIS_URL), makes a
tournament of one game with ``--players`` players and a public link, and closes a round every ``--close-every``
seconds while the followers poll (the feed's ETag moves with each close):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pages REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python bench/followers.py --serve --count 2000 --every 10 --seconds 40
Bounded: at most MAX_FOLLOWERS followers, MAX_SECONDS seconds, each request REQUEST_TIMEOUT seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

try:
    import uvloop
except ImportError:  # the plain asyncio loop then: a little more CPU per poll
    uvloop = None

ROOT = Path(__file__).resolve().parents[1]
MAX_FOLLOWERS = 20_000
MAX_SECONDS = 3600.0
REQUEST_TIMEOUT = 10.0
LATE_OK = 1.0  # a poll sent more than this after its moment: the client did not keep its schedule
TICK = 0.005  # the scheduler sends the polls due within this much at once


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def _loopback(base_url: str) -> tuple[str, int]:
    """The host and port of ``base_url``, refused unless every address it names is on 127.0.0.0/8."""
    parts = urlsplit(base_url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"an http://127.x.y.z:port address, not {base_url!r}")
    port = parts.port or 80
    addresses = {info[4][0] for info in socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)}
    if not addresses or not all(ipaddress.ip_address(a) in ipaddress.ip_network("127.0.0.0/8") for a in addresses):
        raise ValueError(f"{base_url!r} is not on 127.0.0.0/8: followers poll the loopback only")
    return parts.hostname, port


def _raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(needed, soft)), hard))


class _Stats:
    def __init__(self) -> None:
        self.ok = self.not_modified = self.other = self.errors = 0
        self.latencies: list[float] = []
        self.latencies_304: list[float] = []
        self.latencies_200: list[float] = []
        self.lateness: list[float] = []  # each poll's send after its planned moment (the client's own delay)
        self.per_second: dict[int, int] = {}  # answers (any status) per wall-clock second (int(time.time()))
        self.etags: set[str] = set()
        self.bytes = 0
        self.error_kinds: dict[str, int] = {}
        self.reopened = 0
        self.connects = 0
        self.busy = 0  # polls not sent: the follower's previous one was still unanswered
        self.unfinished = 0  # requests still unanswered when the followers stopped

    RAW = ("latencies", "latencies_304", "latencies_200", "lateness")
    COUNTS = ("ok", "not_modified", "other", "errors", "bytes", "reopened", "connects", "busy", "unfinished")

    def raw(self) -> dict:
        """What a follower process hands to bench/festival.py (``--json``), to be merged with ``merge``."""
        return {**{name: getattr(self, name) for name in self.COUNTS},
                "etags": sorted(self.etags), "error_kinds": self.error_kinds, "per_second": self.per_second,
                **{name: [round(v, 6) for v in getattr(self, name)] for name in self.RAW}}

    def merge(self, raw: dict) -> None:
        for name in self.COUNTS:
            setattr(self, name, getattr(self, name) + int(raw.get(name, 0)))
        for name in self.RAW:
            getattr(self, name).extend(float(v) for v in raw.get(name, ()))
        self.etags.update(raw["etags"])
        for kind, n in raw["error_kinds"].items():
            self.error_kinds[kind] = self.error_kinds.get(kind, 0) + int(n)
        for second, n in raw.get("per_second", {}).items():
            self.per_second[int(second)] = self.per_second.get(int(second), 0) + int(n)

    def result(self, count: int, seconds: float, every: float | None = None) -> dict:
        def ms(values, q):
            return round(percentile(values, q) * 1000, 2) if values else None

        requests = self.ok + self.not_modified + self.other + self.errors
        planned = round(count / every, 1) if every else None
        achieved = round(requests / seconds, 1) if seconds else 0.0
        return {
            "followers": count, "every": every, "seconds": round(seconds, 1), "requests": requests,
            "requests_per_second": achieved, "planned_per_second": planned,
            "status_200": self.ok, "status_304": self.not_modified, "other_status": self.other,
            "errors": self.errors, "error_kinds": dict(self.error_kinds), "reopened": self.reopened,
            "connects": self.connects, "busy": self.busy, "unfinished": self.unfinished, "etags_seen": len(self.etags), "body_bytes": self.bytes,
            "median_ms": ms(self.latencies, 0.5), "p99_ms": ms(self.latencies, 0.99),
            "median_304_ms": ms(self.latencies_304, 0.5), "p99_304_ms": ms(self.latencies_304, 0.99),
            "median_200_ms": ms(self.latencies_200, 0.5), "p99_200_ms": ms(self.latencies_200, 0.99),
            "lateness_median_ms": ms(self.lateness, 0.5), "lateness_p99_ms": ms(self.lateness, 0.99),
            "lateness_max_ms": round(max(self.lateness) * 1000, 1) if self.lateness else None,
            "per_second": dict(self.per_second),
            # The client kept its schedule: nearly every planned poll answered, and sent within a second of
            # its moment (at low priority it may not be, while the servers use the cores).
            "kept_up": bool(planned) and achieved >= 0.95 * planned and bool(self.lateness)
            and percentile(self.lateness, 0.99) <= LATE_OK,
        }


def rate_between(stats: dict, t0: float, t1: float) -> float:
    """Answers per second between two wall-clock times (time.time()), from a result's per-second counts."""
    first, last = int(t0), int(t1)
    if last <= first:
        return float("nan")
    return sum(n for second, n in stats["per_second"].items() if first <= int(second) < last) / (last - first)


class _Connection(asyncio.Protocol):
    """One TCP connection of a follower; its callbacks are ignored once the follower has moved to another."""

    __slots__ = ("follower", "transport")

    def __init__(self, follower: _Follower) -> None:
        self.follower = follower
        self.transport = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.follower.opened(self)

    def data_received(self, data: bytes) -> None:
        self.follower.received(self, data)

    def connection_lost(self, exc) -> None:
        self.transport = None
        self.follower.lost(self, exc)


class _Pool:
    """What the followers of one process share: the address, the requests built once per ETag, the stats."""

    def __init__(self, host: str, port: int, path: str, stats: _Stats) -> None:
        self.host, self.port, self.stats = host, port, stats
        self.loop = asyncio.get_running_loop()
        self.base = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
        self.requests = {"": (self.base + "\r\n").encode("latin-1")}

    def request(self, etag: str) -> bytes:
        built = self.requests.get(etag)
        if built is None:
            built = self.requests[etag] = (self.base + f"If-None-Match: {etag}\r\n\r\n").encode("latin-1")
        return built


class _Follower:
    """A follower's conditional polls on a kept-alive connection of its own, as raw bytes: the request is built
    once per ETag, the answer's status read from its first line, its headers parsed only on a 200 (ETag, length).
    A connection the server closed while idle is opened again at the next poll; a request sent on a reused
    connection that the server closed before any byte of the answer is sent once more on a new one, as a
    browser does (counted apart, not an error)."""

    __slots__ = ("pool", "etag", "connection", "sent_at", "reused", "head", "left", "status", "closing")

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.etag = ""
        self.connection: _Connection | None = None
        self.sent_at = 0.0  # 0: no request in flight
        self.reused = False
        self.head = b""
        self.left = -1  # body bytes still to come; -1 while the head is read
        self.status = 0
        self.closing = False

    def poll(self, now: float) -> bool:
        """Send the next request; False when the previous one is still unanswered (it is not sent twice)."""
        if self.sent_at:
            return False
        self.sent_at = now
        connection = self.connection
        if connection is not None and connection.transport is not None and not self.closing:
            self.reused = True
            connection.transport.write(self.pool.request(self.etag))
        else:
            self._connect()
        return True

    def _connect(self) -> None:
        self.close()
        self.reused = False
        self.closing = False
        connection = self.connection = _Connection(self)
        self.pool.stats.connects += 1
        pool = self.pool
        task = pool.loop.create_task(pool.loop.create_connection(lambda: connection, pool.host, pool.port))
        task.add_done_callback(lambda done: self._connect_failed(connection, done))

    def _connect_failed(self, connection: _Connection, done) -> None:
        error = None if done.cancelled() else done.exception()
        if error is not None and connection is self.connection and self.sent_at:
            self.fail(type(error).__name__)

    def opened(self, connection: _Connection) -> None:
        if connection is self.connection and self.sent_at:
            connection.transport.write(self.pool.request(self.etag))

    def received(self, connection: _Connection, data: bytes) -> None:
        if connection is not self.connection or not self.sent_at:
            return
        if self.left < 0:
            head = self.head + data if self.head else data
            end = head.find(b"\r\n\r\n")
            if end < 0:
                if len(head) > 65536:
                    self.fail("HeadTooLong")
                    return
                self.head = head
                return
            try:
                self.status = status = int(head[9:12])
            except ValueError:
                self.fail("BadStatusLine")
                return
            rest = len(head) - end - 4
            if status == 304 or status == 204 or status < 200:
                self.left = 0
            else:
                lower = head[:end].lower()
                self.closing = b"\r\nconnection: close" in lower
                if status == 200:
                    at = lower.find(b"\r\netag:")
                    if at >= 0:
                        stop = lower.find(b"\r\n", at + 2)
                        self.etag = head[at + 7:stop if stop >= 0 else end].strip().decode("latin-1")
                at = lower.find(b"\r\ncontent-length:")
                if at >= 0:
                    stop = lower.find(b"\r\n", at + 2)
                    self.left = int(lower[at + 17:stop if stop >= 0 else end])
                elif b"\r\ntransfer-encoding: chunked" in lower:  # the last chunk's marker ends the answer
                    self.left = 0 if head.endswith(b"0\r\n\r\n") and rest >= 5 else 1 << 40
                else:
                    self.left = 0
            self.head = b""
            self.left -= rest
            self.pool.stats.bytes += rest
        else:
            self.left -= len(data)
            self.pool.stats.bytes += len(data)
            if self.left > 1 << 39 and data.endswith(b"0\r\n\r\n"):
                self.left = 0
        if self.left <= 0:
            self.answered()

    def answered(self) -> None:
        stats = self.pool.stats
        now = time.monotonic()
        elapsed = now - self.sent_at
        self.sent_at = 0.0
        self.left = -1
        status = self.status
        stats.latencies.append(elapsed)
        second = int(time.time())
        stats.per_second[second] = stats.per_second.get(second, 0) + 1
        if status == 304:
            stats.not_modified += 1
            stats.latencies_304.append(elapsed)
        elif status == 200:
            stats.ok += 1
            stats.latencies_200.append(elapsed)
            if self.etag:
                stats.etags.add(self.etag)
        else:
            stats.other += 1
        if self.closing:
            self.close()

    def lost(self, connection: _Connection, exc) -> None:
        if connection is not self.connection:
            return
        self.connection = None
        if not self.sent_at:
            return
        if self.reused and self.left < 0 and not self.head:  # closed while idle just as the request went out
            self.pool.stats.reopened += 1
            self._connect()
            return
        self.fail(type(exc).__name__ if exc else "ClosedBeforeTheAnswer")

    def fail(self, kind: str) -> None:
        stats = self.pool.stats
        stats.errors += 1
        stats.error_kinds[kind] = stats.error_kinds.get(kind, 0) + 1
        self.sent_at = 0.0
        self.close()

    def close(self) -> None:
        connection, self.connection = self.connection, None
        self.head = b""
        self.left = -1
        if connection is not None and connection.transport is not None:
            connection.transport.close()


def merged(results: list[dict]) -> dict:
    """The result of several follower processes' ``--json`` outputs together (percentiles over all answers)."""
    stats = _Stats()
    for one in results:
        stats.merge(one["raw"])
    return stats.result(sum(one["followers"] for one in results), max((one["seconds"] for one in results), default=0.0),
                        results[0].get("every") if results else None)


async def follow(base_url: str, path: str, count: int, every: float, until, *, timeout: float | None = None,
                 raw: bool = False) -> dict:
    """Run ``count`` followers polling ``base_url + path`` every ``every`` s until ``until`` (seconds from now,
    or an ``asyncio.Event``; never beyond ``MAX_SECONDS``): see the module's docstring for what it returns."""
    if not 1 <= count <= MAX_FOLLOWERS:
        raise ValueError(f"between 1 and {MAX_FOLLOWERS} followers")
    if not 0.1 <= every <= 600:
        raise ValueError("a period between 0.1 and 600 s")
    host, port = _loopback(base_url)
    if not path.startswith("/"):
        raise ValueError("a path starting with /")
    _raise_fd_limit(count + 256)
    stop = until if isinstance(until, asyncio.Event) else asyncio.Event()
    seconds = MAX_SECONDS if isinstance(until, asyncio.Event) else min(float(until), MAX_SECONDS)
    if timeout is not None:
        seconds = min(seconds, timeout)
    stats = _Stats()
    pool = _Pool(host, port, path, stats)
    followers = [_Follower(pool) for _ in range(count)]
    clock = time.monotonic
    start = clock()
    end = start + seconds
    index = cycle = 0
    next_sweep = start + 1.0
    # One scheduler for all: the followers' moments are spread evenly over the period (as followers who opened
    # the page at different moments are), and those due within TICK are sent together; a poll sent late is
    # sent nonetheless (its lateness counted), never skipped, so that the polls made are the polls planned.
    try:
        while not stop.is_set():
            now = clock()
            if now >= end:
                break
            while True:
                due = start + cycle * every + every * index / count
                if due > now + TICK:
                    break
                if followers[index].poll(now):
                    stats.lateness.append(now - due if now > due else 0.0)
                else:
                    stats.busy += 1
                index += 1
                if index == count:
                    index, cycle = 0, cycle + 1
            if now >= next_sweep:  # requests unanswered for REQUEST_TIMEOUT s: errors, their connections closed
                for follower in followers:
                    if follower.sent_at and now - follower.sent_at > REQUEST_TIMEOUT:
                        follower.fail("TimeoutError")
                next_sweep = now + 1.0
            wait = min(due, next_sweep, end) - clock()
            await asyncio.sleep(wait if wait > 0 else 0)
        stopped = clock()
        drain = stopped + 3.0  # the requests in flight get a few seconds to be answered
        while any(follower.sent_at for follower in followers) and clock() < drain:
            await asyncio.sleep(0.05)
        stats.unfinished = sum(1 for follower in followers if follower.sent_at)
    finally:
        for follower in followers:
            follower.close()
        await asyncio.sleep(0)
    result = stats.result(count, stopped - start, every)
    if raw:
        result["raw"] = stats.raw()
    return result


def report(stats: dict) -> str:
    line = (f"{stats['followers']} followers, {stats['seconds']} s: {stats['requests']} requests "
            f"({stats['requests_per_second']}/s"
            + (f" of {stats['planned_per_second']}/s planned" if stats.get("planned_per_second") else "")
            + f"): {stats['status_304']} × 304, {stats['status_200']} × 200, "
            f"{stats['other_status']} other, {stats['errors']} errors {stats['error_kinds'] or ''}; latency median {stats['median_ms']} ms, "
            f"p99 {stats['p99_ms']} ms (304: median {stats['median_304_ms']} ms, p99 {stats['p99_304_ms']} ms; "
            f"200: median {stats['median_200_ms']} ms, p99 {stats['p99_200_ms']} ms); "
            f"{stats['etags_seen']} ETags seen; {stats.get('connects', 0)} connections opened, of which "
            f"{stats['reopened']} to send again a poll the server had closed the idle connection under")
    if "lateness_p99_ms" in stats:
        line += (f"; polls sent after their moment by the client: median {stats['lateness_median_ms']} ms, p99 "
                 f"{stats['lateness_p99_ms']} ms, max {stats['lateness_max_ms']} ms; {stats['busy']} not sent "
                 f"(the previous one unanswered), {stats['unfinished']} unanswered at the end")
        if not stats["kept_up"]:
            line += (f". WARNING: the followers' client did not keep its schedule ({stats['requests_per_second']}/s "
                     f"of {stats['planned_per_second']}/s planned, or p99 lateness over {LATE_OK:g} s): the servers "
                     "had fewer polls to answer than the followers stand for")
    return line


# ---- --serve: a server of its own, a tournament, rounds closed meanwhile ----------------------------------------


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.base")
    os.environ.setdefault("SECRET_KEY", "bench-followers-" + os.urandom(8).hex())
    import django

    django.setup()
    from django.conf import settings

    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0


def _open_files() -> None:
    """The server's processes may hold a connection per follower: their open files' limit raised to the hard
    one (1024 by default, fewer than the followers)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _server(host: str, port: int, workers: int) -> subprocess.Popen:
    import urllib.error
    import urllib.request

    log = ROOT / "var" / "bench-followers-server.log"
    log.parent.mkdir(exist_ok=True)
    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": host, "DJANGO_SETTINGS_MODULE": "arbiter.settings.base"}
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "arbiter.asgi:application", "--host", host, "--port", str(port),
         "--workers", str(workers), "--no-access-log", "--log-level", "warning", "--backlog", "4096"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, preexec_fn=_open_files)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=2):
                return server
        except urllib.error.HTTPError:  # 503: no Celery worker beats; it answers
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("the server did not start within 60 s")


def _tournament(players: int):
    from django.contrib.auth import get_user_model

    from tournaments import public, services

    user = get_user_model().objects.create_user(username=f"bench-{os.urandom(4).hex()}", is_staff=True,
                                                is_superuser=True)
    tournament = services.tournament_create(name="Followers bench")
    game = services.game_create(tournament=tournament, seed=2026, actor=user)
    for i in range(players):
        services.player_register(game=game, name=f"Player {i:04}", table=i + 1, series=str(1 + i % 5),
                                 by_phone=True, actor=user)
    link = public.link_set(tournament=tournament, on=True, actor=user)
    return user, game, link


def _close_a_round(user, game) -> None:
    from tournaments import services

    rnd = services.round_draw(game=game, actor=user)
    rnd = services.round_compute_tops(round=rnd)
    services.round_start(round=rnd, actor=user)
    services.round_close(round=rnd, actor=user)


async def _serve(args) -> None:
    _setup_django()
    from asgiref.sync import sync_to_async

    host = args.host
    port = _free_port(host)
    user, game, link = await sync_to_async(_tournament)(args.players)
    server = _server(host, port, args.workers)
    try:
        path = f"/api/public/{link.key}"
        stop = asyncio.Event()

        async def rounds():
            for _ in range(int(args.seconds / args.close_every) + 1):
                try:
                    await asyncio.wait_for(stop.wait(), args.close_every)
                    return
                except TimeoutError:
                    pass
                started = time.perf_counter()
                await sync_to_async(_close_a_round)(user, game)
                print(f"a round drawn, started and closed in {(time.perf_counter() - started) * 1000:.0f} ms",
                      flush=True)

        closer = asyncio.create_task(rounds())
        stats = await follow(f"http://{host}:{port}", path, args.count, args.every, args.seconds)
        stop.set()
        await closer
        print(report(stats))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url", nargs="?", help="http://127.x.y.z:port of a running server")
    parser.add_argument("path", nargs="?", help="the feed's path: /api/public/<key>")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--every", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--serve", action="store_true", help="start a server and a tournament of its own")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--close-every", type=float, default=15.0)
    parser.add_argument("--json", action="store_true",
                        help="print the stats as one JSON line (raw latencies included, for bench/festival.py to merge)")
    parser.add_argument("--out", default=None,
                        help="write the JSON stats (as --json, raw latencies included) to this file instead")
    parser.add_argument("--until-stdin-closes", action="store_true",
                        help="also stop when standard input closes (bench/festival.py's end of the round)")
    parser.add_argument("--nice", type=int, default=None,
                        help="this process's niceness (19: the lowest priority; the followers stand for people on "
                             "the internet, whose CPUs are not the hall's); the report says if it fell behind")
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop" if uvloop else "asyncio",
                        help="the event loop (uvloop, when installed, costs less per poll)")
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args))
        return
    if not (args.base_url and args.path):
        parser.error("a server's address and the feed's path, or --serve")
    if args.nice is not None:
        if not -20 <= args.nice <= 19:
            parser.error("--nice -20..19")
        try:
            os.setpriority(os.PRIO_PROCESS, 0, args.nice)
        except OSError as error:
            print(f"niceness {args.nice} refused ({error}); left at {os.getpriority(os.PRIO_PROCESS, 0)}",
                  file=sys.stderr)
    if args.loop == "uvloop":
        if uvloop is None:
            parser.error("--loop uvloop: uvloop is not installed")
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    stats = asyncio.run(_follow_cli(args))
    if args.out:  # a file, not a pipe: several MB of latencies with 10,000 followers came through cut once
        Path(args.out).write_text(json.dumps(stats))
        return
    os.set_blocking(sys.stdout.fileno(), True)
    print(json.dumps(stats) if args.json else report(stats), flush=True)


async def _follow_cli(args) -> dict:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.call_later(min(args.seconds, MAX_SECONDS), stop.set)
    if args.until_stdin_closes:  # a thread waits for EOF on stdin: the parent ends the round by closing the pipe
        def wait_eof():
            while sys.stdin.buffer.read(4096):
                pass
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=wait_eof, daemon=True).start()
    stats = await follow(args.base_url, args.path, args.count, args.every, stop, timeout=args.seconds,
                         raw=args.json or bool(args.out))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 2)
    stats["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    stats["loop"] = type(asyncio.get_running_loop()).__module__.split(".")[0]
    return stats


if __name__ == "__main__":
    main()
