"""A festival hall against the production shape: a thousand players hand in their slips at the last moment.

Starts, on 127.0.0.1 only, what production runs: uvicorn with 2 workers (arbiter.asgi), a Celery worker
(--concurrency 2) and Celery beat, on PostgreSQL and Redis, with DJANGO_SETTINGS_MODULE=arbiter.settings.base,
DEBUG=0 and a fresh database it drops and recreates (default arbiter_festival) and a Redis db it flushes
(default 5). DB_POOL_MIN_SIZE / DB_POOL_MAX_SIZE / DB_POOL_TIMEOUT (and any other setting) are passed to the
servers from the environment. Then, through the HTTP API only:

1. an arbitrator (a staff user made by ``manage.py shell``) gets a token, creates a tournament with
   --round-seconds and a game; --players players join with the game's code (POST /api/join), --concurrency
   at a time: joins/s and failures by status;
2. --listeners phones hold the live stream /games/<id>/events for the whole round (reconnecting after 1 s
   if it drops, as EventSource does);
3. the arbitrator draws and starts round 1; the tops of the rack are found locally with the engine, which
   also says how each slip must be judged;
4. each player hands in one slip at a random moment of the last --window seconds: a top at its score, a top
   at a wrong score, an invalid word, or a word the rack cannot make, with its send time as sent_ms (as a
   phone). It was sent before the deadline when its first request's bytes were written to the socket before
   it (after the connect, which this client's own event loop can delay: the server sees the bytes only;
   the delay is printed). A failed request (connection error,
   5xx, 429 after its Retry-After) is sent again with the SAME key and seq until the deadline + --grace s;
   a 4xx other than 429 is final;
5. after the deadline /api/games/<id>/live is polled (every 50 ms) until the round is closed, then the
   arbitrator's round detail until it carries the results; once every slip request has ended, the round
   detail, the standings and the database are checked against what was accepted.

It prints joins, slips (accepted, lost, duplicated, 5xx, 409 by code, sent before the deadline but refused,
latency), the delay from the deadline to the results, the live streams' delivery of the close, the targets
(PASS/FAIL), and to explain them: a per-second timeline of the slips' answers beside the server's database
connections (sampled from pg_stat_activity), the CPU used by each server process group, PostgreSQL, Redis,
this client and everything else on the machine, and the ERROR/Traceback lines of the server logs (kept in a
temporary folder, path printed; PostgreSQL's own log lines for the bench database are copied there when its
log file is readable).

--proxy: the production shape on two web hosts: two uvicorn groups (--workers each, default 1), on 127.0.0.2
and 127.0.0.3, behind HAProxy (Debian's, /usr/sbin/haproxy, with docker/haproxy-hosts.cfg: round robin, no
stickiness, health checks on /healthz) bound on 127.0.0.1, with TRUSTED_PROXIES=1; the client, the listeners
and the arbitrator talk to the proxy only. The CPU is then printed for each host, the proxy, PostgreSQL,
Redis, the Celery worker and the client, and per slip accepted for each of them (the sizing of
docker/README.md is made from those). --p99 MS sets the latency target (default 300; the issue's target for
3,000 players direct is 500).

--followers N --follow-every S: the head arbitrator turns the tournament's public results link on, and N
followers poll its JSON feed (/api/public/<key>) every S seconds with If-None-Match from the draw until the
results are shown (bench/followers.py, in a process of its own at niceness --follower-nice, 19 by default:
followers at home bring their own CPUs, so on this shared machine their client yields to the servers); their
answers, latencies and achieved polls per second (overall and while the CPU is measured) are printed beside
the slips', with a warning when their client did not keep its schedule.
--compare-followers N [--repeat K]: the same round (same seed: players, rack and slips) without followers and
then with N, each on a fresh database and servers, K pairs in turn, and a table of both side by side (slip
latency, accepted and lost, results, CPU per tier, the followers' rate). The issue: 10,000 followers every
10 s must not move a 1,000-player round's slip latency beyond noise:
    .venv/bin/python bench/festival.py --proxy --players 1000 --listeners 300 --compare-followers 10000 \
        --follow-every 10 --repeat 3 --seed 1 --wait-quiet 600

Run from the repository, PostgreSQL (trust auth) and Redis on 127.0.0.1:
    .venv/bin/python bench/festival.py --players 100 --listeners 30          # a quick check (about a minute)
    .venv/bin/python bench/festival.py --wait-quiet 600                      # 1,000 players, 300 listeners
    DB_POOL_MAX_SIZE=20 .venv/bin/python bench/festival.py --round-seconds 60 --window 15
    .venv/bin/python bench/festival.py --proxy --players 2000 --listeners 300 --wait-quiet 600
    .venv/bin/python bench/festival.py --players 3000 --listeners 300 --p99 500 --wait-quiet 600
    .venv/bin/python bench/festival.py --players 1000 --followers 10000 --follow-every 10 --wait-quiet 600
Options: --players 1000 --listeners 300 --round-seconds 40 --window 10 --concurrency 20 --grace 5 --slow 0
(connections that hold a slip's headers with no body and no credentials through the round, reconnecting
when the server cuts them off)
--timeout 300 --seed N --database arbiter_festival --redis-db 5 --workers 2 (1 per host with --proxy) --no-access-log (uvicorn's access
log is on by default, as in production) --wait-quiet S (wait for other work on the machine to end: the
client and the servers share its cores, so any other load skews every figure) --client-nice -5 (the client's
priority once the servers run, when allowed). The exit status is 0 only when every target passes.
Bounded: every phase has a time limit, the scenario --timeout seconds; every process started is stopped
(its process group) at the end, on error and on Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
PG_BASE = "postgres://postgres@127.0.0.1:5432"
REDIS_BASE = "redis://127.0.0.1:6379"
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
MAX_PLAYERS = 5000
HAPROXY = "/usr/sbin/haproxy"
MAX_LISTENERS = 3000
REQUEST_TIMEOUT = 30.0  # one HTTP request (a phone's fetch would wait as long)
MAX_SLIP_ATTEMPTS = 100
MAX_JOIN_ATTEMPTS = 5
MAX_RECONNECTS = 10
POLL_EVERY = 0.05
TARGET_P99 = 0.300
TARGET_RESULTS = 1.0
TARGET_TOLD = 1.0
# Words that need letters a rack rarely holds twice: a "play that cannot be made" with most racks.
UNPLAYABLE = ("QUIZ", "JAZZ", "FUZZ", "JINX", "ZIZZ", "PIZZA", "BUZZ", "JUJU", "XYST", "ZYZZYVA", "QAJAQ")


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def ms(value: float) -> str:
    return "n/a" if value != value else f"{value * 1000:.0f} ms"


def spread(values) -> str:
    values = list(values)
    if not values:
        return "none"
    return f"p50 {ms(percentile(values, 0.5))}, p99 {ms(percentile(values, 0.99))}, max {ms(max(values))} (n={len(values)})"


def counts(counter: Counter) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))) or "none"


def free_port(host: str = HOST) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def iso_time(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


# ---- a small HTTP/1.1 client: one connection per request (a phone's fetch), standard library only -------------


class HttpError(Exception):
    """No HTTP answer: connection refused or reset, timeout, malformed answer."""


class Answer:
    __slots__ = ("status", "headers", "body", "written")

    def __init__(self, status: int, headers: dict, body: bytes, written: float | None = None):
        self.status, self.headers, self.body = status, headers, body
        self.written = written  # when the request's bytes went to the socket (time.time()), once connected

    def json(self):
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def error_code(self) -> str:
        body = self.json()
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            return str(body["error"].get("code"))
        return "?"

    def retry_after(self, default: float) -> float:
        try:
            return min(5.0, max(0.0, float(self.headers.get("retry-after", ""))))
        except ValueError:
            return default


async def _read_body(reader, headers: dict) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parts = []
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                return b"".join(parts)
            parts.append((await reader.readexactly(size + 2))[:-2])
    return await reader.read()


def _head(raw: bytes) -> tuple[int, dict]:
    status_line, *lines = raw.decode("latin-1").split("\r\n")
    status = int(status_line.split()[1])
    headers = {}
    for line in lines:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def http(port: int, method: str, path: str, body=None, headers: dict | None = None,
               timeout: float = REQUEST_TIMEOUT) -> Answer:
    payload = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close", "Accept: application/json"]
    if body is not None:
        lines.append("Content-Type: application/json")
    if body is not None or method != "GET":
        lines.append(f"Content-Length: {len(payload)}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload

    async def exchange():
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            written = time.time()
            writer.write(raw)  # into the kernel's buffer at once: the request leaves now
            status, answer_headers = _head(await reader.readuntil(b"\r\n\r\n"))
            return Answer(status, answer_headers, await _read_body(reader, answer_headers), written)
        finally:
            writer.close()

    try:
        return await asyncio.wait_for(exchange(), timeout)
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError,
            IndexError) as exc:
        raise HttpError(type(exc).__name__ if not str(exc) else f"{type(exc).__name__}: {exc}"[:120]) from None


class Api:
    """The arbitrator's side: every call must succeed (else the bench stops, saying which)."""

    def __init__(self, port: int):
        self.port = port
        self.token: str | None = None
        self.statuses: Counter = Counter()

    def headers(self) -> dict:
        return {"Authorization": f"Token {self.token}"} if self.token else {}

    async def call(self, method: str, path: str, body=None, ok=(200, 201), timeout=REQUEST_TIMEOUT):
        answer = await http(self.port, method, path, body, self.headers(), timeout)
        self.statuses[answer.status] += 1
        if answer.status not in ok:
            raise SystemExit(f"{method} {path} answered {answer.status}: {answer.body[:300]!r}")
        return answer.json()


# ---- the processes: PostgreSQL database, Redis db, uvicorn, Celery worker and beat -------------------------


def check_local(url: str) -> None:
    from urllib.parse import urlparse

    host = urlparse(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"{url}: only services on 127.0.0.1 are used by this bench")


def recreate_database(base: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{base}/postgres", autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def flush_redis(base: str, db: int) -> None:
    from urllib.parse import urlparse

    url = urlparse(base)
    with socket.create_connection((url.hostname, url.port or 6379), timeout=10) as s:
        s.sendall(f"*2\r\n$6\r\nSELECT\r\n${len(str(db))}\r\n{db}\r\n*1\r\n$7\r\nFLUSHDB\r\n".encode())
        answer = b""
        while answer.count(b"\r\n") < 2:
            chunk = s.recv(1024)
            if not chunk:
                break
            answer += chunk
    if answer != b"+OK\r\n+OK\r\n":
        raise SystemExit(f"Redis db {db} could not be flushed: {answer!r}")


class Services:
    """The server processes, each in a process group of its own, logging to files in a temporary folder."""

    def __init__(self, env: dict, logs: Path):
        self.env, self.logs = env, logs
        self.procs: dict[str, subprocess.Popen] = {}

    def run(self, name: str, args: list[str], timeout: float) -> str:
        log = self.logs / f"{name}.log"
        with log.open("w") as out:
            done = subprocess.run([PYTHON, *args], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout, start_new_session=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed ({done.returncode}); see {log}:\n{log.read_text()[-2000:]}")
        return log.read_text()

    def start(self, name: str, args: list[str], program: str = PYTHON, env: dict | None = None) -> subprocess.Popen:
        out = (self.logs / f"{name}.log").open("w")
        proc = subprocess.Popen([program, *args], cwd=ROOT, env=env or self.env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        out.close()
        self.procs[name] = proc
        return proc

    def dead(self) -> list[str]:
        return [f"{name} (exit {p.returncode})" for name, p in self.procs.items() if p.poll() is not None]

    def stop(self) -> None:
        for proc in reversed(list(self.procs.values())):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        until = time.monotonic() + 20
        for name, proc in self.procs.items():
            try:
                proc.wait(timeout=max(0.1, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            try:  # whatever is left of the group (a worker's children), also when the leader has gone
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                print(f"  {name} (pid {proc.pid}) did not stop")


def wait_healthy(port: int, proc: subprocess.Popen, seconds: float = 60, host: str = HOST) -> None:
    until = time.monotonic() + seconds
    last = ""
    while time.monotonic() < until:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args[0]} exited ({proc.returncode}) while starting")
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.3)
    raise SystemExit(f"uvicorn did not answer /healthz with 200 within {seconds:.0f} s ({last})")


def wait_proxy_sees(port: int, hosts: int, seconds: float = 30) -> None:
    """Until HAProxy has sent requests to every host (its health checks marked them up): a few /healthz
    through it, each answered by the host named in X-Served-By."""
    until, seen = time.monotonic() + seconds, set()
    while time.monotonic() < until and len(seen) < hosts:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=5) as answer:
                seen.add(answer.headers.get("X-Served-By"))
        except OSError:
            pass
        time.sleep(0.1)
    if len(seen) < hosts:
        raise SystemExit(f"HAProxy sent requests to {len(seen)} of the {hosts} hosts within {seconds:.0f} s")


ERROR_LINE = re.compile(r"\bERROR\b|Traceback|CRITICAL|^(Internal Server Error|Service Unavailable|Gateway Timeout): ")


def tracebacks(lines: list[str]) -> Counter:
    """Each logged traceback (a chain counts once): its last exception and the line logged before it."""
    found: Counter = Counter()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("Traceback"):
            i += 1
            continue
        context, final, j = (lines[i - 1].strip() if i else ""), "", i + 1
        while j < min(len(lines), i + 5000):
            line = lines[j]
            if line and not line[0].isspace() and not line.startswith(
                    ("Traceback", "During handling", "The above exception")):
                final = line
                k = j + 1
                while k < len(lines) and not lines[k].strip():
                    k += 1
                if k < len(lines) and lines[k].startswith(("During handling", "The above exception")):
                    j = k
                    continue
                break
            j += 1
        found[(final[:200], context[:100])] += 1
        i = j + 1
    return found


def log_errors(logs: Path) -> list[str]:
    """Per log: the count of ERROR/Traceback lines, the first distinct ones and the exceptions they end with."""
    out = []
    for log in sorted(logs.glob("*.log")):
        lines = log.read_text(errors="replace").splitlines()
        hits = [line for line in lines if ERROR_LINE.search(line) and not line.startswith("Traceback")]
        chains = tracebacks(lines)
        out.append(f"  {log.name}: {sum(1 for line in lines if ERROR_LINE.search(line))} ERROR/Traceback lines "
                   f"({sum(chains.values())} tracebacks), {len(lines)} lines in all")
        distinct: Counter = Counter()
        first: dict[str, str] = {}
        for line in hits:
            shape = re.sub(r"\d+", "N", re.sub(r"^\[[^\]]*\]\s*", "", line))[:160]
            distinct[shape] += 1
            first.setdefault(shape, line[:220])
        for shape, n in distinct.most_common(6):
            out.append(f"    {n:5d} x {first[shape]}")
        for (final, context), n in chains.most_common(6):
            out.append(f"    {n:5d} x traceback ending {final}" + (f"  (logged after: {context})" if context else ""))
    return out


FOLLOWERS_TIER = "followers' client"


async def start_followers(base_url: str, feed: str, args, logs: Path) -> list:
    """bench/followers.py processes (--follower-processes, default one: a single event loop of raw
    connections costs least per poll), in one process group of their own so that CpuAccount counts them as a
    tier of their own, at niceness --follower-nice (default 19: followers at home bring their own CPUs, so on
    this shared machine their client yields to the hall's servers; its report says if it then fell behind),
    polling until ``end_followers`` closes their stdin."""
    processes: list = []
    share, extra = divmod(args.followers, args.follower_processes)
    for index in range(args.follower_processes):
        count = share + (1 if index < extra else 0)
        if not count:
            continue
        processes.append(await asyncio.create_subprocess_exec(
            sys.executable, str(ROOT / "bench" / "followers.py"), base_url, feed, "--count", str(count),
            "--every", str(args.follow_every), "--seconds", str(args.round_seconds + 120),
            "--out", str(logs / f"followers-{index}.json"), "--until-stdin-closes", "--nice", str(args.follower_nice),
            stdin=asyncio.subprocess.PIPE, process_group=processes[0].pid if processes else 0))
        processes[-1].out = logs / f"followers-{index}.json"
    return processes


async def end_followers(processes: list) -> dict:
    """Close the followers' stdin, read each one's JSON stats and merge them (percentiles over every answer)."""
    from bench.followers import REQUEST_TIMEOUT, merged

    results = []
    for process in processes:
        process.stdin.close()
    for process in processes:
        try:
            await asyncio.wait_for(process.wait(), REQUEST_TIMEOUT + 30)
            results.append(json.loads(process.out.read_text()))
        except (TimeoutError, ValueError, OSError) as exc:
            print(f"  a follower process gave no stats ({type(exc).__name__}); killed", file=sys.stderr)
            if process.returncode is None:
                process.kill()
                await process.wait()
    stats = merged(results)
    stats["cpu_seconds"] = sum(one.get("cpu_seconds", 0.0) for one in results)
    stats["processes"] = len(results)
    stats["nice"] = sorted({one.get("nice") for one in results}, key=str)
    stats["loop"] = sorted({one.get("loop") for one in results}, key=str)
    return stats


class CpuAccount:
    """CPU time between two snapshots: the bench's process groups (and each web process), PostgreSQL and Redis
    (every one of their processes on the machine), this client, every other process, and the kernel's
    interrupt work. Linux /proc only."""

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    OTHER = "other processes on the machine"

    def __init__(self, groups: dict[str, int]):
        self.groups = groups  # name -> process group id
        self.marks: list[tuple[float, dict, tuple]] = []
        self.walls: list[float] = []  # time.time() of each mark

    @staticmethod
    def _stat(path: Path):
        text = path.read_text()
        fields = text[text.rindex(")") + 2:].split()
        return text[text.index("(") + 1:text.rindex(")")], int(fields[2]), int(fields[11]) + int(fields[12])

    def snapshot(self) -> None:
        per: dict[str, dict[int, float]] = defaultdict(dict)
        by_group = {pgid: name for name, pgid in self.groups.items()}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                comm, pgrp, ticks = self._stat(stat)
            except (OSError, ValueError, IndexError):
                continue
            pid = int(stat.parent.name)
            name = ("this client" if pid == os.getpid() else by_group.get(pgrp) or
                    ("postgres (every database)" if comm.startswith("postgres") else
                     "redis" if comm.startswith("redis") else self.OTHER))
            per[name][pid] = ticks / self.TICK
        try:
            cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
            machine = ((sum(cpu[:8]) - cpu[3] - cpu[4]) / self.TICK, (cpu[5] + cpu[6]) / self.TICK)
        except (OSError, ValueError, IndexError):
            machine = (float("nan"), float("nan"))
        self.marks.append((time.monotonic(), per, machine))
        self.walls.append(time.time())

    def used(self) -> tuple[float, dict[str, float], dict[int, float], float, float]:
        (t0, a, (busy0, irq0)), (t1, b, (busy1, irq1)) = self.marks[0], self.marks[-1]
        wall = t1 - t0
        used = {name: sum(v - a.get(name, {}).get(pid, 0.0) for pid, v in pids.items()) / wall
                for name, pids in b.items()}
        web = {pid: (v - a.get(name, {}).get(pid, 0.0)) / wall for name, pids in b.items() if name.startswith("web")
               for pid, v in pids.items()}
        return wall, used, web, (busy1 - busy0) / wall, (irq1 - irq0) / wall

    def others(self) -> float:
        return self.used()[1].get(self.OTHER, 0.0) if len(self.marks) > 1 else float("nan")

    def summary(self) -> str:
        if len(self.marks) < 2:
            return "not measured"
        wall, used, web, busy, irq = self.used()
        parts = [f"{name} {value:.2f}" for name, value in sorted(used.items(), key=lambda kv: -kv[1])]
        parts.append(f"kernel interrupts {irq:.2f}")
        parts.append(f"unaccounted (processes that came and went, ...) {max(0.0, busy - sum(used.values()) - irq):.2f}")
        processes = ", ".join(f"{v:.2f}" for _, v in sorted(web.items()) if v >= 0.01)
        return (f"over {wall:.1f} s, in cores: " + ", ".join(parts) +
                f"; the machine busy {busy:.2f} of {os.cpu_count()}; web by process: {processes}")


def machine_busy(seconds: float = 2.0) -> float:
    """Cores busy on the whole machine over a few seconds (Linux /proc/stat)."""
    def busy():
        cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return (sum(cpu[:8]) - cpu[3] - cpu[4]) / CpuAccount.TICK

    try:
        before = busy()
        time.sleep(seconds)
        return (busy() - before) / seconds
    except (OSError, ValueError, IndexError):
        return float("nan")


class PostgresLog:
    """The lines PostgreSQL logs for the bench database during the run (deadlocks name both queries there),
    copied into the logs folder; only when the server's log file is readable on this machine."""

    def __init__(self, path: str | None, database: str):
        import glob

        candidates = [path] if path else sorted(glob.glob("/var/log/postgresql/postgresql-*.log"))
        self.path = next((Path(c) for c in candidates if c and os.access(c, os.R_OK)), None)
        self.database = database
        self.offset = self.path.stat().st_size if self.path else 0

    def copy(self, logs: Path) -> None:
        if self.path is None:
            return
        with self.path.open("rb") as f:
            f.seek(self.offset)
            text = f.read(50_000_000).decode(errors="replace")
        kept, keeping = [], False
        for line in text.splitlines():
            if line.startswith("\t"):
                if keeping:
                    kept.append(line)
                continue
            keeping = f"@{self.database} " in line
            if keeping:
                kept.append(line)
        (logs / "postgresql.log").write_text("\n".join(kept) + ("\n" if kept else ""))


class DatabaseWatch:
    """Samples pg_stat_activity of the bench database (one connection of its own): where the server's
    connections are while the slips arrive and the round closes."""

    def __init__(self, pg_base: str, database: str, web_pgid: int | None = None):
        self.url, self.database = f"{pg_base}/postgres", database
        self.web_pgid, self.web_pids = web_pgid, None
        self.samples: list[tuple[float, Counter, Counter]] = []
        self.error: str | None = None
        self.conn = None

    def sample(self) -> None:
        import psycopg

        try:
            if self.conn is None:
                self.conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
            rows = self.conn.execute(
                "SELECT state, coalesce(wait_event_type, ''), left(regexp_replace(query, '\\s+', ' ', 'g'), 90) "
                "FROM pg_stat_activity WHERE datname = %s", (self.database,)).fetchall()
        except Exception as exc:  # reported, never fatal
            self.error = f"{type(exc).__name__}: {exc}"[:160]
            return
        states = Counter(state or "?" for state, _, _ in rows)
        states["all"] = len(rows)
        states["waiting on a lock"] = sum(1 for _, wait, _ in rows if wait == "Lock")
        states["web threads"] = self.web_threads()
        self.samples.append((time.time(), states, Counter(q for _, wait, q in rows if wait == "Lock")))

    def web_threads(self) -> int:
        """Threads of the web processes: Django runs each request's view in a thread of its own under ASGI."""
        if self.web_pids is None and self.web_pgid:
            self.web_pids = []
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    text = stat.read_text()
                    if int(text[text.rindex(")") + 2:].split()[2]) == self.web_pgid:
                        self.web_pids.append(stat.parent.name)
                except (OSError, ValueError, IndexError):
                    pass
        total = 0
        for pid in self.web_pids or []:
            try:
                total += int(re.search(r"Threads:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1))
            except (OSError, AttributeError):
                pass
        return total

    async def run(self, start: float, stop: asyncio.Event, until: float) -> None:
        await asyncio.sleep(max(0.0, start - time.time()))
        while not stop.is_set() and time.time() < until:
            await asyncio.to_thread(self.sample)
            try:
                await asyncio.wait_for(stop.wait(), 0.25)
            except TimeoutError:
                pass
        if self.conn is not None:
            await asyncio.to_thread(self.conn.close)

    def summary(self, deadline: float) -> str:
        if not self.samples:
            return f"no samples ({self.error or 'none taken'})"
        peak = {key: max(s[key] for _, s, _ in self.samples) for key in
                ("all", "active", "idle", "idle in transaction", "waiting on a lock", "web threads")}
        waiting = Counter()
        for _, _, queries in self.samples:
            waiting.update(queries)
        worst = max(self.samples, key=lambda sample: sample[1]["waiting on a lock"])
        text = (f"{len(self.samples)} samples from deadline {self.samples[0][0] - deadline:+.1f} s to "
                f"{self.samples[-1][0] - deadline:+.1f} s; peak connections {peak['all']} (active {peak['active']}, "
                f"idle {peak['idle']}, idle in transaction {peak['idle in transaction']}), peak waiting on a lock "
                f"{peak['waiting on a lock']} (at deadline {worst[0] - deadline:+.1f} s); web processes' threads at "
                f"their peak {peak['web threads']}")
        if waiting:
            query, n = waiting.most_common(1)[0]
            text += f"; most seen waiting: {query!r} ({n} sightings)"
        return text


# ---- the hall: players, slips, phones ------------------------------------------------------------------


class Player:
    __slots__ = ("index", "id", "token", "kind", "word", "ref", "score", "key", "seq", "send_at", "first_sent",
                 "accepted_at", "accepted_status", "final", "attempts", "sent_before_deadline", "expected", "written_lag",
                 "stamp_lag")

    def __init__(self, index: int):
        self.index = index
        self.id = self.token = None
        self.kind = self.word = self.ref = self.score = self.key = self.seq = None
        self.send_at = self.first_sent = self.accepted_at = self.accepted_status = None
        self.final: str | None = None  # how the slip ended: accepted, refused <code>, gave up, unfinished
        # (sent, answered, status or error, 409 code, before deadline, late_by: how long after the end call the
        # server stamped a slip it refused round_closed, in s, else None)
        self.attempts: list[tuple] = []
        self.sent_before_deadline = False
        self.written_lag = None  # from the send's start to its bytes written (connect and this client's loop)
        self.stamp_lag = None  # from its bytes written to the server's arrival stamp (received_at), accepted slips
        self.expected = None  # (paid, outcome, reason) by the local engine


async def join_all(port: int, join_code: str, players: list[Player], concurrency: int, limit: float) -> dict:
    queue = list(reversed(players))
    failures: Counter = Counter()
    latencies: list[float] = []
    ok = 0

    async def joiner():
        nonlocal ok
        while queue:
            player = queue.pop()
            for _ in range(MAX_JOIN_ATTEMPTS):
                sent = time.monotonic()
                try:
                    answer = await http(port, "POST", "/api/join",
                                        {"join_code": join_code, "name": f"Player {player.index + 1}"})
                except HttpError as exc:
                    failures[f"no answer ({str(exc).split(':')[0]})"] += 1
                    await asyncio.sleep(0.5)
                    continue
                latencies.append(time.monotonic() - sent)
                if answer.status == 201:
                    body = answer.json()
                    player.id, player.token = body["id"], body["token"]
                    ok += 1
                    break
                failures[f"{answer.status} {answer.error_code()}"] += 1
                if answer.status in (429,) or answer.status >= 500:
                    await asyncio.sleep(answer.retry_after(0.5))
                    continue
                break

    started = time.monotonic()
    workers = [asyncio.ensure_future(joiner()) for _ in range(concurrency)]
    try:
        await asyncio.wait_for(asyncio.gather(*workers), limit)
    except TimeoutError:
        for w in workers:
            w.cancel()
        failures["bench time limit"] += len(queue)
    return {"ok": ok, "seconds": time.monotonic() - started, "failures": failures, "latency": latencies}


class Listener:
    """One phone holding /games/<id>/events; notes when it first sees each (round, round_status). Reconnects
    after a second when the stream ends (as EventSource does), at most MAX_RECONNECTS times."""

    def __init__(self, port: int, game_id: int):
        self.port, self.game_id = port, game_id
        self.seen: dict[tuple, float] = {}
        self.opened = self.first_event = None
        self.events = 0
        self.errors: list[str] = []
        self.reconnects = 0
        self.ready = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
        for attempt in range(MAX_RECONNECTS + 1):
            if stop.is_set():
                return
            if attempt:
                self.reconnects += 1
            try:
                await self._session(stop)
                if stop.is_set():
                    return
                self.errors.append("stream ended by the server")
            except Exception as exc:  # counted and reported, never hidden
                self.errors.append(f"{type(exc).__name__}: {exc}"[:160])
            self.ready.set()  # the opening phase does not wait for a phone whose stream failed
            try:
                await asyncio.wait_for(stop.wait(), 1.0)
            except TimeoutError:
                pass

    async def _session(self, stop: asyncio.Event) -> None:
        self.opened = self.opened or time.time()
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port), 30)
        try:
            writer.write(f"GET /games/{self.game_id}/events HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                         f"Accept: text/event-stream\r\n\r\n".encode())
            status, headers = _head(await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30))
            if status != 200:
                raise RuntimeError(f"status {status}")
            consuming = asyncio.ensure_future(self._consume(reader, "chunked" in headers.get("transfer-encoding", "")))
            stopping = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({consuming, stopping}, return_when=asyncio.FIRST_COMPLETED)
            for task in (consuming, stopping):
                if task not in done:
                    task.cancel()
            if consuming in done:
                consuming.result()  # raises what ended the stream
        finally:
            writer.close()

    async def _consume(self, reader, chunked: bool) -> None:
        buffer = b""
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    return
                data = (await reader.readexactly(size + 2))[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
            buffer += data.replace(b"\r\n", b"\n")
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                self._event(block)

    def _event(self, block: bytes) -> None:
        data = b"\n".join(line[5:].lstrip() for line in block.split(b"\n") if line.startswith(b"data:"))
        if not data:
            return
        now = time.time()
        try:
            state = json.loads(data)
        except ValueError:
            self.errors.append("an event that is not JSON")
            return
        self.events += 1
        if self.first_event is None:
            self.first_event = now
            self.ready.set()
        if isinstance(state, dict):
            self.seen.setdefault((state.get("round"), state.get("round_status")), now)


def slip_plan(players: list[Player], rack: str, board_rows: list[str], rng: random.Random) -> dict:
    """Give each player a slip (by kind) and the judgement the local engine expects for it."""
    from engine.board import Board
    from engine.judging import Slip as EngineSlip
    from engine.judging import judge_slip
    from engine.lexicon import load_lexicon
    from engine.notation import format_ref
    from engine.rules import rules_preset
    from engine.search import find_tops
    from engine.tiles import load_tileset

    cache_dir = os.environ.get("LEXICON_CACHE_DIR") or str(ROOT / "var" / "lexicons")
    lexicon = load_lexicon("TWL06", cache_dir=cache_dir)
    tileset, rules = load_tileset("english"), rules_preset("fisf")
    board = Board.from_rows(board_rows)
    started = time.monotonic()
    tops = find_tops(board, rack, lexicon, tileset, rules)
    seconds = time.monotonic() - started
    if tops.score is None:
        raise SystemExit(f"no play with the rack {rack}: the round would be cancelled; run again with another --seed")
    top_slips = [(p.word, format_ref(p.row, p.col, p.horizontal, "rows-letters"), p.score) for p in tops.plays]
    letters = [ch for ch in rack if ch != "?"]
    invalid = []
    for _ in range(500):
        word = "".join(rng.sample(letters, rng.randint(min(3, len(letters)), len(letters))))
        if word not in lexicon:
            invalid.append(word)
        if len(invalid) >= 20:
            break
    judged: dict[tuple, tuple] = {}

    def expect(word, ref, score):
        key = (word, ref, score)
        if key not in judged:
            j = judge_slip(board, rack, 1, EngineSlip(word, ref or None, score), lexicon, tileset, rules,
                           labelling="rows-letters")
            judged[key] = (j.paid, j.outcome, j.reason)
        return judged[key]

    unplayable = [w for w in UNPLAYABLE if w in lexicon and expect(w, "H8", 30)[2] == "not_in_rack"]
    kinds = ["top", "top_wrong_score", "invalid_word", "not_playable"]
    weights = [55, 25, 15 if invalid else 0, 5 if unplayable else 0]
    for player in players:
        kind = rng.choices(kinds, weights)[0]
        if kind == "top":
            word, ref, score = rng.choice(top_slips)
        elif kind == "top_wrong_score":
            word, ref, score = rng.choice(top_slips)
            score = max(0, score + rng.choice([-10, -5, -2, -1, 1, 2, 5, 10]))
        elif kind == "invalid_word":
            word, ref, score = rng.choice(invalid), "H8", rng.randint(5, 40)
        else:
            word, ref, score = rng.choice(unplayable), "H8", rng.randint(20, 60)
        player.kind, player.word, player.ref, player.score = kind, word, ref, score
        player.key = f"festival-{player.index}-{secrets.token_hex(6)}"
        player.expected = expect(word, ref, score)
    return {"top": tops.score, "plays": len(tops.plays), "seconds": seconds, "words": top_slips[:3]}


async def hand_in(port: int, game_id: int, player: Player, deadline: float, cutoff: float, rng: random.Random):
    await asyncio.sleep(max(0.0, player.send_at - time.time()))
    path = f"/api/games/{game_id}/rounds/1/slips"
    headers = {"Authorization": f"Bearer {player.token}"}
    player.first_sent = time.time()
    player.sent_before_deadline = player.first_sent < deadline
    player.seq = int(player.first_sent * 1000)  # the phone sends its (server-corrected) time in ms; a retry keeps it
    body = {"word": player.word, "ref": player.ref, "score": player.score, "key": player.key, "seq": player.seq,
            "sent_ms": player.seq}  # as a phone: when it was handed in, on the server's clock (one machine here)
    for _ in range(MAX_SLIP_ATTEMPTS):
        sent = time.time()
        try:
            answer = await http(port, "POST", path, body, headers)
        except HttpError as exc:
            player.attempts.append((sent, time.time(), f"no answer ({str(exc).split(':')[0]})", None, sent < deadline,
                                    None))
            wait = 0.25 + 0.25 * rng.random()
        else:
            code = answer.error_code() if answer.status >= 400 else None
            # In time or not by when its bytes left this client (after the connect, which this client's own
            # event loop may delay), not by when the send began: the server can only see the former.
            left = answer.written if answer.written is not None else sent
            if not player.attempts:
                player.sent_before_deadline = left < deadline
                player.written_lag = left - sent
            fields = (answer.json() or {}).get("error", {}).get("fields", {}) if code == "round_closed" else {}
            player.attempts.append((left, time.time(), answer.status, code, left < deadline,
                                    fields.get("late_by") if isinstance(fields, dict) else None))
            if answer.status in (200, 201):
                player.accepted_at, player.accepted_status, player.final = time.time(), answer.status, "accepted"
                received = (answer.json() or {}).get("received_at")
                if answer.status == 201 and isinstance(received, str) and answer.written is not None:
                    player.stamp_lag = iso_time(received) - answer.written  # bytes written -> the server's stamp
                return
            if answer.status == 429 or answer.status >= 500:
                wait = answer.retry_after(0.25 + 0.25 * rng.random())
            else:
                player.final = f"refused {answer.status} {code}"
                return
        if time.time() + wait > cutoff:
            player.final = "gave up at the deadline + grace"
            return
        await asyncio.sleep(wait)
    player.final = f"gave up after {MAX_SLIP_ATTEMPTS} attempts"


async def hold_slow(port: int, path: str, until: float, cut: list, opened: list) -> None:
    """One slow client: a POST's request line and headers with no credentials and no body, held until the
    server cuts it off; then again, until ``until`` (an attacker reconnects). Each cut is recorded as (status
    line, seconds held)."""
    head = (f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: 300\r\n\r\n").encode()
    while time.time() < until:
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        began = time.monotonic()
        opened.append(began)
        try:
            writer.write(head)
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), max(0.1, until - time.time()))
            cut.append((line.decode("latin-1").strip() or "closed", time.monotonic() - began))
        except (TimeoutError, OSError):
            pass
        finally:
            writer.close()


async def watch_close(api: Api, game_id: int, deadline: float, until: float, sending_done: asyncio.Event) -> dict:
    """Poll /live from the deadline until round 1 is closed, then the arbitrator's round detail until it
    carries the results; then /live again, until every slip request has ended, to note each later change of
    the game's version (a result written after the close changes it)."""
    out = {"closed_seen": None, "results_seen": None, "polls": 0, "poll_errors": Counter(), "detail": None,
           "versions": []}
    await asyncio.sleep(max(0.0, deadline - time.time()))
    while time.time() < until:
        out["polls"] += 1
        try:
            answer = await http(api.port, "GET", f"/api/games/{game_id}/live", timeout=10)
            body = answer.json() if answer.status == 200 else None
            if body is None:
                out["poll_errors"][answer.status] += 1
            elif body.get("round") == 1 and body.get("round_status") in ("closed", "cancelled"):
                out["closed_seen"] = time.time()
                out["versions"].append((out["closed_seen"], body.get("version")))
                break
        except HttpError as exc:
            out["poll_errors"][str(exc).split(":")[0]] += 1
        await asyncio.sleep(POLL_EVERY)
    while out["closed_seen"] and time.time() < until:
        try:
            answer = await http(api.port, "GET", f"/api/games/{game_id}/rounds/1", headers=api.headers(), timeout=20)
            detail = answer.json() if answer.status == 200 else None
            if detail and detail.get("status") == "closed" and detail.get("results") is not None:
                out["results_seen"], out["detail"] = time.time(), detail
                break
            out["poll_errors"][f"round detail {answer.status}"] += 1
        except HttpError as exc:
            out["poll_errors"][str(exc).split(":")[0]] += 1
        await asyncio.sleep(POLL_EVERY)
    while out["closed_seen"] and time.time() < until and not sending_done.is_set():
        try:
            answer = await http(api.port, "GET", f"/api/games/{game_id}/live", timeout=10)
            body = answer.json() if answer.status == 200 else None
            if body and body.get("version") != out["versions"][-1][1]:
                out["versions"].append((time.time(), body.get("version")))
        except HttpError as exc:
            out["poll_errors"][str(exc).split(":")[0]] += 1
        try:
            await asyncio.wait_for(sending_done.wait(), 2 * POLL_EVERY)
        except TimeoutError:
            pass
    return out


async def loop_lag(stop: asyncio.Event, lags: list[float]) -> None:
    """How late the client's own event loop runs: every figure below is at least this late."""
    while not stop.is_set():
        before = time.monotonic()
        await asyncio.sleep(0.05)
        lags.append(time.monotonic() - before - 0.05)


# ---- the scenario -------------------------------------------------------------------------------------


async def festival(args, port: int, password: str, services: Services, db_check,
                   db_watch: DatabaseWatch, summary: dict | None = None) -> list[tuple[str, bool, str]]:
    """The scenario; its targets, and its main figures in ``summary`` (for --compare-followers' table)."""
    summary = summary if summary is not None else {}
    rng = random.Random(args.seed)
    api = Api(port)
    lags: list[float] = []
    lag_stop = asyncio.Event()
    lag_task = asyncio.ensure_future(loop_lag(lag_stop, lags))
    cpu_start, wall_start = time.process_time(), time.monotonic()
    targets: list[tuple[str, bool, str]] = []

    api.token = (await api.call("POST", "/api/auth/token", {"username": "festival", "password": password}))["token"]
    tournament = await api.call("POST", "/api/tournaments", {"name": "Festival hall", "round_seconds": args.round_seconds})
    game = await api.call("POST", f"/api/tournaments/{tournament['id']}/games", {"seed": args.seed})
    game_id = game["id"]
    feed = None
    if args.followers:  # the head arbitrator turns the public results link on (the console's switch)
        feed = f"/api/public/{await asyncio.to_thread(public_link, services, tournament['id'])}"
    for _ in range(10):  # the first requests of each worker import the views: not what a phone waits for
        await http(port, "GET", f"/api/games/{game_id}/live")
        await api.call("GET", f"/api/games/{game_id}")

    # Joins.
    players = [Player(i) for i in range(args.players)]
    joins = await join_all(port, game["join_code"], players, args.concurrency, limit=max(60.0, args.players / 5))
    joined = [p for p in players if p.id is not None]
    print(f"joins: {joins['ok']}/{args.players} players joined in {joins['seconds']:.1f} s "
          f"({joins['ok'] / joins['seconds']:.0f} joins/s, {args.concurrency} at a time); "
          f"latency {spread(joins['latency'])}")
    print(f"  join failures by status: {counts(joins['failures'])}")
    state = await api.call("GET", f"/api/games/{game_id}")
    print(f"  the game counts {state['players']} players")

    # Phones on the live stream.
    stop = asyncio.Event()
    listeners = [Listener(port, game_id) for _ in range(args.listeners)]
    opened = time.monotonic()
    listening = [asyncio.ensure_future(listener.run(stop)) for listener in listeners]
    try:
        await asyncio.wait_for(asyncio.gather(*(listener.ready.wait() for listener in listeners)), 60)
    except TimeoutError:
        pass
    live = [listener for listener in listeners if listener.first_event is not None]
    print(f"listeners: {len(live)}/{args.listeners} streams open with a first event in "
          f"{time.monotonic() - opened:.1f} s; open to first event "
          f"{spread([listener.first_event - listener.opened for listener in live])}")

    # The round.
    following = await start_followers(f"http://{HOST}:{port}", feed, args, services.logs) if feed else []
    drawn = await api.call("POST", f"/api/games/{game_id}/rounds", {})
    before = await api.call("GET", f"/api/games/{game_id}/rounds/1")
    plan = await asyncio.to_thread(slip_plan, joined, drawn["rack"], before["board"], rng)
    kinds = Counter(p.kind for p in joined)
    start_sent = time.time()
    started = await api.call("POST", f"/api/games/{game_id}/rounds/1/start")
    start_answered = time.time()
    deadline = iso_time(started["deadline"])
    window = min(args.window, args.round_seconds)
    cutoff = deadline + args.grace
    print(f"round 1: rack {drawn['rack']}, top {plan['top']} ({plan['plays']} tied plays, found locally in "
          f"{plan['seconds'] * 1000:.0f} ms, e.g. {plan['words'][0][0]} {plan['words'][0][1]}); deadline "
          f"{started['deadline']} ({deadline - start_answered:.1f} s after the start answered)")
    print(f"  slips planned: {len(joined)} ({kinds['top']} tops at their score, {kinds['top_wrong_score']} tops at a "
          f"wrong score, {kinds['invalid_word']} invalid words, {kinds['not_playable']} words the rack cannot make), "
          f"each at a random moment of the last {window:g} s")
    for player in joined:
        player.send_at = deadline - window + rng.random() * window * 0.9999
    sending = [asyncio.ensure_future(hand_in(port, game_id, p, deadline, cutoff, rng)) for p in joined]
    slow_cut: list = []
    slow_opened: list = []
    slow_path = f"/api/games/{game_id}/rounds/1/slips"
    slow = [asyncio.ensure_future(hold_slow(port, slow_path, cutoff, slow_cut, slow_opened))
            for _ in range(args.slow)]
    cpu_account = CpuAccount({name: proc.pid for name, proc in services.procs.items()} |
                             ({FOLLOWERS_TIER: following[0].pid} if following else {}))

    async def first_cpu_mark():
        await asyncio.sleep(max(0.0, deadline - window - time.time()))
        await asyncio.to_thread(cpu_account.snapshot)

    cpu_start_mark = asyncio.ensure_future(first_cpu_mark())
    watch_stop = asyncio.Event()
    watching = asyncio.ensure_future(db_watch.run(deadline - window - 1, watch_stop, deadline + 90))
    sending_done = asyncio.Event()
    closing = asyncio.ensure_future(watch_close(api, game_id, deadline, deadline + 90, sending_done))
    try:
        await asyncio.wait_for(asyncio.gather(*sending), max(0.0, cutoff - time.time()) + REQUEST_TIMEOUT + 10)
    except TimeoutError:
        for task in sending:
            task.cancel()
        await asyncio.gather(*sending, return_exceptions=True)
    for player in joined:
        player.final = player.final or "unfinished at the bench's limit"
    sending_done.set()
    close = await closing
    for task in slow:
        task.cancel()
    await asyncio.gather(*slow, return_exceptions=True)
    await cpu_start_mark
    await asyncio.to_thread(cpu_account.snapshot)  # the slips have ended and the results are shown
    # The followers end after that snapshot: an ended process's CPU is no longer in /proc.
    followed = await end_followers(following) if following else None

    # The phones: wait (bounded) until every open stream was told of the close.
    until = max(deadline + max(args.grace, 10) + 20, (close["closed_seen"] or 0) + 10)
    while time.time() < until and not all((1, "closed") in listener.seen for listener in live):
        await asyncio.sleep(0.1)
    stop.set()
    await asyncio.gather(*listening, return_exceptions=True)
    watch_stop.set()
    await watching

    # What the server holds.
    detail = await api.call("GET", f"/api/games/{game_id}/rounds/1")  # once every slip request has ended
    standings = await api.call("GET", f"/api/games/{game_id}/standings")
    database = await asyncio.to_thread(db_check, game_id)
    lag_stop.set()
    await lag_task
    cpu, wall = time.process_time() - cpu_start, time.monotonic() - wall_start

    # ---- slips
    attempts = [a for p in joined for a in p.attempts]
    statuses = Counter(a[2] for a in attempts)
    five = sum(1 for a in attempts if isinstance(a[2], int) and a[2] >= 500)
    conflicts = Counter(a[3] for a in attempts if a[2] == 409)
    conflicts_in_time = Counter(a[3] for a in attempts if a[2] == 409 and a[4])
    accepted = [p for p in joined if p.final == "accepted"]
    fired_late = [p for p in joined if p.first_sent is not None and not p.sent_before_deadline]
    in_time = [p for p in joined if p.sent_before_deadline]
    refused_in_time = [p for p in in_time if p.final != "accepted"]
    first_to_ok = [p.accepted_at - p.first_sent for p in accepted]
    per_request = [a[1] - a[0] for a in attempts if isinstance(a[2], int)]
    print(f"slips: {len(attempts)} requests for {sum(1 for p in joined if p.first_sent)} slips sent "
          f"({len(in_time)} first sent before the deadline, {len(fired_late)} fired after it by a late client loop)")
    print(f"  accepted: {len(accepted)} ({counts(Counter(p.accepted_status for p in accepted))}); "
          f"not accepted: {len(joined) - len(accepted)} ({counts(Counter(p.final for p in joined if p.final != 'accepted'))})")
    print(f"  answers: {counts(statuses)}")
    print(f"  5xx: {five}; 409 by code: {counts(conflicts)} (of which sent before the deadline: {counts(conflicts_in_time)})")
    early_409 = sorted((a[0] - deadline, a[1] - deadline, a[3], a[5]) for a in attempts if a[2] == 409 and a[4])
    if early_409:
        print("  409 to requests sent before the deadline: " + "; ".join(
            f"{code} sent at deadline {sent * 1000:+.0f} ms, "
            + (f"stamped by the server at {late_by * 1000:+.0f} ms, " if isinstance(late_by, (int, float)) else "")
            + f"answered {answered * 1000:+.0f} ms"
            for sent, answered, code, late_by in early_409[:5]) + ("; ..." if len(early_409) > 5 else ""))
    print(f"  sent before the deadline but not accepted: {len(refused_in_time)}"
          + (f" ({counts(Counter(p.final for p in refused_in_time))}; last attempt sent at deadline "
             f"{spread([p.attempts[-1][0] - deadline for p in refused_in_time if p.attempts])} relative)"
             if refused_in_time else ""))
    retried = [p for p in accepted if len(p.attempts) > 1]
    print(f"  latency first send -> accepted: {spread(first_to_ok)}; {len(retried)} needed a retry")
    print(f"  client lateness (first send after its planned moment): "
          f"{spread([p.first_sent - p.send_at for p in joined if p.first_sent])}; its bytes written after that "
          f"(connect): {spread([p.written_lag for p in joined if p.written_lag is not None])}")
    # One machine, one clock: how long the server took to stamp a request whose bytes had arrived (its event
    # loop busy), the margin a slip written just before the deadline needs.
    print(f"  server's arrival stamp after the bytes were written: "
          f"{spread([p.stamp_lag for p in accepted if p.stamp_lag is not None])}; for the slips written in the "
          f"last second: {spread([p.stamp_lag for p in accepted if p.stamp_lag is not None and p.attempts and deadline - 1 <= p.attempts[0][0] < deadline])}")
    print(f"  latency per request (any answer): {spread(per_request)}")

    # ---- close and results
    closed_at = database.get("closed_at")
    rows, no_result, differs, misjudged = compare(detail, accepted)
    first_rows, first_missing, first_differs, _ = compare(close["detail"] or {}, accepted)
    first_wrong = len(first_missing) + len(first_differs)
    shown = (close["results_seen"] - deadline) if close["results_seen"] else float("nan")
    if not close["results_seen"] or no_result or differs:
        complete = float("nan")  # never complete, as far as the bench saw
    elif not first_wrong:
        complete = shown
    else:  # completed by a later change of the game's version (a result written after the close)
        complete = close["versions"][-1][0] - deadline
    print(f"close: /live said closed at deadline + {ms(close['closed_seen'] - deadline) if close['closed_seen'] else 'never'}"
          f" (polled every {POLL_EVERY * 1000:.0f} ms, errors: {counts(close['poll_errors'])}); server's closed_at = "
          f"deadline + {ms(closed_at - deadline) if closed_at else 'none'}")
    print(f"  results first shown to the arbitrator at deadline + {ms(shown)}: {len(close['detail']['results'] or []) if close['detail'] else 0} "
          f"rows, of which {first_wrong} accepted slips missing or different ({len(first_missing)} judged as no slip "
          f"or absent, {len(first_differs)} another slip); game changes seen after that: {len(close['versions']) - 1}"
          f"; results complete at deadline + {ms(complete)}")
    by_id = {p.id: p for p in joined}
    phantom = []
    for p in joined:
        found = rows.get(p.id)
        if p.final != "accepted" and found and found[0].get("word") is not None:
            phantom.append(p)
    api_dups = [pid for pid, found in rows.items() if len(found) > 1]
    db_dups = set(database["multi_current"]) | set(database["multi_results"])
    duplicated = set(api_dups) | db_dups
    lost = len(no_result) + len(differs)
    print(f"results: {len(detail.get('results') or [])} rows for {state['players']} players; "
          f"lost: {lost} (accepted but no result: {len(no_result)}, result not the slip accepted: {len(differs)})")
    for p, row in differs[:3]:
        print(f"    e.g. player {p.id} sent {p.word} {p.ref} {p.score}, result shows {row.get('word')} {row.get('ref')} "
              f"{row.get('claimed')} ({row.get('reason')})")
    for p in no_result[:3]:
        found = rows.get(p.id)
        print(f"    e.g. player {p.id}: slip {p.word} {p.ref} {p.score} accepted ({p.accepted_status}) at deadline "
              f"{p.accepted_at - deadline:+.3f} s, result: {found[0]['reason'] if found else 'no row'}")
    print(f"  duplicated: {len(duplicated)} players (several result rows in the round detail: {len(api_dups)}; "
          f"in the database, several current slips: {len(database['multi_current'])}, several results: "
          f"{len(database['multi_results'])})")
    print(f"  judged otherwise than the local engine expects: {len(misjudged)}"
          + "".join(f"; e.g. {p.word} {p.ref} {p.score}: expected {p.expected}, got "
                    f"({row['paid']}, {row['outcome']}, {row['reason']})" for p, row in misjudged[:2]))
    print(f"  results by reason: {counts(Counter(r['reason'] for found in rows.values() for r in found))}")
    print(f"  slips the server holds though the client never saw them accepted: {len(phantom)}; "
          f"result rows of players the bench does not know: {sum(1 for pid in rows if pid not in by_id)}")
    totals = {row["player"]: row["total"] for row in standings}
    standing_off = [p for p in accepted if p.id in rows and totals.get(p.id) != rows[p.id][0]["paid"]]
    print(f"  standings: {len(standings)} rows; totals differing from the round's payment: {len(standing_off)}")
    print(f"  database: {database['slips']} slips stored ({database['current']} current), {database['results']} "
          f"results; slips received after the deadline (in transit at it, docs/rules.md §4): {database['late']}")

    print(f"  database connections from the slips to the close: {db_watch.summary(deadline)}")
    print(f"  CPU from the first slip to the results shown: {cpu_account.summary()}")
    if len(cpu_account.marks) > 1 and accepted:
        wall_cpu, used, _, _, _ = cpu_account.used()
        print(f"  CPU per slip accepted, by tier (its core-seconds over the round's last {window:g} s and the close, "
              f"over {len(accepted)} slips; listeners and the close included): " + ", ".join(
                  f"{name} {value * wall_cpu / len(accepted) * 1000:.2f} ms"
                  for name, value in sorted(used.items(), key=lambda kv: -kv[1]) if value >= 0.005))
    if cpu_account.others() > 0.25:
        print(f"  WARNING: other work used {cpu_account.others():.2f} cores of this machine during the round: the "
              f"servers had less than the machine; latencies and throughput are skewed (run again with --wait-quiet)")
    print("  timeline, per second from the deadline: slips first sent / answered 2xx, 503, 409, other, no answer "
          "| server database connections at their peak: active, idle in transaction, waiting on a lock "
          "| web processes' threads")
    for line in timeline(joined, deadline, db_watch, close):
        print("    " + line)

    if args.slow:
        held = [seconds for _, seconds in slow_cut]
        print(f"slow clients: {args.slow} held a POST's headers with no body and no credentials from the round's "
              f"start to the deadline + {args.grace:g} s: {len(slow_opened)} connections, {len(slow_cut)} cut off by "
              f"the server ({counts(Counter(line.split(' ', 2)[1] if ' ' in line else line for line, _ in slow_cut))}) "
              f"after {spread(held)}")

    # ---- live streams
    told = [listener.seen[(1, "closed")] - deadline for listener in live if (1, "closed") in listener.seen]
    start_told = [listener.seen[(1, "open")] - start_sent for listener in live if (1, "open") in listener.seen]
    errors = Counter(e.split(":")[0] for listener in listeners for e in listener.errors)
    print(f"live streams: {len(told)}/{len(live)} listening phones told of the close; delay from the deadline: "
          f"{spread(told)}")
    print(f"  told of the start: {len(start_told)}/{len(live)}, delay from the start's request: {spread(start_told)}; "
          f"events per phone: max {max((listener.events for listener in listeners), default=0)}; "
          f"reconnects: {sum(listener.reconnects for listener in listeners)}; stream errors: {counts(errors)}")

    window_rate = float("nan")
    if followed is not None:
        from bench.followers import rate_between, report

        print(f"followers (public results feed {feed}, each every {args.follow_every:g} s with If-None-Match, "
              f"from the draw to the results): {report(followed)}")
        if len(cpu_account.walls) > 1:
            window_rate = rate_between(followed, cpu_account.walls[0], cpu_account.walls[-1])
        print(f"  answered while the CPU was measured (the last {window:g} s of slips and the close): "
              f"{window_rate:.0f}/s of {followed['planned_per_second']}/s planned"
              + ("" if window_rate >= 0.95 * (followed["planned_per_second"] or 0) else
                 " -- WARNING: fewer polls than planned reached the servers while the slips came in (the "
                 "followers' client, at low priority, did not get the CPU it needed): the servers were spared "
                 "part of the followers' load"))
        print(f"  followers' client: {len(following)} process(es), niceness {followed['nice']}, event loop "
              f"{followed['loop']}, {followed['cpu_seconds']:.1f} s CPU in all ("
              f"{followed['cpu_seconds'] / max(1, followed['requests']) * 1e6:.0f} us per poll; their own tier in "
              "the CPU lines above)")
    print(f"client: event-loop lag {spread(lags)}; {cpu:.1f} s CPU over {wall:.1f} s; "
          f"load average now {os.getloadavg()[0]:.1f}; server processes dead: {', '.join(services.dead()) or 'none'}")

    summary.update({
        "followers": args.followers, "players": len(joined), "accepted": len(accepted), "lost": lost,
        "duplicated": len(duplicated), "5xx": five, "in_time": len(in_time), "refused_in_time": len(refused_in_time),
        "slip_p50": percentile(first_to_ok, 0.5), "slip_p99": percentile(first_to_ok, 0.99),
        "request_p99": percentile(per_request, 0.99), "results_shown": shown, "results_complete": complete,
        "told_p50": percentile(told, 0.5) if told else float("nan"),
        "cpu": cpu_account.used()[1] if len(cpu_account.marks) > 1 else {},
        "busy": cpu_account.used()[3] if len(cpu_account.marks) > 1 else float("nan"),
        "cpu_seconds": cpu_account.used()[0] if len(cpu_account.marks) > 1 else float("nan"),
        "client_lag_p99": percentile(lags, 0.99) if lags else float("nan"),
        "followed": followed, "window_rate": window_rate,
    })

    targets += [
        ("0 lost", lost == 0, str(lost)),
        ("0 duplicated", not duplicated, str(len(duplicated))),
        ("0 5xx", five == 0, str(five)),
        ("every slip sent before the deadline accepted", not refused_in_time,
         f"{len(in_time) - len(refused_in_time)}/{len(in_time)}"),
        (f"p99 slip latency <= {ms(args.p99)} (first send -> accepted)",
         bool(first_to_ok) and percentile(first_to_ok, 0.99) <= args.p99, ms(percentile(first_to_ok, 0.99))),
        (f"p99 slip latency <= {ms(args.p99)} (per request)",
         bool(per_request) and percentile(per_request, 0.99) <= args.p99, ms(percentile(per_request, 0.99))),
        ("results visible (and complete) <= 1 s after the deadline", complete <= TARGET_RESULTS,
         f"first shown {ms(shown)}, complete {ms(complete)}"),
        ("every listening phone told of the close within 1 s",
         bool(live) and len(told) == len(live) and max(told) <= TARGET_TOLD,
         f"{sum(1 for t in told if t <= TARGET_TOLD)}/{len(live)} within 1 s"),
    ]
    return targets


def timeline(joined: list[Player], deadline: float, db_watch: DatabaseWatch, close: dict) -> list[str]:
    buckets: dict[int, Counter] = defaultdict(Counter)

    def second(t: float) -> int:
        return int((t - deadline) // 1)

    for p in joined:
        if p.first_sent:
            buckets[second(p.first_sent)]["sent"] += 1
        for _sent, answered, status, *_ in p.attempts:
            kind = ("2xx" if status in (200, 201) else "503" if status == 503 else "409" if status == 409
                    else "no answer" if not isinstance(status, int) else "other")
            buckets[second(answered)][kind] += 1
    for t, states, _ in db_watch.samples:
        b = buckets[second(t)]
        for key in ("active", "idle in transaction", "waiting on a lock", "web threads"):
            b["db " + key] = max(b["db " + key], states[key])
        b["db"] = 1
    marks = {}
    if close["closed_seen"]:
        marks[second(close["closed_seen"])] = " <- /live says closed"
    if close["results_seen"]:
        marks[second(close["results_seen"])] = marks.get(second(close["results_seen"]), "") + " <- results shown"
    lines = []
    for s in sorted(k for k, b in buckets.items() if any(b[x] for x in ("sent", "2xx", "503", "409", "other",
                                                                           "no answer", "db"))):
        b = buckets[s]
        db = (f"| db {b['db active']:3d} {b['db idle in transaction']:3d} {b['db waiting on a lock']:3d} "
              f"| {b['db web threads']:4d}" if b["db"] else "|")
        lines.append(f"{s:+4d} s: {b['sent']:4d} / {b['2xx']:4d} {b['503']:4d} {b['409']:4d} {b['other']:4d} "
                     f"{b['no answer']:4d} {db}{marks.get(s, '')}")
    return lines


def compare(detail: dict, accepted: list[Player]):
    """The round detail's rows by player, and the accepted slips it lacks, shows otherwise, or judges otherwise
    than the local engine."""
    rows = defaultdict(list)
    for row in detail.get("results") or []:
        rows[row["player"]].append(row)
    missing, differs, misjudged = [], [], []
    for p in accepted:
        found = rows.get(p.id)
        if not found or found[0].get("word") is None:  # no row, or judged as if no slip was handed in
            missing.append(p)
        elif (found[0].get("word"), found[0].get("ref"), found[0].get("claimed")) != (p.word, p.ref, p.score):
            differs.append((p, found[0]))
        elif (found[0]["paid"], found[0]["outcome"], found[0]["reason"]) != p.expected:
            misjudged.append((p, found[0]))
    return rows, missing, differs, misjudged


def public_link(services: Services, tournament_id: int) -> str:
    """The key of the tournament's public results link, turned on by the festival's arbitrator."""
    out = services.run("public", ["manage.py", "shell", "-c",
                                  "from django.contrib.auth import get_user_model; from tournaments import public; "
                                  "from tournaments.models import Tournament; "
                                  f"link = public.link_set(tournament=Tournament.objects.get(pk={int(tournament_id)}), "
                                  "on=True, actor=get_user_model().objects.get(username='festival')); "
                                  "print('KEY', link.key)"], timeout=120)
    keys = [line.split()[1] for line in out.splitlines() if line.startswith("KEY ")]
    if not keys:
        raise SystemExit(f"no public link key in: {out[-500:]}")
    return keys[-1]


def make_db_check(pg_base: str, database: str):
    def check(game_id: int) -> dict:
        import psycopg

        with psycopg.connect(f"{pg_base}/{database}", connect_timeout=10) as conn:
            row = conn.execute("SELECT id, extract(epoch from deadline), extract(epoch from closed_at) FROM "
                               "tournaments_round WHERE game_id = %s AND number = 1", (game_id,)).fetchone()
            round_id, deadline, closed = row

            def many(sql):
                return [r[0] for r in conn.execute(sql, (round_id,)).fetchall()]

            return {
                "closed_at": float(closed) if closed is not None else None,
                "multi_current": many("SELECT player_id FROM tournaments_slip WHERE round_id = %s AND current "
                                      "GROUP BY player_id HAVING count(*) > 1"),
                "multi_results": many("SELECT player_id FROM tournaments_result WHERE round_id = %s "
                                      "GROUP BY player_id HAVING count(*) > 1"),
                "slips": many("SELECT count(*) FROM tournaments_slip WHERE round_id = %s")[0],
                "current": many("SELECT count(*) FROM tournaments_slip WHERE round_id = %s AND current")[0],
                "results": many("SELECT count(*) FROM tournaments_result WHERE round_id = %s")[0],
                "late": conn.execute("SELECT count(*) FROM tournaments_slip s JOIN tournaments_round r ON "
                                     "r.id = s.round_id WHERE r.id = %s AND s.received_at > r.deadline",
                                     (round_id,)).fetchone()[0],
            }

    return check


def code_state() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True,
                                 timeout=10).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return "unknown (no git)"
    product = [line[3:] for line in changed if line[3:].startswith(("arbiter/", "tournaments/", "engine/", "templates/"))]
    return f"commit {head}" + (f" + uncommitted changes in {', '.join(product)}" if product else ", clean")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--listeners", type=int, default=300)
    parser.add_argument("--round-seconds", type=int, default=40)
    parser.add_argument("--window", type=float, default=10.0, help="slips are sent in the last WINDOW seconds")
    parser.add_argument("--concurrency", type=int, default=20, help="joins at a time")
    parser.add_argument("--grace", type=float, default=5.0, help="retries go on until the deadline + GRACE s")
    parser.add_argument("--timeout", type=float, default=300.0, help="the whole scenario, in seconds")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--database", default="arbiter_festival")
    parser.add_argument("--redis-db", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None,
                        help="uvicorn workers (of each host with --proxy); default 2, or 1 per host with --proxy")
    parser.add_argument("--proxy", action="store_true",
                        help="two web hosts (uvicorn on 127.0.0.2 and 127.0.0.3) behind HAProxy "
                             "(docker/haproxy-hosts.cfg) on 127.0.0.1; the client talks to the proxy only")
    parser.add_argument("--followers", type=int, default=0,
                        help="followers polling the public results JSON feed (bench/followers.py) during the round")
    parser.add_argument("--follow-every", type=float, default=10.0, help="each follower's period, in seconds")
    parser.add_argument("--follower-nice", type=int, default=19,
                        help="the followers' client's niceness (19, the lowest priority, by default: followers at "
                             "home bring their own CPUs); its report says whether it kept its schedule")
    parser.add_argument("--follower-processes", type=int, default=1,
                        help="processes the followers are shared among (1: one event loop costs least per poll)")
    parser.add_argument("--compare-followers", type=int, default=0, metavar="N",
                        help="run the same round (same seed) without followers, then with N, --repeat times, each "
                             "on a fresh database and servers, and print both side by side")
    parser.add_argument("--repeat", type=int, default=1, help="with --compare-followers: how many pairs of runs")
    parser.add_argument("--p99", type=float, default=TARGET_P99 * 1000,
                        help="the p99 slip latency target, in ms (300: the issue's target through the proxy; "
                             "500 for 3,000 players direct)")
    parser.add_argument("--slow", type=int, default=0,
                        help="slow clients holding a slip's headers with no body through the round (reconnecting)")
    parser.add_argument("--no-access-log", action="store_true", help="uvicorn without its access log")
    parser.add_argument("--pg-log", default=None,
                        help="PostgreSQL's log file (default: /var/log/postgresql/postgresql-*.log when readable)")
    parser.add_argument("--wait-quiet", type=float, default=0.0,
                        help="wait up to this many seconds for the machine to be quiet (under 0.3 busy cores) "
                             "before starting: other work on the machine skews every figure")
    parser.add_argument("--client-nice", type=int, default=-5,
                        help="the client's niceness once the servers run (phones have CPUs of their own; "
                             "needs the right to raise priority, else left as is)")
    args = parser.parse_args()
    args.workers = args.workers or (1 if args.proxy else 2)
    if not 50 <= args.p99 <= 10_000:
        raise SystemExit("--p99 50..10000 (ms)")
    args.p99 /= 1000
    if args.proxy and not Path(HAPROXY).exists():
        raise SystemExit(f"--proxy needs HAProxy at {HAPROXY} (Debian's haproxy package)")
    if not 1 <= args.players <= MAX_PLAYERS or not 0 <= args.listeners <= MAX_LISTENERS:
        raise SystemExit(f"--players 1..{MAX_PLAYERS}, --listeners 0..{MAX_LISTENERS}")
    if not 0 <= args.followers <= 20_000 or not 0.5 <= args.follow_every <= 600:
        raise SystemExit("--followers 0..20000, --follow-every 0.5..600")
    if not 0 <= args.compare_followers <= 20_000 or (args.compare_followers and args.followers):
        raise SystemExit("--compare-followers 0..20000, and not with --followers (it runs 0, then N)")
    if not -20 <= args.follower_nice <= 19 or not 1 <= args.follower_processes <= 8 or not 1 <= args.repeat <= 10:
        raise SystemExit("--follower-nice -20..19, --follower-processes 1..8, --repeat 1..10")
    if not 0 <= args.slow <= 1000:
        raise SystemExit("--slow 0..1000")
    if not 10 <= args.round_seconds <= 600 or not 0 < args.window or not 1 <= args.concurrency <= 200:
        raise SystemExit("--round-seconds 10..600, --window > 0, --concurrency 1..200")
    if not 0 <= args.grace <= 60 or not 30 <= args.timeout <= 3600 or not 1 <= args.workers <= 8:
        raise SystemExit("--grace 0..60, --timeout 30..3600, --workers 1..8")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database) or not ("festival" in args.database or "bench" in args.database):
        raise SystemExit("--database: a lowercase name containing 'festival' or 'bench' (it is dropped)")
    if not 0 <= args.redis_db <= 15:
        raise SystemExit("--redis-db 0..15")
    args.seed = args.seed if args.seed is not None else random.randrange(1, 10**6)
    check_local(PG_BASE)
    check_local(REDIS_BASE)
    sys.path.insert(0, str(ROOT))

    wanted_files = (args.players + args.listeners + args.slow + max(args.followers, args.compare_followers)) * 2 + 500
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = min(hard, max(soft, wanted_files)) if hard != resource.RLIM_INFINITY else max(soft, wanted_files)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    if limit < args.players + args.listeners + 200:
        raise SystemExit(f"open files limited to {limit}: too few for {args.players} players and {args.listeners} phones")

    def on_term(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    def on_alarm(signum, frame):
        raise TimeoutError("the bench's hard limit")

    signal.signal(signal.SIGALRM, on_alarm)
    if not 0 <= args.wait_quiet <= 3600:
        raise SystemExit("--wait-quiet 0..3600")
    args.start_nice = os.getpriority(os.PRIO_PROCESS, 0)
    if not args.compare_followers:
        targets, _ = run(args)
        sys.exit(0 if targets and all(ok for _, ok, _ in targets) else 1)
    # The same round (same seed, players, rack and slips, a fresh database and servers each time) without
    # followers and with them, --repeat times in turn, and the figures side by side.
    runs: list[dict] = []
    passed = True
    for _ in range(args.repeat):
        for followers in (0, args.compare_followers):
            args.followers = followers
            print(f"\n===== run {len(runs) + 1} of {2 * args.repeat}: {followers} followers =====", flush=True)
            targets, summary = run(args)
            passed = passed and bool(targets) and all(ok for _, ok, _ in targets)
            runs.append(summary)
    print()
    for line in side_by_side(runs, args):
        print(line)
    sys.exit(0 if passed else 1)


def run(args) -> tuple[list, dict]:
    """One festival: fresh database and servers, the scenario, everything stopped; its targets and figures."""
    signal.alarm(int(args.timeout) + 300)  # the last resort: setup, scenario and stop together
    try:  # the servers start at the priority this bench was started with (a run before raised the client's)
        os.setpriority(os.PRIO_PROCESS, 0, args.start_nice)
    except OSError:
        pass
    summary: dict = {}
    quiet_until = time.monotonic() + args.wait_quiet
    busy = machine_busy()
    while busy > 0.3 and time.monotonic() < quiet_until:
        busy = machine_busy(5.0)
    logs = Path(tempfile.mkdtemp(prefix="festival-"))
    port = free_port()
    # The web hosts: one on 127.0.0.1 (the client's port), or two behind the proxy (which takes that port).
    hosts = ([("web1", "127.0.0.2", free_port("127.0.0.2")), ("web2", "127.0.0.3", free_port("127.0.0.3"))]
             if args.proxy else [("web", HOST, port)])
    password = secrets.token_urlsafe(24)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "arbiter.settings.base",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost" + (",127.0.0.2,127.0.0.3" if args.proxy else ""),
        "DATABASE_URL": f"{PG_BASE}/{args.database}",
        "REDIS_URL": f"{REDIS_BASE}/{args.redis_db}",
        "PYTHONUNBUFFERED": "1",
        "FESTIVAL_PASSWORD": password,
    }
    pool = ", ".join(f"{k}={os.environ[k]}" for k in ("DB_POOL_MIN_SIZE", "DB_POOL_MAX_SIZE", "DB_POOL_TIMEOUT")
                     if k in os.environ) or "the defaults"
    print(f"festival: {args.players} players, {args.listeners} listeners, round {args.round_seconds} s, slips in the "
          f"last {args.window:g} s, joins {args.concurrency} at a time, seed {args.seed}")
    shape = (f"HAProxy on {HOST}:{port} before 2 hosts ({', '.join(f'{h}:{p}' for _, h, p in hosts)}), each uvicorn "
             f"--workers {args.workers}" if args.proxy else f"uvicorn --workers {args.workers} on {HOST}:{port}")
    print(f"  {shape} + celery worker --concurrency 2 + celery beat; "
          f"database {args.database} (recreated), Redis db {args.redis_db} (flushed); pool: {pool}")
    print(f"  code: {code_state()}; {os.cpu_count()} CPUs shared by the servers and this client; "
          f"load average {os.getloadavg()[0]:.1f}, {busy:.2f} cores busy before the start; logs in {logs}")

    services = Services(env, logs)
    pg_log = PostgresLog(args.pg_log, args.database)
    targets: list = []
    try:
        started = time.monotonic()
        recreate_database(PG_BASE, args.database)
        flush_redis(REDIS_BASE, args.redis_db)
        services.run("migrate", ["manage.py", "migrate", "--noinput"], timeout=180)
        services.run("arbitrator", ["manage.py", "shell", "-c",
                                    "import os; from django.contrib.auth import get_user_model; "
                                    "get_user_model().objects.create_user('festival', password="
                                    "os.environ['FESTIVAL_PASSWORD'], is_staff=True)"], timeout=60)
        web_procs = []
        for name, host, host_port in hosts:
            web = ["-m", "uvicorn", "arbiter.asgi:application", "--host", host, "--port", str(host_port),
                   "--workers", str(args.workers), "--http", "arbiter.server:GuardedHTTPProtocol",
                   "--timeout-keep-alive", "5"] + (["--no-access-log"] if args.no_access_log else [])
            web_env = {**env, "TRUSTED_PROXIES": "1"} if args.proxy else None
            web_procs.append((services.start(name, web, env=web_env), host, host_port))
        web_proc = web_procs[0][0]
        services.start("worker", ["-m", "celery", "-A", "arbiter", "worker", "--loglevel", "info",
                                  "--concurrency", "2", "--hostname", f"festival-{port}@%h"])
        services.start("beat", ["-m", "celery", "-A", "arbiter", "beat", "--loglevel", "info",
                                "--schedule", str(logs / "celerybeat-schedule")])
        for proc, host, host_port in web_procs:
            wait_healthy(host_port, proc, host=host)
        if args.proxy:
            proxy_env = {**env, "PROXY_BIND": f"{HOST}:{port}", "ARBITER_CHECK_HOST": HOST,
                         "PROXY_CHECK_INTER": "1s", **{f"ARBITER_WEB{i + 1}": f"{host}:{host_port}"
                                                     for i, (_, host, host_port) in enumerate(hosts)}}
            proxy = services.start("proxy", ["-db", "-f", str(ROOT / "docker" / "haproxy-hosts.cfg")],
                                   program=HAPROXY, env=proxy_env)
            wait_healthy(port, proxy)
            wait_proxy_sees(port, len(hosts))
        services.run("pingworker", ["manage.py", "pingworker", "--timeout", "60"], timeout=90)
        if services.dead():
            raise SystemExit(f"a server process died while starting: {', '.join(services.dead())}")
        try:  # after the servers started: they keep the ordinary priority
            os.setpriority(os.PRIO_PROCESS, 0, args.client_nice)
        except OSError:
            pass
        print(f"setup: database, migrations, arbitrator, servers up and the worker answering in "
              f"{time.monotonic() - started:.1f} s; client niceness {os.getpriority(os.PRIO_PROCESS, 0)}")
        summary["load_start"] = os.getloadavg()[0]
        summary["busy_before"] = busy
        targets = asyncio.run(asyncio.wait_for(
            festival(args, port, password, services, make_db_check(PG_BASE, args.database),
                     DatabaseWatch(PG_BASE, args.database, web_proc.pid), summary), args.timeout))
    except TimeoutError:
        print(f"STOPPED: the scenario passed its --timeout of {args.timeout:.0f} s")
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # not the cancelled tasks' leftovers
    except KeyboardInterrupt:
        print("STOPPED: interrupted")
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    finally:
        signal.alarm(0)
        services.stop()
        pg_log.copy(logs)
        print(f"server logs ({logs}; postgresql.log: {pg_log.path or 'not readable here'}, this database's lines):")
        for line in log_errors(logs):
            print(line)
    if targets:
        print("targets:")
        for name, ok, value in targets:
            print(f"  {'PASS' if ok else 'FAIL'}  {name}: {value}")
    return targets, summary


def side_by_side(runs: list[dict], args) -> list[str]:
    """--compare-followers' table: one column per run, the slips' figures, the CPU per tier and the followers'."""
    def seconds(value) -> str:
        return "-" if value is None or value != value else ms(value)

    tiers = sorted({name for one in runs for name in one.get("cpu", {})},
                   key=lambda name: -max(one.get("cpu", {}).get(name, 0.0) for one in runs))
    rows: list[tuple[str, list[str]]] = [
        ("followers", [f"{one.get('followers', 0):,}" for one in runs]),
        ("load average at the start", [f"{one.get('load_start', float('nan')):.1f}" for one in runs]),
        ("slips accepted / players", [f"{one.get('accepted', '-')}/{one.get('players', '-')}" for one in runs]),
        ("lost, duplicated, 5xx", [f"{one.get('lost', '-')}, {one.get('duplicated', '-')}, {one.get('5xx', '-')}"
                                   for one in runs]),
        ("sent in time but refused", [str(one.get("refused_in_time", "-")) for one in runs]),
        ("slip latency p50 (first send -> accepted)", [seconds(one.get("slip_p50")) for one in runs]),
        ("slip latency p99 (first send -> accepted)", [seconds(one.get("slip_p99")) for one in runs]),
        ("request latency p99", [seconds(one.get("request_p99")) for one in runs]),
        ("results complete after the deadline", [seconds(one.get("results_complete")) for one in runs]),
        ("phones told of the close, p50", [seconds(one.get("told_p50")) for one in runs]),
        ("slip client's event-loop lag p99", [seconds(one.get("client_lag_p99")) for one in runs]),
        ("CPU measured over (s)", [f"{one.get('cpu_seconds', float('nan')):.1f}" for one in runs]),
        (f"machine busy (cores of {os.cpu_count()})", [f"{one.get('busy', float('nan')):.2f}" for one in runs]),
    ]
    rows += [(f"  CPU {name} (cores)", [f"{one.get('cpu', {}).get(name, 0.0):.2f}" for one in runs]) for name in tiers]

    def followed(key, form) -> list[str]:
        return [form(one["followed"]) if one.get("followed") else "-" for one in runs]

    rows += [
        ("followers' polls answered / s (planned)", followed("rate", lambda f: f"{f['requests_per_second']:.0f} "
                                                              f"({f['planned_per_second']:.0f})")),
        ("  of which while the CPU was measured", [f"{one['window_rate']:.0f}" if one.get("followed") else "-"
                                                  for one in runs]),
        ("followers' 304 / 200 / other / errors", followed("n", lambda f: f"{f['status_304']} / {f['status_200']} / "
                                                           f"{f['other_status']} / {f['errors']}")),
        ("followers' latency p50 / p99 (ms)", followed("l", lambda f: f"{f['median_ms']} / {f['p99_ms']}")),
        ("followers' client lateness p99 (ms)", followed("late", lambda f: f"{f['lateness_p99_ms']}")),
        ("followers' client kept its schedule", followed("kept", lambda f: "yes" if f["kept_up"] else "NO")),
        ("followers' client CPU per poll (us)", followed("cpu", lambda f: f"{f['cpu_seconds'] / max(1, f['requests']) * 1e6:.0f}")),
    ]
    width = max(len(name) for name, _ in rows)
    cols = [max([len(f"run {i + 1}"), *(len(values[i]) for _, values in rows)]) for i in range(len(runs))]
    mode = "HAProxy before 2 hosts" if args.proxy else "direct"
    lines = [f"side by side ({mode}, {args.players} players, {args.listeners} listeners, seed {args.seed}, "
             f"followers every {args.follow_every:g} s at niceness {args.follower_nice}):",
             " " * width + "  " + "  ".join(f"run {i + 1}".rjust(c) for i, c in enumerate(cols))]
    lines += [name.ljust(width) + "  " + "  ".join(v.rjust(c) for v, c in zip(values, cols, strict=True)) for name, values in rows]
    base = [one["slip_p99"] for one in runs if not one.get("followers") and one.get("slip_p99") == one.get("slip_p99")]
    with_f = [one["slip_p99"] for one in runs if one.get("followers") and one.get("slip_p99") == one.get("slip_p99")]
    if base and with_f:
        lines.append(f"slip p99 without followers {', '.join(ms(v) for v in base)}; with {args.compare_followers:,} "
                     f"followers {', '.join(ms(v) for v in with_f)}"
                     + ("" if len(base) > 1 else " (one run each: run with --repeat 3 to see the noise between runs "
                                                 "of the same kind)"))
    return lines


if __name__ == "__main__":
    main()
