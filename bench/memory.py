"""A light laptop: the resident memory of `make run`'s whole stack on the embedded default, after a round in a
hall of phones.

Starts the launcher (``python -m arbiter run``, what `make run` and an installed ``arbiter run`` run) on a
free port of 127.0.0.1 with DATABASE_URL and REDIS_URL unset (SQLite and the filesystem broker) in a fresh
DATA_DIR, plays one round through the HTTP API (.ci/play_round.py: two phones join, a rack drawn, the round
started, two slips, the round closed once its tops are found, the results checked), then a round in a hall
of ``--phones`` phones (60): each joins, holds the game's live stream (/games/<id>/events) open and hands
in a slip (the top, found here with the engine); the round closed once its tops are found. Two seconds
later, the streams still open, it reads every process of the launcher's tree from /proc (Linux only) and
stops it with Ctrl-C (SIGINT).

Prints, per run, each process (its command, RSS, PSS) and what its RSS holds: LLVM (libllvmlite, the
compiled search's compiler), the other files mapped (the interpreter, the extension modules' libraries) and
the anonymous memory (Python's objects: the modules, the word lists, the requests); then the medians over
the runs. RSS counts a shared library in every process that maps it, and a library's pages already in the
page cache are mapped on the first touch of their neighbours (so LLVM's RSS depends on what ran before:
69 MiB after a cold load, up to 92 once a compile had read it whole); PSS shares the pages out between the
processes. The target: 300 MiB RSS summed.

    .venv/bin/python bench/memory.py [--runs 3] [--phones 60] [--command "/path/venv/bin/arbiter run"]

``--command``: another launcher to measure (``--host``/``--port`` appended), e.g. an installed ``arbiter run``
from an empty folder (``--cwd``), or an older revision's in a worktree. Bounded: at most 10 runs and 200
phones, each phase under a time limit; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def memory(pid: int) -> tuple[str, float, float, dict]:
    """The process's command, RSS and PSS in MiB, and what its RSS holds: {"LLVM", "other files",
    "anonymous"} in MiB (from /proc/PID/smaps)."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    rss = int(re.search(r"^Rss:\s+(\d+) kB", rollup, re.M).group(1)) / 1024
    pss = int(re.search(r"^Pss:\s+(\d+) kB", rollup, re.M).group(1)) / 1024
    parts = {"LLVM": 0.0, "other files": 0.0, "anonymous": 0.0}
    part = "anonymous"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            fields = line.split(None, 5)
            name = fields[5] if len(fields) > 5 else ""
            part = ("LLVM" if "llvmlite" in name else "anonymous" if not name.startswith("/") else "other files")
        elif line.startswith("Rss:"):
            parts[part] += int(line.split()[1]) / 1024
    return command, rss, pss, parts


def call(base: str, method: str, path: str, body=None, token: str = "", scheme: str = "Bearer") -> dict:
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"{scheme} {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = response.read()
    return json.loads(raw) if raw else {}


def open_stream(port: int, game_id: int) -> socket.socket:
    """A phone's live stream of the game, open once its first event arrived."""
    stream = socket.create_connection((HOST, port), timeout=30)
    stream.sendall(f"GET /games/{game_id}/events HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                   "Accept: text/event-stream\r\n\r\n".encode())
    received = b""
    deadline = time.monotonic() + 30
    while b"event:" not in received and time.monotonic() < deadline:
        chunk = stream.recv(65536)
        if not chunk:
            break
        received += chunk
    if not received.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"a phone's stream was refused: {received[:300]!r}")
    return stream


def hall_round(port: int, username: str, password: str, phones: int, lexicon_cache: str) -> tuple[str, list]:
    """A round in a hall of ``phones`` phones, each holding the game's stream and handing in the top; the
    streams, still open, are returned with what happened."""
    # bench/engine.py would stand for the engine package: this folder leaves the path, .ci/ comes in.
    sys.path[:] = [str(ROOT / ".ci")] + [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    from play_round import top_slip

    base = f"http://{HOST}:{port}"
    token = call(base, "POST", "/api/auth/token", {"username": username, "password": password})["token"]

    def arbitrator(method, path, body=None):
        return call(base, method, path, body, token=token, scheme="Token")

    tournament = arbitrator("POST", "/api/tournaments", {"name": "Hall", "round_seconds": 120})
    game = arbitrator("POST", f"/api/tournaments/{tournament['id']}/games", {})
    joined = [call(base, "POST", "/api/join", {"join_code": game["join_code"], "name": f"Phone {n}"})
              for n in range(1, phones + 1)]
    streams = [open_stream(port, game["id"]) for _ in joined]
    for _ in range(5):  # a rack with no play is drawn again
        drawn = arbitrator("POST", f"/api/games/{game['id']}/rounds", {})
        top = top_slip(drawn["rack"], tournament.get("coordinates", "rows-letters"), lexicon_cache)
        if top is not None:
            break
    number = drawn["number"]
    arbitrator("POST", f"/api/games/{game['id']}/rounds/{number}/start", {})
    for phone in joined:
        call(base, "POST", f"/api/games/{game['id']}/rounds/{number}/slips",
             {**top, "key": uuid.uuid4().hex, "seq": 1}, token=phone["token"])
    deadline = time.monotonic() + 120
    while not arbitrator("GET", f"/api/games/{game['id']}/rounds/{number}").get("tops_ready"):
        if time.monotonic() > deadline:
            raise SystemExit("the hall's round had no tops within 120 s")
        time.sleep(0.2)
    arbitrator("POST", f"/api/games/{game['id']}/rounds/{number}/close", {})
    results = arbitrator("GET", f"/api/games/{game['id']}/rounds/{number}")["results"] or []
    paid = sum(1 for row in results if row["paid"] == top["score"])
    return f"hall of {phones} phones: rack {drawn['rack']}, {paid}/{phones} paid the top {top['score']}", streams


def one_run(command: list[str], cwd: Path, lexicon_cache: str, phones: int = 0) -> dict:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="arbiter-memory-") as scratch:
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "PUBLIC_URL")}
        env.update(DATA_DIR=str(Path(scratch) / "data"), LEXICON_CACHE_DIR=lexicon_cache)
        log_path = Path(scratch) / "server.log"
        with log_path.open("w") as log:
            server = subprocess.Popen([*command, "--host", HOST, "--port", str(port)], cwd=cwd, env=env,
                                      stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while "running at" not in log_path.read_text(errors="replace"):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the launcher did not start:\n{log_path.read_text(errors='replace')}")
                time.sleep(0.2)
            text = log_path.read_text(errors="replace")
            username = re.search(r"username '([^']+)'", text).group(1)
            password = re.search(r"password '([^']+)'", text).group(1)
            started = time.monotonic()
            played = subprocess.run(
                [sys.executable, str(ROOT / ".ci" / "play_round.py"), "--url", f"http://{HOST}:{port}",
                 "--username", username, "--password", password, "--lexicon-cache", lexicon_cache],
                cwd=tempfile.gettempdir(), capture_output=True, text=True, timeout=240)
            if played.returncode:
                raise SystemExit(f"the round failed: {played.stdout}{played.stderr}")
            round_seconds = time.monotonic() - started
            hall, streams = hall_round(port, username, password, phones, lexicon_cache) if phones else ("", [])
            time.sleep(2)
            processes = [memory(pid) for pid in tree(server.pid)]
            for stream in streams:
                stream.close()
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGINT)
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait(timeout=10)
    return {"processes": processes, "rss": sum(p[1] for p in processes), "pss": sum(p[2] for p in processes),
            "round": round_seconds, "played": played.stdout.strip(), "hall": hall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phones", type=int, default=60, help="the hall's phones, each holding a stream (0: none)")
    parser.add_argument("--command", default=f"{shlex.quote(sys.executable)} -m arbiter run",
                        help="the launcher to measure (default: the arbiter command of this checkout)")
    parser.add_argument("--cwd", default=str(ROOT), help="the folder the launcher is started from")
    args = parser.parse_args()
    runs = max(1, min(args.runs, 10))
    phones = max(0, min(args.phones, 200))
    lexicon_cache = os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache" / "arbiter" / "lexicons"))
    print(f"launcher: {args.command} (from {args.cwd}); embedded default; ARBITER_ENGINE="
          f"{os.environ.get('ARBITER_ENGINE', '(unset)')}; {runs} run(s); {os.cpu_count()} CPUs")
    results = []
    for number in range(1, runs + 1):
        result = one_run(shlex.split(args.command), Path(args.cwd), lexicon_cache, phones)
        results.append(result)
        print(f"run {number}: {result['played']}" + (f"; {result['hall']}" if result["hall"] else ""))
        for command, rss, pss, parts in result["processes"]:
            held = ", ".join(f"{name} {mib:.0f}" for name, mib in parts.items())
            print(f"  RSS {rss:6.0f} MiB  PSS {pss:6.0f} MiB  ({held})  {command[:90]}")
        print(f"  {len(result['processes'])} processes: RSS {result['rss']:.0f} MiB summed, "
              f"PSS {result['pss']:.0f} MiB summed; load average {os.getloadavg()[0]:.2f}")
    print(f"median over {runs} run(s): {statistics.median(len(r['processes']) for r in results):.0f} processes, "
          f"RSS {statistics.median(r['rss'] for r in results):.0f} MiB summed, "
          f"PSS {statistics.median(r['pss'] for r in results):.0f} MiB summed after a round with {phones} phones "
          f"(target: 300 MiB RSS)")


if __name__ == "__main__":
    main()
