"""How long Ctrl-C takes to stop the launcher (``make run``) while phones hold their live streams open.

Starts ``python -m arbiter run --no-warm`` as ``make run`` does, on the embedded default (SQLite and the
filesystem broker in a fresh DATA_DIR, DATABASE_URL and REDIS_URL ignored), on a free 127.0.0.1 port; waits
for its address line; opens STREAMS event streams of the demo game (/games/<id>/events) as phones do and
reads their first bytes; then sends SIGINT to the launcher's process group (what Ctrl-C in a terminal does)
and times its exit. Prints what the launcher printed, then the figures. Each run is bounded (a launcher
still running after --bound seconds is killed and the run reported as a hang).

    .venv/bin/python bench/stop.py [--streams 2] [--runs 3] [--bound 60]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def open_stream(port: int, game_id: int) -> socket.socket:
    """An event stream as a phone holds it: the request sent, the headers and first event read."""
    stream = socket.create_connection(("127.0.0.1", port), timeout=10)
    stream.sendall(f"GET /games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   "Accept: text/event-stream\r\n\r\n".encode())
    received = b""
    deadline = time.monotonic() + 10
    while b"event:" not in received and time.monotonic() < deadline:
        chunk = stream.recv(65536)
        if not chunk:
            break
        received += chunk
    if not received.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"the stream was not opened: {received[:200]!r}")
    return stream


def one_run(streams: int, bound: float) -> tuple[float | None, str]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="arbiter-stop-") as data:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
        env.update(DATA_DIR=data, DJANGO_SETTINGS_MODULE="arbiter.settings.dev", PYTHONUNBUFFERED="1")
        launcher = subprocess.Popen(
            [sys.executable, "-m", "arbiter", "run", "--no-warm", "--port", str(port)], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        lines: list[str] = []
        opened: list[socket.socket] = []
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                line = launcher.stdout.readline()
                if not line:
                    raise SystemExit("the launcher stopped before serving:\n" + "".join(lines))
                lines.append(line)
                if re.search(r"running at http://", line, re.IGNORECASE):
                    break
            time.sleep(1.0)  # the lines printed just after the address
            game = re.search(r"/games/(\d+)", "".join(lines))
            game_id = int(game.group(1)) if game else 1
            opened = [open_stream(port, game_id) for _ in range(streams)]
            started = time.monotonic()
            os.killpg(launcher.pid, signal.SIGINT)
            try:
                launcher.wait(timeout=bound)
                took = time.monotonic() - started
            except subprocess.TimeoutExpired:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait()
                took = None
            rest = launcher.stdout.read()  # after the lines readline() took (communicate() skips its buffer)
            lines.append(rest)
        finally:
            for stream in opened:
                stream.close()
            if launcher.poll() is None:
                os.killpg(launcher.pid, signal.SIGKILL)
                launcher.wait()
    return took, "".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bound", type=float, default=60.0)
    args = parser.parse_args()
    args.streams = max(0, min(args.streams, 50))
    args.runs = max(1, min(args.runs, 10))
    times = []
    for run in range(args.runs):
        took, output = one_run(args.streams, args.bound)
        if run == 0:
            print("--- what the launcher printed (first run) ---")
            print(output.rstrip())
            print("---")
        print(f"run {run + 1}: Ctrl-C with {args.streams} open streams: "
              + (f"stopped in {took:.2f} s" if took is not None else f"still running after {args.bound:g} s"))
        if took is not None:
            times.append(took)
    if times:
        print(f"stop time, {len(times)} runs, {args.streams} streams: median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s")


if __name__ == "__main__":
    main()
