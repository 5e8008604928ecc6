"""The first start and the club stack's memory (docs/operations.md, "First start and memory").

`arbiter run` (what `make run` runs once installed) on a machine that never ran it: nothing is compiled
before the home page, and the stack (the web server and its worker) finds a round's tops with the pure-Python
search, so that no process of it loads Numba's compiler (LLVM, about 130 MiB a process). Read from /proc: Linux
only. The times themselves are bench/first_start.py's, the memory bench/memory.py's.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tournaments.stack import free_port

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc (Linux)")


def _maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def _tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo.extend(children.get(found[-1], []))
    return found


@pytest.mark.worker
def test_the_first_arbiter_run_compiles_nothing_and_its_stack_never_loads_numbas_compiler(tmp_path):
    """A fresh data folder and an empty NUMBA_CACHE_DIR: `arbiter run` says the pure-Python search runs, a
    round is played through the API (its tops found by the worker), and then neither the web server nor the
    worker maps LLVM (llvmlite), and Numba's cache is still empty."""
    numba_cache = tmp_path / "numba"
    numba_cache.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "PUBLIC_URL",
                        "ARBITER_ENGINE", "DJANGO_SETTINGS_MODULE")}
    env.update(DATA_DIR=str(tmp_path / "data"), NUMBA_CACHE_DIR=str(numba_cache), PYTHONUNBUFFERED="1",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    port = free_port()
    launcher = subprocess.Popen([sys.executable, "-m", "arbiter", "run", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 240
        while not any("running at" in line for line in lines) and time.monotonic() < deadline:
            line = launcher.stdout.readline()
            if not line:
                break
            lines.append(line)
        text = "".join(lines)
        assert "running at" in text, text
        assert "search: python, ready in " in text, text
        assert "Compiling" not in text, text
        password = re.search(r"password '([^']+)'", text).group(1)
        username = re.search(r"username '([^']+)'", text).group(1)
        played = subprocess.run(
            [sys.executable, str(ROOT / ".ci" / "play_round.py"), "--url", f"http://127.0.0.1:{port}",
             "--username", username, "--password", password, "--lexicon-cache", env["LEXICON_CACHE_DIR"]],
            cwd=tmp_path, capture_output=True, text=True, timeout=240,
            env={**env, "ARBITER_ENGINE": "python"})
        assert played.returncode == 0, played.stdout + played.stderr
        assert "paid" in played.stdout

        stack = _tree(launcher.pid)
        workers = [pid for pid in stack if b"celery" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(workers) == 1, stack
        for pid in stack:
            assert "libllvmlite" not in _maps(pid), Path(f"/proc/{pid}/cmdline").read_bytes()
        assert list(numba_cache.iterdir()) == [], "nothing was compiled"
    finally:
        os.killpg(launcher.pid, signal.SIGINT)
        try:
            launcher.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.communicate(timeout=10)
