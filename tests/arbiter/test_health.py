"""/healthz answers 200 with both parts up, 503 when one is down."""

import json
import re
import socket
import threading
from pathlib import Path

import pytest
from django.db import connection

# A cache of its own: a worker's heartbeat left by another run (a real worker's tests, `make run`) is not read.
pytestmark = pytest.mark.usefixtures("isolated_cache")


@pytest.mark.django_db
def test_healthz_reports_database_and_broker_up(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["up"] is True
    assert body["database"]["detail"] == connection.vendor
    assert body["broker"]["up"] is True


@pytest.mark.django_db
def test_healthz_is_503_when_the_broker_does_not_answer(client, settings):
    from arbiter.celery import app

    previous = app.conf.broker_url
    # A closed port on this machine: nothing listens on port 1.
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = previous
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["broker"]["up"] is False
    assert body["database"]["up"] is True


# ---- /healthz as the proxy's health check (docker/haproxy-hosts.cfg) ------------------------------------------

PROXY_CONFIG = Path(__file__).resolve().parents[2] / "docker" / "haproxy-hosts.cfg"


def proxy_expects() -> re.Pattern:
    """The regular expression the proxy's check looks for in /healthz's answer, as the file writes it."""
    found = re.search(r'^\s*http-check expect rstring "((?:[^"\\]|\\.)*)"\s*$', PROXY_CONFIG.read_text(), re.M)
    assert found, "docker/haproxy-hosts.cfg has no http-check expect rstring"
    return re.compile(found.group(1).replace('\\"', '"'))


@pytest.mark.django_db
def test_the_proxy_keeps_a_host_whose_database_answers_and_takes_out_one_whose_database_does_not(client):
    from arbiter.celery import app

    expects = proxy_expects()
    assert expects.search(client.get("/healthz").content.decode())
    previous = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"  # the broker down: every host sees it down alike
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = previous
    assert response.status_code == 503 and response.json()["database"]["up"] is True
    assert expects.search(response.content.decode()), response.content
    down = {**response.json(), "database": {"up": False, "detail": "OperationalError: gone"}}
    assert not expects.search(json.dumps(down))  # as JsonResponse writes it


@pytest.fixture
def refusing_redis():
    """A port that answers every command as a Redis in protected mode answers a client it refuses."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(b"-DENIED Redis is running in protected mode because protected mode is enabled\r\n")
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    thread.join(timeout=5)


@pytest.mark.django_db
def test_healthz_is_503_not_500_when_redis_refuses_the_cache(client, settings, refusing_redis):
    if not settings.CACHES["default"]["BACKEND"].endswith("ResilientRedisCache"):
        pytest.skip("the cache is Redis only with REDIS_URL set")
    kept = settings.CACHES
    settings.CACHES = {"default": {**kept["default"], "LOCATION": f"redis://127.0.0.1:{refusing_redis}/0"}}
    try:
        response = client.get("/healthz")
    finally:
        settings.CACHES = kept  # the test's own cache again, which isolated_cache empties after it
    assert response.status_code == 503
    body = response.json()
    assert body["cache"]["up"] is False and "DENIED" in body["cache"]["detail"], body
    assert body["database"]["up"] is True and proxy_expects().search(response.content.decode())
