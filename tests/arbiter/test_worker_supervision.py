"""The Celery worker kept alive and watched: with a real worker process (on the embedded broker and cache
of a folder of its own), the launcher's supervisor starts it again when it is killed, and /healthz reports
the worker silent once its heartbeat is older than ARBITER_WORKER_SILENT_SECONDS (3 s here)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from django.core.cache.backends.filebased import FileBasedCache

from arbiter.env import broker_from_env
from arbiter.heartbeat import KEY, worker_state
from arbiter.supervise import Supervised
from tests.tournaments.stack import wait_for

ROOT = Path(__file__).resolve().parents[2]
SILENT = 3.0


@pytest.fixture
def worker_folder(tmp_path, settings):
    """A folder of the worker's own (its broker and cache), the web side's cache pointed at it."""
    data = tmp_path / "data"
    for folder in broker_from_env("REDIS_URL", data_dir=data, environ={}).transport_options.values():
        if isinstance(folder, str):
            Path(folder).mkdir(parents=True, exist_ok=True)
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                                   "LOCATION": str(data / "cache")}}
    settings.ARBITER_WORKER_SILENT_SECONDS = SILENT
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="arbiter.settings.test", WORKER_HEARTBEAT_SECONDS="0.5")
    return data, env


def _last_beat(data: Path):
    return FileBasedCache(str(data / "cache"), {}).get(KEY)


@pytest.mark.django_db
def test_a_killed_worker_is_started_again_and_a_silent_one_is_reported(worker_folder, client, tmp_path):
    data, env = worker_folder
    lines: list[str] = []
    log = open(tmp_path / "worker.log", "wb")
    supervised = Supervised(
        [sys.executable, "-m", "celery", "-A", "arbiter", "worker", "--pool", "solo", "--loglevel", "info",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        env=env, log=lines.append, first_delay=0.5, popen={"cwd": ROOT, "stdout": log, "stderr": log},
    )
    assert worker_state()["state"] == "unknown"  # nothing on record yet: not counted as down
    supervised.start()
    try:
        first = supervised.process.pid
        assert wait_for(lambda: _last_beat(data), 60, step=0.2), (tmp_path / "worker.log").read_text()[-3000:]
        health = client.get("/healthz").json()
        assert health["worker"]["state"] == "beating" and health["worker"]["up"] is True

        # Killed as the Redis outage killed it: the supervisor notes the exit and starts it again.
        killed_at = time.time()
        os.kill(first, signal.SIGKILL)

        def restarted():
            supervised.check()
            return supervised.restarts == 1 and supervised.process.poll() is None

        assert wait_for(restarted, 10, step=0.1)
        assert supervised.process.pid != first
        assert "stopped (exit code -9)" in lines[0] and "started again" in lines[1], lines
        assert wait_for(lambda: (_last_beat(data) or 0) > killed_at + 0.5, 60, step=0.2), (tmp_path / "worker.log").read_text()[-3000:]
        assert client.get("/healthz").json()["worker"]["state"] == "beating"
    finally:
        supervised.stop()
        log.close()
    # Stopped for good: no restart; once the last beat is older than the threshold, /healthz says so.
    supervised.check()
    assert supervised.restarts == 1
    time.sleep(SILENT + 0.6)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503 and body["status"] == "unavailable"
    assert body["worker"]["state"] == "silent" and body["worker"]["up"] is False
    assert body["worker"]["age"] > SILENT
    assert body["database"]["up"] is True


def test_the_pause_before_a_restart_doubles_up_to_its_bound_and_resets_after_a_steady_run(tmp_path):
    lines: list[str] = []
    supervised = Supervised([sys.executable, "-c", "raise SystemExit(3)"], log=lines.append, first_delay=1,
                            max_delay=4, steady_after=60)
    supervised.start()
    supervised.process.wait()
    now = supervised.started_at
    pauses = []
    for _ in range(4):
        supervised.check(now)  # the exit is noted: a restart planned
        pauses.append(supervised.restart_at - now)
        now = supervised.restart_at
        supervised.check(now)  # started again
        supervised.process.wait()
    # Times on the monotonic clock are floats: (now + 2) - now may come back as 1.9999999999990905.
    assert pauses == pytest.approx([1, 2, 4, 4], abs=1e-9)
    assert supervised.restarts == 4 and all("exit code 3" in line for line in lines[::2])
    # A run that lasted the steady time starts the pauses again from the first.
    supervised.check(now + 61)
    assert supervised.restart_at - (now + 61) == pytest.approx(1, abs=1e-9)
    supervised.stop()
