"""``/healthz``: is the database reachable, is the broker reachable."""

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


def healthz(request):
    db_up, db_detail = _database_ok()
    broker_up, broker_detail = _broker_ok()
    body = {
        "status": "ok" if db_up and broker_up else "unavailable",
        "database": {"up": db_up, "detail": db_detail},
        "broker": {"up": broker_up, "detail": broker_detail},
    }
    return JsonResponse(body, status=200 if db_up and broker_up else 503)
