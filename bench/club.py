"""A club evening on one laptop: 60 phones play a round against `make run`'s own server, on 127.0.0.1 only.

Starts `manage.py rundemo` (what `make run` and `arbiter run` run: the web server in its own process and a
Celery worker of threads with the beat in a thread) on the embedded
default: DATABASE_URL and REDIS_URL unset, so SQLite and the filesystem broker, in a fresh DATA_DIR in a
temporary folder. Then, through HTTP only, as the arbitrator and the phones would:

1. the arbitrator gets a token (POST /api/auth/token, the demo login), creates a tournament with 40-second
   rounds and a game;
2. PHONES phones join with the game's code (POST /api/join) and each holds a live stream
   (/games/<id>/events, server-sent events; reopened after a second if it drops, as a browser does);
3. the arbitrator draws a rack and starts the round; the bench finds the rack's tops with the engine;
4. each phone hands in one slip at a random moment in the last 30 s of the round (up to half a second
   before the end), retrying with the same key and ``seq`` on any failure (no answer, 5xx, 429):
   a top with its right score, another valid play with its right score, a wrong score, or a word that is
   not in the word list, in turn;
5. the round closes by itself at its deadline (the worker's clock); the bench watches /api/games/<id>/live
   and the streams, then reads the round's results as the arbitrator.

Prints: slips accepted; lost (accepted, but no judged result for that slip after the close); answers
5xx and 409; p50/p99 of a slip's latency (first try to answer); the results' delay (deadline to the round
closed on /live and in the streams); how many streams were told of the close; whether each result is the
engine's own judgement of the slip.

    .venv/bin/python bench/club.py [--phones 60] [--round-seconds 40] [--last-seconds 30]

(``--last-seconds 5``: the whole hall hands in during the round's last five seconds.)

Bounded: at most 300 phones, every phase under a time limit, the server's process group stopped at the
end. Only 127.0.0.1 is contacted. The server's output goes to var/bench-club-server.log.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from itertools import permutations
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
MAX_PHONES = 300
LAST_SECONDS = 30.0  # the phones hand in their slips during the round's last 30 s (--last-seconds) ...
MARGIN = 0.5  # ... and at least this long before its end
SERVER_LOG = ROOT / "var" / "bench-club-server.log"
DEMO_USERNAME, DEMO_PASSWORD = "arbitre", "duplicate"  # tournaments/demo.py


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def ms(value: float) -> str:
    return f"{value * 1000:.0f} ms"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# ---- the server: make run's own ------------------------------------------------------------------------


def start_server(port: int, data_dir: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "PUBLIC_URL")}
    env.update(DATA_DIR=str(data_dir), DJANGO_SETTINGS_MODULE="arbiter.settings.dev", DEBUG="1",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    SERVER_LOG.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "manage.py", "rundemo", "--host", HOST, "--port", str(port)],
        cwd=ROOT, env=env, stdout=SERVER_LOG.open("w"), stderr=subprocess.STDOUT, start_new_session=True,
    )


def wait_running(server: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped ({server.returncode}): see {SERVER_LOG.relative_to(ROOT)}")
        if re.search(r"running at http://", SERVER_LOG.read_text(errors="replace")):
            return
        time.sleep(0.2)
    raise SystemExit(f"the server did not start within {timeout:.0f} s")


def stop_server(server: subprocess.Popen) -> None:
    """Ctrl-C to the whole group (rundemo serving the pages, the worker), as a terminal would; then SIGKILL."""
    try:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(timeout=30)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


# ---- HTTP on raw asyncio streams ------------------------------------------------------------------------


class Counts:
    def __init__(self):
        self.by_status: dict[int, int] = {}
        self.no_answer = 0

    def add(self, status: int):
        self.by_status[status] = self.by_status.get(status, 0) + 1

    def count(self, test) -> int:
        return sum(n for status, n in self.by_status.items() if test(status))


async def http(port: int, method: str, path: str, body: dict | None = None, token: str = "",
               scheme: str = "Bearer", counts: Counts | None = None, timeout: float = 15.0) -> tuple[int, dict]:
    """One request on its own connection; (status, JSON body). Raises on no answer (counted)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
    except OSError:  # refused, reset or timed out
        if counts is not None:
            counts.no_answer += 1
        raise
    try:
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close", "Accept: application/json",
                f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: {scheme} {token}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        raw = await asyncio.wait_for(reader.read(), timeout)
    except OSError:  # refused, reset or timed out
        if counts is not None:
            counts.no_answer += 1
        raise
    finally:
        writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    if not header:
        if counts is not None:
            counts.no_answer += 1
        raise ConnectionError("empty answer")
    status = int(header.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in header.lower():
        payload = _unchunk(payload)
    if counts is not None:
        counts.add(status)
    try:
        return status, json.loads(payload) if payload else {}
    except ValueError:
        return status, {"raw": payload[:200].decode(errors="replace")}


def _unchunk(payload: bytes) -> bytes:
    out = b""
    while payload:
        size_line, _, payload = payload.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, payload = out + payload[:size], payload[size + 2:]
    return out


# ---- the phones ---------------------------------------------------------------------------------------


class Phone:
    def __init__(self, index: int):
        self.index = index
        self.name = f"Phone {index + 1:02d}"
        self.token = self.player = None
        self.slip: dict | None = None
        self.kind = ""
        self.first_try = self.answered = None
        self.tries = 0
        self.outcome: str = ""  # "accepted", "409 <code>", "4xx <code>", "gave up"
        self.accepted: dict | None = None
        # The stream:
        self.stream_opened = asyncio.Event()
        self.stream_errors: list[str] = []
        self.reconnects = 0
        self.told_closed_at: float | None = None


async def follow(port: int, game_id: int, phone: Phone, round_number_box: list, stop: asyncio.Event):
    """Hold /games/<id>/events like EventSource: reopen a second after any drop, until ``stop``."""
    while not stop.is_set():
        writer = None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 10)
            writer.write(f"GET /games/{game_id}/events HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                         f"Accept: text/event-stream\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
            status_line = head.split(b"\r\n", 1)[0].decode()
            if " 200 " not in status_line + " ":
                raise ConnectionError(status_line)
            chunked = b"chunked" in head.lower()
            buffer = b""
            while not stop.is_set():
                reading = asyncio.ensure_future(_read_chunk(reader, chunked))
                stopping = asyncio.ensure_future(stop.wait())
                done, _ = await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping in done:
                    reading.cancel()
                    return
                stopping.cancel()
                data = reading.result()
                if not data:
                    raise ConnectionError("stream ended")
                buffer += data
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    _note_event(phone, event, round_number_box)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # counted and reported, then reopened as a browser would
            phone.stream_errors.append(f"{type(exc).__name__}: {exc}")
            phone.reconnects += 1
            await asyncio.sleep(1.0)
        finally:
            if writer is not None:
                writer.close()


def _note_event(phone: Phone, event: bytes, round_number_box: list):
    data = b"".join(line[5:].strip() for line in event.split(b"\n") if line.startswith(b"data:"))
    if not data:
        return
    try:
        state = json.loads(data)
    except ValueError:
        return
    phone.stream_opened.set()
    number = round_number_box[0] if round_number_box else None
    if (number is not None and phone.told_closed_at is None and state.get("round") == number
            and state.get("round_status") == "closed"):
        phone.told_closed_at = time.time()


async def _read_chunk(reader, chunked: bool) -> bytes:
    if not chunked:
        return await reader.read(65536)
    size = int((await reader.readline()).strip() or b"0", 16)
    if size == 0:
        return b""
    data = await reader.readexactly(size + 2)
    return data[:-2]


async def hand_in(port: int, game_id: int, number: int, phone: Phone, at: float, give_up: float, counts: Counts):
    """One slip at ``at`` (epoch seconds); the same key and seq on every retry, until a final answer."""
    await asyncio.sleep(max(0.0, at - time.time()))
    key = f"club-{uuid.uuid4().hex}"
    seq = int(time.time() * 1000)
    body = {**phone.slip, "key": key, "seq": seq}
    phone.first_try = time.time()
    pause = 0.2
    while time.time() < give_up:
        phone.tries += 1
        try:
            status, answer = await http(port, "POST", f"/api/games/{game_id}/rounds/{number}/slips", body,
                                        token=phone.token, counts=counts, timeout=10)
        except (OSError, ValueError):  # no answer (timeouts and resets are OSErrors too)
            status, answer = None, {}
        if status in (200, 201):
            phone.answered, phone.outcome, phone.accepted = time.time(), "accepted", answer
            return
        if status is not None and status < 500 and status != 429:
            phone.answered = time.time()
            code = (answer.get("error") or {}).get("code", "?")
            phone.outcome = f"{status} {code}"
            return
        await asyncio.sleep(pause)
        pause = min(2.0, pause * 2)
    phone.outcome = "gave up"


# ---- the slips: found with the engine ------------------------------------------------------------------


def plan_slips(rack: str, phones: list[Phone], coordinates: str, seed: int) -> dict:
    """Give each phone its slip, in turn: a top (right score), another valid play (right score), a wrong
    score, an invalid word. Returns the engine's judgement of every slip, to compare with the server's."""
    from engine.board import Board
    from engine.checking import PlayError, check_play
    from engine.judging import Slip, judge_slip
    from engine.lexicon import load_lexicon
    from engine.notation import format_ref
    from engine.rules import rules_preset
    from engine.search import find_tops, generate_plays
    from engine.tiles import load_tileset

    cache_dir = Path(os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    lexicon = load_lexicon("TWL06", cache_dir=cache_dir)
    tiles, rules, board = load_tileset("english"), rules_preset("fisf"), Board.empty()
    tops = find_tops(board, rack, lexicon, tiles, rules)
    plays = generate_plays(board, rack, lexicon, tiles, rules)
    others = [p for p in plays if tops.score is None or p.score < tops.score]
    rng = random.Random(seed)

    def slip_of(play, score):
        return {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, coordinates), "score": score}

    invalid = None
    letters = [ch for ch in rack if ch != "?"]
    for length in (4, 3, 5, 2):
        for word in permutations(letters, length):
            word = "".join(word)
            if word.lower() in lexicon:
                continue
            try:
                check_play(board, rack, word, 7, 7, True, lexicon, tiles, rules)
            except PlayError as error:
                if error.reason == "invalid_word":
                    invalid = {"word": word, "ref": format_ref(7, 7, True, coordinates), "score": 20}
                    break
        if invalid:
            break

    kinds = ["top", "other", "wrong score", "invalid word"]
    expected = {}
    for phone in phones:
        kind = kinds[phone.index % len(kinds)]
        if not plays:
            kind = "invalid word"
        if kind == "top":
            slip = slip_of(rng.choice(tops.plays), tops.score)
        elif kind == "other" and others:
            play = rng.choice(others)
            slip = slip_of(play, play.score)
        elif kind == "wrong score" or (kind == "other" and not others):
            kind = "wrong score"
            play = rng.choice(plays)
            slip = slip_of(play, play.score + rng.choice((2, 3, 10)))
        else:
            slip = dict(invalid or {"word": "QXZ", "ref": format_ref(7, 7, True, coordinates), "score": 10})
        phone.slip, phone.kind = slip, kind
        judgement = judge_slip(board, rack, 1, Slip(slip["word"], slip["ref"], slip["score"]), lexicon, tiles,
                               rules, labelling=coordinates)
        expected[phone.index] = (judgement.paid, judgement.reason)
    return {"top_score": tops.score, "tops": len(tops.plays), "plays": len(plays), "expected": expected}


# ---- the evening --------------------------------------------------------------------------------------


async def evening(port: int, phones_wanted: int, round_seconds: int, last_seconds: float) -> None:
    counts = Counts()  # every answer the phones and the arbitrator got
    t0 = time.monotonic()

    async def phase(name: str, coroutine, limit: float):
        try:
            return await asyncio.wait_for(coroutine, limit)
        except TimeoutError:
            raise SystemExit(f"phase '{name}' did not finish within {limit:.0f} s") from None

    status, answer = await http(port, "POST", "/api/auth/token",
                                {"username": DEMO_USERNAME, "password": DEMO_PASSWORD}, counts=counts)
    assert status == 200, (status, answer)
    arbitrator = answer["token"]

    async def as_arbitrator(method, path, body=None):
        status, answer = await http(port, method, path, body, token=arbitrator, scheme="Token", counts=counts,
                                    timeout=30)
        if status >= 300:
            raise SystemExit(f"{method} {path}: {status} {answer}")
        return answer

    tournament = await as_arbitrator("POST", "/api/tournaments",
                                     {"name": f"Club evening {time.strftime('%H:%M:%S')}", "round_seconds": round_seconds})
    game = await as_arbitrator("POST", f"/api/tournaments/{tournament['id']}/games", {})
    game_id, code = game["id"], game["join_code"]
    print(f"tournament {tournament['id']} ({round_seconds} s rounds, {tournament.get('lexicon', 'TWL06')}), "
          f"game {game_id}")

    # Phones join, all at once (the hall scans the projector's QR code together).
    phones = [Phone(i) for i in range(phones_wanted)]
    join_times = []

    async def join(phone: Phone):
        started = time.monotonic()
        for _ in range(5):
            try:
                status, answer = await http(port, "POST", "/api/join", {"join_code": code, "name": phone.name},
                                            counts=counts)
            except OSError:
                await asyncio.sleep(0.5)
                continue
            if status == 201:
                phone.token, phone.player = answer["token"], answer["id"]
                join_times.append(time.monotonic() - started)
                return
            if status < 500 and status != 429:
                raise SystemExit(f"join refused: {status} {answer}")
            await asyncio.sleep(0.5)

    await phase("joins", asyncio.gather(*(join(p) for p in phones)), 90)
    joined = [p for p in phones if p.token]
    print(f"joins: {len(joined)}/{len(phones)} phones, p50 {ms(statistics.median(join_times))}, "
          f"p99 {ms(percentile(join_times, 0.99))}")

    # Each phone holds its live stream.
    stop = asyncio.Event()
    round_box: list = []
    streams = [asyncio.ensure_future(follow(port, game_id, p, round_box, stop)) for p in joined]
    started = time.monotonic()
    await phase("streams", asyncio.gather(*(p.stream_opened.wait() for p in joined)), 60)
    print(f"streams: {len(joined)} open in {time.monotonic() - started:.1f} s")

    try:
        # The arbitrator draws and starts the round; the bench finds the tops with the engine meanwhile.
        drawn = await as_arbitrator("POST", f"/api/games/{game_id}/rounds", {})
        number, rack = drawn["number"], drawn["rack"]
        round_box.append(number)
        started_round = await as_arbitrator("POST", f"/api/games/{game_id}/rounds/{number}/start", {})
        deadline = datetime.fromisoformat(started_round["deadline"]).timestamp()
        planned = await phase("tops", asyncio.to_thread(plan_slips, rack, joined, tournament.get(
            "coordinates", "rows-letters"), game_id), max(5.0, deadline - time.time() - last_seconds))
        kinds = {}
        for p in joined:
            kinds[p.kind] = kinds.get(p.kind, 0) + 1
        print(f"round {number}: rack {rack}, {planned['plays']} valid plays, top {planned['top_score']} "
              f"({planned['tops']} play(s)); closes in {deadline - time.time():.1f} s")
        window = min(last_seconds, round_seconds - 1.0)
        print("  slips: " + ", ".join(f"{n} {kind}" for kind, n in kinds.items())
              + f"; each at a random moment in the last {window:.0f} s")

        moments = {p.index: deadline - MARGIN - random.random() * (window - MARGIN) for p in joined}
        slips_counts = Counts()
        senders = asyncio.gather(*(hand_in(port, game_id, number, p, moments[p.index], deadline + 15, slips_counts)
                                   for p in joined))

        # Watch /live from a second before the deadline: when is the round closed?
        async def watch_close() -> float:
            await asyncio.sleep(max(0.0, deadline - 1.0 - time.time()))
            while True:
                try:
                    status, live = await http(port, "GET", f"/api/games/{game_id}/live", counts=counts)
                    if status == 200 and live.get("round") == number and live.get("round_status") == "closed":
                        return time.time()
                except OSError:
                    pass
                await asyncio.sleep(0.1)

        closed_at = await phase("round", asyncio.gather(senders, watch_close()), round_seconds + 90)
        closed_at = closed_at[1]
        await phase("streams told", _until(lambda: all(p.told_closed_at for p in joined)), 15)
    except SystemExit as exc:
        print(exc)
        closed_at = None
    finally:
        stop.set()
        _, hanging = await asyncio.wait(streams, timeout=15)
        for stream in hanging:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)

    if closed_at is None:
        return
    detail = await as_arbitrator("GET", f"/api/games/{game_id}/rounds/{number}")
    results = {row["player"]: row for row in detail.get("results") or []}

    accepted = [p for p in joined if p.outcome == "accepted"]
    lost = [p for p in accepted if p.player not in results or results[p.player]["reason"] == "no_slip"
            or results[p.player]["word"] != p.accepted["word"]]
    as_engine = [p for p in accepted if p.player in results
                 and (results[p.player]["paid"], results[p.player]["reason"]) == planned["expected"][p.index]]
    refused = [p for p in joined if p.outcome.startswith("409")]
    latencies = [p.answered - p.first_try for p in joined if p.answered]
    retried = sum(1 for p in joined if p.tries > 1)
    told = [p.told_closed_at - deadline for p in joined if p.told_closed_at]
    reconnects = sum(p.reconnects for p in joined)
    errors = [e for p in joined for e in p.stream_errors]

    print(f"slips accepted: {len(accepted)}/{len(joined)}; lost: {len(lost)}; "
          f"judged as the engine judges them: {len(as_engine)}/{len(accepted)}")
    other = sorted({p.outcome for p in joined if p.outcome != "accepted"})
    if other:
        print("  not accepted: " + ", ".join(f"{sum(1 for p in joined if p.outcome == o)} {o}" for o in other))
    print(f"slip answers: {slips_counts.count(lambda s: s < 300)} 2xx, {slips_counts.count(lambda s: s >= 500)} 5xx, "
          f"{slips_counts.count(lambda s: s == 409)} 409, {slips_counts.count(lambda s: s == 429)} 429, "
          f"{slips_counts.no_answer} without an answer; {retried} phone(s) retried")
    print(f"slip latency (first try to answer): p50 {ms(percentile(latencies, 0.5))}, "
          f"p99 {ms(percentile(latencies, 0.99))}, max {ms(max(latencies))}")
    print(f"results: deadline -> round closed on /live: {closed_at - deadline:.2f} s; "
          f"deadline -> streams told: p50 {percentile(told, 0.5):.2f} s, max {max(told):.2f} s" if told else
          f"results: deadline -> round closed on /live: {closed_at - deadline:.2f} s; no stream told")
    print(f"streams told of the close: {len(told)}/{len(joined)}; reopened {reconnects} time(s)"
          + (f" (first: {errors[0]})" if errors else ""))
    all5xx = counts.count(lambda s: s >= 500) + slips_counts.count(lambda s: s >= 500)
    print(f"every request: {sum(counts.by_status.values()) + sum(slips_counts.by_status.values())} answered, "
          f"{all5xx} 5xx, {len(refused)} phone(s) refused with 409; {time.monotonic() - t0:.0f} s in all")
    if lost or all5xx:
        print("A LAPTOP DID NOT HOLD THE CLUB: " + ", ".join(f"{p.name} {p.kind}" for p in lost[:10]))


async def _until(predicate, step: float = 0.1):
    while not predicate():
        await asyncio.sleep(step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phones", type=int, default=60)
    parser.add_argument("--round-seconds", type=int, default=40)
    parser.add_argument("--last-seconds", type=float, default=LAST_SECONDS,
                        help="the slips arrive at random moments in the round's last N seconds")
    args = parser.parse_args()
    if not 1 <= args.phones <= MAX_PHONES:
        raise SystemExit(f"--phones must be 1..{MAX_PHONES}")
    if not 1 <= args.last_seconds <= 300:
        raise SystemExit("--last-seconds must be 1..300")
    if not args.last_seconds + 5 <= args.round_seconds <= 600:
        raise SystemExit(f"--round-seconds must be {args.last_seconds + 5:.0f}..600")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="arbiter-club-") as folder:
        server = start_server(port, Path(folder) / "data")
        try:
            started = time.monotonic()
            wait_running(server)
            print(f"make run's server (rundemo: uvicorn in-process + a Celery worker of threads, SQLite + filesystem broker) on "
                  f"{HOST}:{port}, up in {time.monotonic() - started:.1f} s; {args.phones} phones; "
                  f"{os.cpu_count()} CPUs shared by the server and the phones; load average {os.getloadavg()[0]:.1f}")
            asyncio.run(asyncio.wait_for(evening(port, args.phones, args.round_seconds, args.last_seconds),
                                         args.round_seconds + 400))
            print(f"load average at the end: {os.getloadavg()[0]:.1f}")
        finally:
            stop_server(server)
            log = SERVER_LOG.read_text(errors="replace")
            print(f"server errors logged: {log.count('Traceback')} (log: {SERVER_LOG.relative_to(ROOT)}); "
                  f"server stopped ({server.returncode})")


if __name__ == "__main__":
    main()
