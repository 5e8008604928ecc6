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


class _Transport(asyncio.Transport):
    """The socket's side of a connection (outside the product): what the web server writes is kept."""

    def __init__(self):
        super().__init__()
        self.written, self.closing = b"", False

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data):
        self.written += data

    def is_closing(self):
        return self.closing

    def close(self):
        self.closing = True

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass


def test_a_slip_is_stamped_when_the_server_parses_its_last_byte_not_at_the_applications_first_turn():
    """On a busy event loop the application's first turn comes after every callback already ready; the web
    server's protocol (arbiter/server.py) stamps the request when it parses the last byte, and that stamp is
    the arrival the application sees (arbiter/bodies.py): a slip sent in time stays in time."""
    import uvicorn
    from uvicorn.server import ServerState

    from arbiter.bodies import arrive_whole
    from arbiter.server import GuardedHTTPProtocol, H11Protocol

    if GuardedHTTPProtocol.__mro__[2] is H11Protocol:
        pytest.skip("no httptools here: the pure-Python protocol stamps at the application's first turn")
    seen = {}

    async def app(scope, receive, send):
        seen["stamp"] = scope[ARRIVAL_KEY]
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    config = uvicorn.Config(arrive_whole(app), http=GuardedHTTPProtocol, lifespan="off", log_level="warning",
                            proxy_headers=False)
    config.load()
    loop = asyncio.new_event_loop()
    try:
        protocol = GuardedHTTPProtocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
        transport = _Transport()
        protocol.connection_made(transport)
        body = b'{"word":"ZEBRA","ref":"H8","score":42}'
        parsed = time.time()
        protocol.data_received(b"POST /api/games/1/rounds/1/slips HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        time.sleep(0.3)  # the loop busy with other requests' turns before this one's application runs

        async def answered():
            for _ in range(200):
                if b"201" in transport.written:
                    return
                await asyncio.sleep(0.01)

        loop.run_until_complete(answered())
        protocol.connection_lost(None)
    finally:
        loop.close()
    assert b"HTTP/1.1 201" in transport.written
    assert parsed <= seen["stamp"] <= parsed + 0.1, seen["stamp"] - parsed
