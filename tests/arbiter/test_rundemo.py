"""The README's run command on the embedded default: web server and worker come up and work together.

Runs `manage.py rundemo` exactly as `make run` does, with DATABASE_URL and REDIS_URL unset and a fresh
DATA_DIR, so SQLite and the filesystem broker are used and nothing else needs to be running.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def embedded_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(tmp_path / "data"), DJANGO_SETTINGS_MODULE="arbiter.settings.dev", DEBUG="1",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    return env


@pytest.mark.worker
def test_run_command_serves_pages_health_and_runs_tasks(embedded_env):
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "rundemo", "--port", str(port)],
        cwd=ROOT, env=embedded_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    lines = []
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"running at (http://\S+)", line)
            if found:
                url = found.group(1)
        assert url == f"http://127.0.0.1:{port}/", "".join(lines)
        assert any("password" in line for line in lines), "the demo login is printed"

        status = None
        while time.monotonic() < deadline:
            try:
                status, body = _get(url + "healthz")
                break
            except OSError:
                time.sleep(0.3)
        assert status == 200, body
        health = json.loads(body)
        assert health["database"] == {"up": True, "detail": "sqlite"}
        assert health["broker"]["up"] is True

        ping = subprocess.run(
            [sys.executable, "manage.py", "pingworker", "--timeout", "60"],
            cwd=ROOT, env=embedded_env, capture_output=True, text=True, timeout=90,
        )
        assert ping.returncode == 0, ping.stdout + ping.stderr
        assert "worker answered ping" in ping.stdout

        login_status, login_page = _get(url + "console/login/")
        assert login_status == 200
        assert b"password" in login_page.lower()
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    assert process.returncode == 0
