"""A light laptop: the resident memory of `make run`'s whole stack on the embedded default, after a round.

Starts the launcher (``python -m arbiter run``, what `make run` and an installed ``arbiter run`` run) on a
free port of 127.0.0.1 with DATABASE_URL and REDIS_URL unset (SQLite and the filesystem broker) in a fresh
DATA_DIR, plays one round through the HTTP API (.ci/play_round.py: two phones join, a rack drawn, the round
started, two slips, the round closed once its tops are found, the results checked), waits two seconds, then
reads every process of the launcher's tree from /proc (Linux only) and stops it with Ctrl-C (SIGINT).

Prints, per run, each process (its command, RSS, PSS) and the sums; then the medians over the runs. RSS
counts a shared library in every process that maps it; PSS shares it out between them (what the processes
hold between them). The issue's figures (977 MiB for 7 processes) are RSS sums; the target is 400 MiB.

    .venv/bin/python bench/memory.py [--runs 3] [--command "python manage.py rundemo --no-demo"]

``--command``: another launcher to measure (run from the checkout, ``--host``/``--port`` appended), e.g. an
older revision's ``manage.py rundemo`` in a worktree (``--cwd``). Bounded: at most 10 runs, each phase under
a time limit; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
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


def memory(pid: int) -> tuple[str, float, float]:
    """The process's command, RSS and PSS in MiB."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    rss = int(re.search(r"^Rss:\s+(\d+) kB", rollup, re.M).group(1)) / 1024
    pss = int(re.search(r"^Pss:\s+(\d+) kB", rollup, re.M).group(1)) / 1024
    return command, rss, pss


def one_run(command: list[str], cwd: Path, lexicon_cache: str) -> dict:
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
            time.sleep(2)
            processes = [memory(pid) for pid in tree(server.pid)]
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGINT)
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait(timeout=10)
    return {"processes": processes, "rss": sum(p[1] for p in processes), "pss": sum(p[2] for p in processes),
            "round": round_seconds, "played": played.stdout.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command", default=f"{shlex.quote(sys.executable)} -m arbiter run --no-warm",
                        help="the launcher to measure (default: the arbiter command of this checkout)")
    parser.add_argument("--cwd", default=str(ROOT), help="the folder the launcher is started from")
    args = parser.parse_args()
    runs = max(1, min(args.runs, 10))
    lexicon_cache = os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache" / "arbiter" / "lexicons"))
    # The compiled search is compiled once per machine: `make run` does it before it serves (make warm).
    subprocess.run([sys.executable, "-m", "engine", "warm", "--lexicon-cache", lexicon_cache], cwd=tempfile.gettempdir(),
                   check=True, capture_output=True, timeout=300)
    print(f"launcher: {args.command} (from {args.cwd}); embedded default; {runs} run(s); {os.cpu_count()} CPUs")
    results = []
    for number in range(1, runs + 1):
        result = one_run(shlex.split(args.command), Path(args.cwd), lexicon_cache)
        results.append(result)
        print(f"run {number}: {result['played']}")
        for command, rss, pss in result["processes"]:
            print(f"  RSS {rss:6.0f} MiB  PSS {pss:6.0f} MiB  {command[:110]}")
        print(f"  {len(result['processes'])} processes: RSS {result['rss']:.0f} MiB summed, "
              f"PSS {result['pss']:.0f} MiB summed")
    print(f"median over {runs} run(s): {statistics.median(len(r['processes']) for r in results):.0f} processes, "
          f"RSS {statistics.median(r['rss'] for r in results):.0f} MiB summed, "
          f"PSS {statistics.median(r['pss'] for r in results):.0f} MiB summed after a round "
          f"(target: 400 MiB)")


if __name__ == "__main__":
    main()
