"""The moment a request reached the application: when its last byte arrived, stamped before any queue
inside the application.

A slip's time is its arrival: under load a request can wait for a work slot, a thread, a database
connection from the pool, or the round's lock, and that wait must never make a slip sent in time late. Nor
may a slip whose body arrives after the close count as sent in time because its headers came earlier: the
body is the slip.

Under ASGI (uvicorn) arbiter/bodies.py reads each body whole at the edge and stamps it here when the last
byte is in (a request without a body, when its headers are), or, under the project's uvicorn protocol
(arbiter/server.py), when that protocol parsed the last byte, which on a busy event loop comes a loop's turn
earlier than the application sees it; the WSGI application reads the body whole and
stamps ``environ`` the same way. The only waits that come before the stamp are the client's own sending and
the server's: the socket's accept queue and the event loop's turn, a few milliseconds on a loaded server
(bounded by the loop's slowest step; the views do no blocking work on the loop). A request without a stamp
(tests, management commands) is stamped when it is read.
"""

from __future__ import annotations

import asyncio
import io
import time
import weakref
from datetime import UTC, datetime

from django.utils import timezone

ARRIVAL_KEY = "arbiter.received_at"
# The moment the web server's protocol parsed a request's last byte (arbiter/server.py, with httptools): on a
# busy event loop, earlier than the application's first turn, which waits for every callback already ready.
LAST_BYTE_KEY = "arbiter.last_byte_at"


def last_byte_stamp(scope) -> float:
    """The arrival of a request whose last byte is in: the protocol's stamp where it made one, else now."""
    now = time.time()
    parsed = scope.get(LAST_BYTE_KEY)
    return min(parsed, now) if isinstance(parsed, float) else now
# The answer of a change held while its work slot is given back (larger answers are written in the slot).
HELD_ANSWER_BYTES = 1024 * 1024


def limit_in_flight(app, limit: int | None = None, streams: tuple[str, ...] = ("/events",)):
    """At most ``limit`` changes (POST and the like) of one process run at once. A hundred slips a second
    on a 2-core machine then queue first-come first-served instead of sharing the interpreter a hundred
    ways, and the event loop stays free to stamp arrivals. Reads (the live feed, pages) are cheap and
    mostly served from the cache: they do not queue behind the slips.

    A request reaches its turn only once its body has arrived whole (arbiter/bodies.py), so a client that
    sends slowly never holds a slot; and a slot is given back before the answer is written (held here up to
    ``HELD_ANSWER_BYTES``), so a client that reads slowly holds none either."""
    semaphores: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # one per event loop

    async def application(scope, receive, send):
        if (scope.get("type") != "http" or scope.get("method") in ("GET", "HEAD")
                or scope.get("path", "").endswith(streams)):
            return await app(scope, receive, send)
        loop = asyncio.get_running_loop()
        if loop not in semaphores:
            from django.conf import settings  # configured by the time a request arrives

            size = settings.ARBITER_REQUESTS_IN_FLIGHT if limit is None else limit
            semaphores[loop] = asyncio.Semaphore(size) if size > 0 else None
        semaphore = semaphores[loop]
        if semaphore is None:
            return await app(scope, receive, send)
        held: list[dict] | None = []
        size = 0

        async def hold(message):
            nonlocal held, size
            if held is None:
                return await send(message)
            held.append(message)
            size += len(message.get("body", b""))
            if size > HELD_ANSWER_BYTES:  # a large answer: written from the slot, in order
                pending, held = held, None
                for waiting in pending:
                    await send(waiting)
            return None

        async with semaphore:
            await app(scope, receive, hold)
            answer, held = held or [], None  # from here on anything more goes straight out
        for message in answer:
            await send(message)
        return None

    return application


def stamp_wsgi(app):
    """The WSGI application: the body is read whole (up to its declared length), then the request is
    stamped and handed on with the body replayed."""

    def application(environ, start_response):
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > 0 and environ.get("wsgi.input") is not None:
            environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length))
        environ[ARRIVAL_KEY] = time.time()
        return app(environ, start_response)

    return application


def received_at(request) -> datetime:
    """When the request reached the application (now, for a request that carries no stamp)."""
    stamp = (getattr(request, "scope", None) or {}).get(ARRIVAL_KEY)
    if stamp is None:
        stamp = getattr(request, "META", {}).get(ARRIVAL_KEY)
    if isinstance(stamp, float):
        return datetime.fromtimestamp(stamp, tz=UTC)
    return timezone.now()
