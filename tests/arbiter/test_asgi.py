"""Under ASGI nothing is streamed from a synchronous iterator: static files come whole, live streams are
asynchronous; and every request is stamped with its arrival before Django runs it."""

import asyncio
import time
import warnings

import pytest
from django.test import AsyncRequestFactory

from arbiter.arrival import ARRIVAL_KEY, received_at


def _asgi_get(path: str, application) -> tuple[list[dict], list[warnings.WarningMessage]]:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}
    sent: list[dict] = []

    calls = []

    async def receive():
        calls.append(1)
        if len(calls) == 1:
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(30)  # the client stays connected until the answer is sent
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(application(scope, receive, send))
    return sent, caught


@pytest.fixture
def asgi_app(settings):
    """The project's ASGI stack, its static files found in the source folders (tests run with DEBUG off,
    and a fresh clone has no collected static files)."""
    from django.core.handlers.asgi import ASGIHandler

    from arbiter.arrival import limit_in_flight
    from arbiter.bodies import arrive_whole

    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    return arrive_whole(limit_in_flight(ASGIHandler()))


def test_static_files_are_served_whole_without_the_sync_iterator_warning(asgi_app):
    sent, caught = _asgi_get("/static/css/base.css", asgi_app)
    assert sent[0]["status"] == 200
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    assert b"{" in body  # a style sheet
    assert not [w for w in caught if "synchronous iterators" in str(w.message)]


@pytest.mark.django_db(transaction=True)
def test_the_live_stream_is_an_async_iterator_under_asgi(game):
    from tournaments.web.views import game_events

    async def open_stream():
        response = await game_events(AsyncRequestFactory().get(f"/games/{game.pk}/events"), game.pk)
        first = await response.streaming_content.__anext__()
        await response.streaming_content.aclose()
        return response, first

    response, first = asyncio.run(open_stream())
    assert response.is_async
    assert first.startswith(b"retry:") or first.startswith("retry:")


def test_a_request_without_a_body_is_stamped_on_arrival_before_django_runs_it():
    from arbiter.bodies import arrive_whole

    seen = {}

    async def app(scope, receive, send):
        await asyncio.sleep(0.05)  # a queue inside the application
        seen["stamp"] = scope[ARRIVAL_KEY]

    before = time.time()
    asyncio.run(arrive_whole(app)({"type": "http", "method": "GET", "headers": []}, None, None))
    assert before <= seen["stamp"] <= before + 0.04

    class Request:
        scope = {ARRIVAL_KEY: before}

    assert received_at(Request()).timestamp() == pytest.approx(before)
