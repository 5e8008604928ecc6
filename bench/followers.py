"""Followers at home polling a public results feed (tournaments/public.py), on 127.0.0.0/8 only.

``follow(base_url, path, count, every, until)`` runs ``count`` followers, each polling ``path`` every ``every``
seconds with ``If-None-Match`` (the ETag of its last 200), their first polls spread evenly over the first period
(as followers who opened the page at different moments are), each on a keep-alive connection of its own (opened
again when the server closes it). It stops at ``until`` (seconds from now, or an ``asyncio.Event``, bounded by
``MAX_SECONDS``) and returns the counts of 200, 304, other answers and errors, and the latency median / p99 (all
answers, and 304 and 200 apart), with how many distinct ETags the followers saw. bench/festival.py calls it as
``--followers N`` during a round.

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

ROOT = Path(__file__).resolve().parents[1]
MAX_FOLLOWERS = 20_000
MAX_SECONDS = 3600.0
REQUEST_TIMEOUT = 10.0


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
        self.etags: set[str] = set()
        self.bytes = 0
        self.error_kinds: dict[str, int] = {}
        self.reopened = 0

    RAW = ("latencies", "latencies_304", "latencies_200")

    def raw(self) -> dict:
        """What a follower process hands to bench/festival.py (``--json``), to be merged with ``merge``."""
        return {"ok": self.ok, "not_modified": self.not_modified, "other": self.other, "errors": self.errors,
                "etags": sorted(self.etags), "bytes": self.bytes, "error_kinds": self.error_kinds,
                "reopened": self.reopened, **{name: getattr(self, name) for name in self.RAW}}

    def merge(self, raw: dict) -> None:
        for name in ("ok", "not_modified", "other", "errors", "bytes", "reopened"):
            setattr(self, name, getattr(self, name) + int(raw[name]))
        for name in self.RAW:
            getattr(self, name).extend(float(v) for v in raw[name])
        self.etags.update(raw["etags"])
        for kind, n in raw["error_kinds"].items():
            self.error_kinds[kind] = self.error_kinds.get(kind, 0) + int(n)

    def result(self, count: int, seconds: float) -> dict:
        def ms(values, q):
            return round(percentile(values, q) * 1000, 2) if values else None

        requests = self.ok + self.not_modified + self.other + self.errors
        return {
            "followers": count, "seconds": round(seconds, 1), "requests": requests,
            "requests_per_second": round(requests / seconds, 1) if seconds else 0.0,
            "status_200": self.ok, "status_304": self.not_modified, "other_status": self.other,
            "errors": self.errors, "error_kinds": dict(self.error_kinds), "reopened": self.reopened, "etags_seen": len(self.etags), "body_bytes": self.bytes,
            "median_ms": ms(self.latencies, 0.5), "p99_ms": ms(self.latencies, 0.99),
            "median_304_ms": ms(self.latencies_304, 0.5), "p99_304_ms": ms(self.latencies_304, 0.99),
            "median_200_ms": ms(self.latencies_200, 0.5), "p99_200_ms": ms(self.latencies_200, 0.99),
        }


async def _read_answer(reader) -> tuple[int, dict, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = b""
    if status in (204, 304) or 100 <= status < 200:
        return status, headers, body
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        for _ in range(100_000):
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        body = b"".join(chunks)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    return status, headers, body


class _Follower:
    def __init__(self, host: str, port: int, path: str, stats: _Stats) -> None:
        self.host, self.port, self.path, self.stats = host, port, path, stats
        self.etag = ""
        self.reader = self.writer = None

    async def _exchange(self, request: bytes) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(request)
        await self.writer.drain()
        return await _read_answer(self.reader)

    async def poll(self) -> None:
        """One conditional request. A kept-alive connection the server closed while idle (uvicorn closes them
        after 5 s) is opened again and the request sent once more, as a browser does: not an error."""
        request = (f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: application/json\r\n"
                   + (f"If-None-Match: {self.etag}\r\n" if self.etag else "") + "\r\n").encode("latin-1")
        started = time.perf_counter()
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                try:
                    status, headers, body = await self._exchange(request)
                except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError) as stale:
                    if self.writer is None or (isinstance(stale, asyncio.IncompleteReadError) and stale.partial):
                        raise
                    self.close()
                    self.stats.reopened += 1
                    status, headers, body = await self._exchange(request)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as error:
            self.stats.errors += 1
            kind = type(error).__name__
            self.stats.error_kinds[kind] = self.stats.error_kinds.get(kind, 0) + 1
            self.close()
            return
        elapsed = time.perf_counter() - started
        self.stats.latencies.append(elapsed)
        if status == 304:
            self.stats.not_modified += 1
            self.stats.latencies_304.append(elapsed)
        elif status == 200:
            self.stats.ok += 1
            self.stats.latencies_200.append(elapsed)
            self.stats.bytes += len(body)
            self.etag = headers.get("etag", "")
            if self.etag:
                self.stats.etags.add(self.etag)
        else:
            self.stats.other += 1
        if headers.get("connection", "").lower() == "close":
            self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def merged(results: list[dict]) -> dict:
    """The result of several follower processes' ``--json`` outputs together (percentiles over all answers)."""
    stats = _Stats()
    for one in results:
        stats.merge(one["raw"])
    return stats.result(sum(one["followers"] for one in results), max((one["seconds"] for one in results), default=0.0))


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
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + seconds

    async def one(index: int) -> None:
        follower = _Follower(host, port, path, stats)
        due = start + every * index / count
        try:
            for _ in range(int(seconds / every) + 2):
                wait = due - loop.time()
                if wait > 0:
                    try:
                        await asyncio.wait_for(stop.wait(), wait)
                    except TimeoutError:
                        pass
                if stop.is_set() or loop.time() >= end:
                    return
                await follower.poll()
                due += every
        finally:
            follower.close()

    tasks = [asyncio.create_task(one(i)) for i in range(count)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), seconds + REQUEST_TIMEOUT + 5)
    except TimeoutError:
        pass
    finally:
        for task in tasks:
            task.cancel()
    result = stats.result(count, loop.time() - start)
    if raw:
        result["raw"] = stats.raw()
    return result


def report(stats: dict) -> str:
    return (f"{stats['followers']} followers, {stats['seconds']} s: {stats['requests']} requests "
            f"({stats['requests_per_second']}/s): {stats['status_304']} × 304, {stats['status_200']} × 200, "
            f"{stats['other_status']} other, {stats['errors']} errors {stats['error_kinds'] or ''}; latency median {stats['median_ms']} ms, "
            f"p99 {stats['p99_ms']} ms (304: median {stats['median_304_ms']} ms, p99 {stats['p99_304_ms']} ms; "
            f"200: median {stats['median_200_ms']} ms, p99 {stats['p99_200_ms']} ms); "
            f"{stats['etags_seen']} ETags seen; {stats['reopened']} idle connections the server had closed opened "
            "again")


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
    parser.add_argument("--until-stdin-closes", action="store_true",
                        help="also stop when standard input closes (bench/festival.py's end of the round)")
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args))
        return
    if not (args.base_url and args.path):
        parser.error("a server's address and the feed's path, or --serve")
    stats = asyncio.run(_follow_cli(args))
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
    stats = await follow(args.base_url, args.path, args.count, args.every, stop, timeout=args.seconds, raw=args.json)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 2)
    return stats


if __name__ == "__main__":
    main()
