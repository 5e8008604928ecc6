"""The Celery worker's heartbeat, and what /healthz makes of it.

A worker can die while the web processes go on (one did when Redis died in the middle of a round:
``Unrecoverable error: AttributeError(...'hostname')``), and nothing in a web request notices: rounds are
still closed by the first request after their deadline, but the tops, the sweep of overdue rounds and
record imports wait. So the worker's main process writes the time in the shared cache every
``ARBITER_WORKER_HEARTBEAT_SECONDS`` (a thread started when the worker is ready), and ``/healthz`` reports
the worker ``silent`` when the last beat is older than ``ARBITER_WORKER_SILENT_SECONDS`` (a minute).

The beat is kept with no expiry, so a dead worker's last beat stays and ages. No beat at all (a worker
never started against this cache, or a cache emptied) is ``unknown``: not counted as down, since a fresh
cache cannot tell a worker yet to come from one gone.
"""

from __future__ import annotations

import logging
import threading
import time

logger = logging.getLogger(__name__)

KEY = "worker:heartbeat"


def beat() -> None:
    """Write this moment as the worker's last beat (nothing when the cache is down: /healthz says so)."""
    from django.core.cache import cache

    try:
        cache.set(KEY, time.time(), timeout=None)
    except Exception:  # the embedded cache's folder gone, a Redis error the cache did not absorb
        logger.warning("worker heartbeat not written", exc_info=True)


def start_beating(interval: float) -> threading.Thread:
    """Beat now, then every ``interval`` seconds, in a daemon thread (it ends with the process)."""

    def run() -> None:
        while True:
            beat()
            time.sleep(interval)

    thread = threading.Thread(target=run, name="worker-heartbeat", daemon=True)
    thread.start()
    return thread


def worker_state(now: float | None = None) -> dict:
    """``{"up", "state", "age", "detail"}``: ``beating`` (up), ``silent`` (down: no beat for longer than
    ARBITER_WORKER_SILENT_SECONDS) or ``unknown`` (no beat on record; up is None)."""
    from django.conf import settings
    from django.core.cache import cache

    limit = settings.ARBITER_WORKER_SILENT_SECONDS
    try:
        last = cache.get(KEY)
    except Exception as exc:
        return {"up": None, "state": "unknown", "age": None, "detail": f"{type(exc).__name__}: {exc}"}
    if not isinstance(last, (int, float)):
        return {"up": None, "state": "unknown", "age": None, "detail": "no heartbeat on record"}
    age = round(max(0.0, (time.time() if now is None else now) - last), 1)
    if age > limit:
        return {"up": False, "state": "silent", "age": age,
                "detail": f"no heartbeat for {age:.0f} s (silent after {limit:g} s)"}
    return {"up": True, "state": "beating", "age": age, "detail": f"last heartbeat {age:.0f} s ago"}
