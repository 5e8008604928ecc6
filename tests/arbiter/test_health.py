"""/healthz answers 200 with both parts up, 503 when one is down."""

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
