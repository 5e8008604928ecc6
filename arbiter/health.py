"""``/healthz``: is the database reachable, is the broker reachable, is the shared cache reachable, does
the Celery worker beat.

A cache outage is reported (503) with the changes this process could not tell yet; the service keeps
saving changes meanwhile and serves the pages from the database alone. A worker silent for longer than
ARBITER_WORKER_SILENT_SECONDS is reported too (503, ``"worker": {"state": "silent", "age": ...}``): the
web processes go on, but tops, the sweep of overdue rounds and record imports wait for a worker
(arbiter/heartbeat.py; ``make run`` restarts its worker, compose restarts the container)."""

from django.db import connection
from django.http import JsonResponse


def _database_ok() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return True, connection.vendor
    except Exception as exc:  # any failure means "down"; the message says why
        return False, f"{type(exc).__name__}: {exc}"


def _broker_ok() -> tuple[bool, str]:
    from arbiter.celery import app, prepare_broker_folders

    try:
        prepare_broker_folders()
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            return True, conn.transport_cls if isinstance(conn.transport_cls, str) else conn.transport.driver_type
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"


def _cache_ok() -> tuple[bool, str]:
    from django.core.cache import cache

    ping = getattr(cache, "ping", None)
    try:
        if ping is not None:
            return ping()  # a refusal by Redis itself (protected mode, a password asked) is down too, not a 500
        cache.set("healthz", "ok", timeout=10)
        return cache.get("healthz") == "ok", type(cache).__name__
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"


def healthz(request):
    from arbiter.cache import outage
    from arbiter.heartbeat import worker_state
    from tournaments.versions import untold

    db_up, db_detail = _database_ok()
    broker_up, broker_detail = _broker_ok()
    cache_up, cache_detail = _cache_ok()
    worker = worker_state()
    up = db_up and broker_up and cache_up and worker["up"] is not False
    body = {
        "status": "ok" if up else "unavailable",
        "database": {"up": db_up, "detail": db_detail},
        "broker": {"up": broker_up, "detail": broker_detail},
        "cache": {"up": cache_up, "detail": cache_detail, "failures": outage.failures,
                  "changes_not_yet_told": len(untold)},
        "worker": worker,
    }
    return JsonResponse(body, status=200 if up else 503)
