"""The first start, cold: from the end of the install to the home page answering, and the longest silence.

Starts the launcher (``python -m arbiter run``, what `make run` runs once the install is done, and what an
installed ``arbiter run`` runs) on a free port of 127.0.0.1 as on a machine that never ran it: a fresh
DATA_DIR (the embedded database, the lexicon cache ``DATA_DIR/lexicons``) and an empty NUMBA_CACHE_DIR (no
compiled search), HOME a scratch folder. Every line it prints is stamped as it arrives; the home page is
asked every 0.2 s until it answers 200. Then Ctrl-C (SIGINT).

Prints, per run, each line with its time, then: the seconds to the home page's 200, the longest silence
before it (between two lines, or from the last line to the 200), and the load average; then the medians.

    .venv/bin/python bench/first_start.py [--runs 3] [--command "/path/venv/bin/arbiter run"] [--cwd DIR]

``--command``: another launcher (``--host``/``--port`` appended), e.g. an installed ``arbiter run`` from an
empty folder (``--cwd``), or ``ARBITER_ENGINE=compiled`` in the environment for the compiled search. Bounded:
at most 10 runs, each under ``--limit`` seconds (300); only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import os
import queue
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def one_run(command: list[str], cwd: Path, limit: float) -> dict:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="arbiter-first-start-") as scratch:
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "PUBLIC_URL",
                            "LEXICON_CACHE_DIR", "DJANGO_SETTINGS_MODULE")}
        (Path(scratch) / "numba").mkdir()
        (Path(scratch) / "home").mkdir()
        env.update(DATA_DIR=str(Path(scratch) / "data"), NUMBA_CACHE_DIR=str(Path(scratch) / "numba"),
                   HOME=str(Path(scratch) / "home"), PYTHONUNBUFFERED="1")
        started = time.monotonic()
        server = subprocess.Popen([*command, "--host", HOST, "--port", str(port)], cwd=cwd, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        lines: queue.Queue = queue.Queue()

        def read() -> None:
            for line in server.stdout:
                lines.put((time.monotonic() - started, line.rstrip()))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        stamped: list[tuple[float, str]] = []
        home = None
        try:
            while home is None:
                elapsed = time.monotonic() - started
                if elapsed > limit or server.poll() is not None:
                    raise SystemExit("the home page did not answer:\n" + "\n".join(t for _, t in stamped))
                try:
                    while True:
                        stamped.append(lines.get_nowait())
                except queue.Empty:
                    pass
                if stamped and answers(f"http://{HOST}:{port}/"):
                    home = time.monotonic() - started
                else:
                    time.sleep(0.2)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGINT)
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait(timeout=10)
        marks = [0.0] + [t for t, _ in stamped if t <= home] + [home]
        silence = max(b - a for a, b in zip(marks, marks[1:], strict=False))
    return {"lines": stamped, "home": home, "silence": silence, "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--command", default=f"{shlex.quote(sys.executable)} -m arbiter run",
                        help="the launcher to measure (default: what `make run` runs in this checkout)")
    parser.add_argument("--cwd", default=str(ROOT), help="the folder the launcher is started from")
    parser.add_argument("--limit", type=float, default=300, help="the longest a run may take to the home page")
    args = parser.parse_args()
    runs = max(1, min(args.runs, 10))
    print(f"launcher: {args.command} (from {args.cwd}); cold: fresh DATA_DIR, empty NUMBA_CACHE_DIR; "
          f"ARBITER_ENGINE={os.environ.get('ARBITER_ENGINE', '(unset)')}; {runs} run(s); {os.cpu_count()} CPUs")
    results = []
    for number in range(1, runs + 1):
        result = one_run(shlex.split(args.command), Path(args.cwd), args.limit)
        results.append(result)
        print(f"run {number}:")
        for at, text in result["lines"]:
            print(f"  {at:6.1f} s  {text[:110]}")
        print(f"  home page 200 after {result['home']:.1f} s; longest silence before it {result['silence']:.1f} s; "
              f"load average {result['load']:.2f}")
    print(f"median over {runs} run(s): home page after {statistics.median(r['home'] for r in results):.1f} s, "
          f"longest silence {statistics.median(r['silence'] for r in results):.1f} s "
          f"(targets: 60 s and 10 s); load average {statistics.median(r['load'] for r in results):.2f}")


if __name__ == "__main__":
    main()
