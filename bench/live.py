"""Live updates under load: a thousand phones following one game, on 127.0.0.1 only.

Starts uvicorn (the production ASGI server) on a free local port, creates a game through the services,
then measures both ways a page can follow a game:

1. server-sent events (what the pages use): CLIENTS connections to /games/<id>/events; the rate and latency
   of opening them (to the first event), then CHANGES real state changes (draw, start, close, ...) made
   through the services; each client notes when it sees each one: the delay from the service's commit to
   the client, median / p99 / max over every client and change.
2. polling of /games/<id>/live (the pages' fallback): CLIENTS clients, each one request per second for
   POLL_SECONDS: requests/s served, median / p99 latency, errors, and the delay to see one change.

Needs PostgreSQL and Redis (the server's workers share versions through Redis):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/pages REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python bench/live.py [--clients 1000] [--workers 2] [--changes 6] [--poll-seconds 10]
Bounded: at most 5,000 clients, every phase under a time limit, the server stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
MAX_CLIENTS = 5000
STATUS = re.compile(rb'"round":(\d+|null),"round_status":"?(\w+)"?')


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def ms(value: float) -> str:
    return f"{value * 1000:.1f} ms"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def setup_django():
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
    import django

    django.setup()
    from django.conf import settings

    # The bench makes a change every 1.5 s (draw, start, close, draw...): no pause between rounds here.
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0


SERVER_LOG = ROOT / "var" / "bench-live-server.log"


def start_server(port: int, workers: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": HOST,
        "DJANGO_SETTINGS_MODULE": "arbiter.settings.base",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "arbiter.asgi:application", "--host", HOST, "--port", str(port),
         "--workers", str(workers), "--no-access-log", "--log-level", "warning", "--backlog", "4096"],
        cwd=ROOT, env=env, stdout=SERVER_LOG.open("w"), stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=2):
                return server
        except urllib.error.HTTPError:
            # It answers: 503 only says no Celery worker beats, and this bench starts none (it needs none).
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("the server did not start within 60 s")


def warm_up(port: int, game_id: int, workers: int) -> None:
    """First requests import the views and fill the caches in each worker: not what a phone waits for."""
    for _ in range(10 * workers):
        for path in (f"/games/{game_id}/live", f"/games/{game_id}/live?clock=1"):
            with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=30) as answer:
                answer.read()


def server_footprint(server: subprocess.Popen) -> str:
    """Resident memory and threads of the server's processes (the master and its workers)."""
    pids = [server.pid]
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    rss = threads = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads += int(line.split()[1])
        except FileNotFoundError:
            pass
    return f"{len(pids)} processes, {rss / 1024:.0f} MB resident, {threads} threads"


# ---- server-sent events -------------------------------------------------------------------------------


class StreamClient:
    """One phone holding /games/<id>/events; notes when each (round, status) first arrives."""

    def __init__(self, port: int, game_id: int):
        self.port, self.game_id = port, game_id
        self.opened = self.first_event = None
        self.seen: dict[tuple, float] = {}
        self.events = 0
        self.error: str | None = None

    async def run(self, ready: asyncio.Event, stop: asyncio.Event):
        try:
            self.opened = time.time()
            reader, writer = await asyncio.open_connection(HOST, self.port)
            writer.write(
                f"GET /games/{self.game_id}/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n"
                .encode()
            )
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
            chunked = b"chunked" in head.lower()
            buffer = b""
            reading = asyncio.ensure_future(self._read(reader, chunked))
            stopping = asyncio.ensure_future(stop.wait())
            while True:
                done, _ = await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping in done:
                    reading.cancel()
                    break
                data = reading.result()
                if not data:
                    break
                buffer += data
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    match = STATUS.search(event)
                    if match:
                        self.events += 1
                        now = time.time()
                        key = (match.group(1).decode(), match.group(2).decode())
                        self.seen.setdefault(key, now)
                        if self.first_event is None:
                            self.first_event = now
                            ready.set()
                reading = asyncio.ensure_future(self._read(reader, chunked))
            writer.close()
        except Exception as exc:  # counted and reported, never hidden
            self.error = f"{type(exc).__name__}: {exc}"
            ready.set()

    @staticmethod
    async def _read(reader, chunked: bool) -> bytes:
        if not chunked:
            return await reader.read(65536)
        size = int((await reader.readline()).strip() or b"0", 16)
        if size == 0:
            return b""
        data = await reader.readexactly(size + 2)
        return data[:-2]


def hand_in_slips(round_, players) -> tuple[int, float]:
    from tournaments.services import slip_submit

    started = time.monotonic()
    for i, player in enumerate(players):
        slip_submit(round=round_, player=player, word="AE" if i % 2 else "EA", ref="H8", score=2, key=f"bench-{i}")
    return len(players), time.monotonic() - started


def register_players(game, count: int) -> list:
    from tournaments.services import player_register

    return [player_register(game=game, name=f"Player {i + 1}", table=i + 1)[0] for i in range(count)]


def snapshot_cost(game_id: int) -> tuple[float, float]:
    """Seconds to build the snapshot: with the standings computed (after a close), and with the standings
    from the cache (while slips arrive)."""
    from django.core.cache import cache

    from tournaments.live import snapshot as live
    from tournaments.live.snapshot import build_snapshot
    from tournaments.models import Game

    game = Game.objects.select_related("tournament").get(pk=game_id)
    cold = []
    for _ in range(3):
        cache.delete(live.live_key(game_id, "scores", live._scores_signature(game)))
        started = time.perf_counter()
        build_snapshot(game_id)
        cold.append(time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(5):
        build_snapshot(game_id)
    return statistics.median(cold), (time.perf_counter() - started) / 5


async def bench_streams(port: int, game, clients: int, changes: int, server, players: list) -> None:
    from tournaments.models import Round
    from tournaments.services import round_close, round_draw, round_start

    stop = asyncio.Event()
    phones = [StreamClient(port, game.pk) for _ in range(clients)]
    readies = [asyncio.Event() for _ in phones]
    started = time.time()
    tasks = [asyncio.ensure_future(phone.run(ready, stop)) for phone, ready in zip(phones, readies, strict=True)]
    await asyncio.wait_for(asyncio.gather(*(ready.wait() for ready in readies)), 120)
    connected = time.time() - started
    opened = [p.first_event - p.opened for p in phones if p.first_event]
    errors = [p.error for p in phones if p.error]
    print(f"streams opened: {len(opened)}/{clients} in {connected:.2f} s ({len(opened) / connected:.0f} connections/s)")
    print(f"  open to first event: median {ms(statistics.median(opened))}, p99 {ms(percentile(opened, 0.99))}, "
          f"max {ms(max(opened))}")
    if errors:
        print(f"  errors: {len(errors)} (first: {errors[0]})")

    made = []
    storms = []

    def change(step: int):
        round_ = Round.objects.filter(game=game).order_by("-number").first()
        if round_ is None or round_.status == Round.Status.CLOSED:
            round_ = round_draw(game=game)
        elif round_.status == Round.Status.DRAWN:
            round_ = round_start(round=round_)
        else:
            round_close(round=round_)
            round_.refresh_from_db()
        return round_, (str(round_.number), round_.status), time.time()

    for step in range(changes):
        await asyncio.sleep(1.5)
        round_, key, at = await asyncio.to_thread(change, step)
        made.append((key, at))
        if round_.status == Round.Status.OPEN and players:
            # Every player hands in a slip: each one changes the game's version (the arbitrator's slip
            # count), none changes what a phone shows.
            storms.append(await asyncio.to_thread(hand_in_slips, round_, players))
    await asyncio.sleep(2.0)
    delays, missed = [], 0
    for key, at in made:
        for phone in phones:
            if phone.error:
                continue
            if key in phone.seen:
                delays.append(phone.seen[key] - at)
            else:
                missed += 1
    for count, seconds in storms:
        print(f"slips handed in while the phones listened: {count} in {seconds:.1f} s ({count / seconds:.0f}/s)")
    events = [p.events for p in phones if not p.error]
    print(f"  events per phone: median {statistics.median(events):.0f}, max {max(events)} "
          f"(1 on opening + {len(made)} changes; slip counts are not sent to phones)")
    print(f"changes: {len(made)} ({', '.join(f'round {k[0]} {k[1]}' for k, _ in made)})")
    print(f"  commit to phone: median {ms(statistics.median(delays))}, p99 {ms(percentile(delays, 0.99))}, "
          f"max {ms(max(delays))}; {len(delays)} deliveries, {missed} missed")
    print(f"  server while holding the streams: {server_footprint(server)}")
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


# ---- polling ----------------------------------------------------------------------------------------


async def poll_client(port: int, game_id: int, until: float, results: dict, seen: dict, index: int):
    reader = writer = None
    await asyncio.sleep(random.random())  # phones do not poll in step
    next_at = time.monotonic()
    while time.monotonic() < until:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(HOST, port)
            sent = time.time()
            writer.write(f"GET /games/{game_id}/live HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
            body = await asyncio.wait_for(reader.readexactly(length), 30)
            done = time.time()
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                results["errors"] += 1
            else:
                results["latency"].append(done - sent)
                match = STATUS.search(body)
                if match:
                    seen.setdefault((index, match.group(1).decode(), match.group(2).decode()), done)
        except Exception:
            results["errors"] += 1
            if writer is not None:
                writer.close()
            reader = writer = None
        next_at += 1.0
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    if writer is not None:
        writer.close()


async def bench_polling(port: int, game, clients: int, seconds: float) -> None:
    from tournaments.models import Round
    from tournaments.services import round_draw, round_start

    results = {"latency": [], "errors": 0}
    seen: dict = {}
    started = time.monotonic()
    until = started + seconds
    tasks = [asyncio.ensure_future(poll_client(port, game.pk, until, results, seen, i)) for i in range(clients)]

    def change():
        round_ = Round.objects.filter(game=game).order_by("-number").first()
        if round_ is not None and round_.status == Round.Status.DRAWN:
            round_ = round_start(round=round_)
        else:
            round_ = round_draw(game=game)
        return (str(round_.number), round_.status), time.time()

    await asyncio.sleep(seconds / 2)
    key, at = await asyncio.to_thread(change)
    await asyncio.wait_for(asyncio.gather(*tasks), seconds + 60)
    elapsed = time.monotonic() - started
    latency = results["latency"]
    delays = [t - at for (i, number, status), t in seen.items() if (number, status) == key]
    print(f"polling: {clients} clients x 1 request/s for {seconds:.0f} s: {len(latency) / elapsed:.0f} requests/s "
          f"served, {results['errors']} errors")
    print(f"  latency: median {ms(statistics.median(latency))}, p99 {ms(percentile(latency, 0.99))}, "
          f"max {ms(max(latency))}")
    if delays:
        print(f"  change to client: median {ms(statistics.median(delays))}, p99 {ms(percentile(delays, 0.99))}, "
              f"max {ms(max(delays))} ({len(delays)}/{clients} clients saw it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--changes", type=int, default=6)
    parser.add_argument("--players", type=int, default=None, help="players registered (default: --clients)")
    parser.add_argument("--poll-seconds", type=float, default=10.0)
    parser.add_argument("--skip-polling", action="store_true")
    parser.add_argument("--skip-streams", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.clients <= MAX_CLIENTS:
        raise SystemExit(f"--clients must be 1..{MAX_CLIENTS}")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, args.clients * 3 + 200))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if wanted < args.clients * 2 + 100:
        raise SystemExit(f"open files limited to {wanted}: too few for {args.clients} clients")

    setup_django()
    from django.conf import settings

    from tournaments.services import game_create, tournament_create

    if "redis" not in settings.CACHES["default"]["BACKEND"].lower():
        raise SystemExit("set REDIS_URL: the server's workers share game versions through Redis")
    tournament = tournament_create(name=f"Bench {time.strftime('%H:%M:%S')}", round_seconds=600)
    game = game_create(tournament=tournament, seed=1)
    players_wanted = args.clients if args.players is None else args.players
    if not 0 <= players_wanted <= MAX_CLIENTS:
        raise SystemExit(f"--players must be 0..{MAX_CLIENTS}")
    started = time.monotonic()
    players = register_players(game, players_wanted)
    print(f"{len(players)} players registered in {time.monotonic() - started:.1f} s")
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server(port, args.workers)
    warm_up(port, game.pk, args.workers)
    print(f"uvicorn, {args.workers} worker(s), on {HOST}:{port}; game {game.pk}; {args.clients} clients; "
          f"{os.cpu_count()} CPUs shared by the server and the clients; load average {os.getloadavg()[0]:.1f}")
    try:
        if not args.skip_streams:
            asyncio.run(asyncio.wait_for(bench_streams(port, game, args.clients, args.changes, server, players), 600))
            cold, warm = snapshot_cost(game.pk)
            print(f"  one snapshot build with {len(players)} players and "
                  f"{game.rounds.filter(status='closed').count()} closed rounds: {ms(cold)} after a close, "
                  f"{ms(warm)} while slips arrive")
            time.sleep(2)
            print(f"  server 2 s after the phones left: {server_footprint(server)}")
        if not args.skip_polling:
            asyncio.run(asyncio.wait_for(bench_polling(port, game, args.clients, args.poll_seconds),
                                         args.poll_seconds + 120))
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        errors = SERVER_LOG.read_text(errors="replace").count("Traceback")
        print(f"server errors logged: {errors} (log: {SERVER_LOG.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
