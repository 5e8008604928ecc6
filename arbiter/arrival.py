"""The moment a request reached the application, stamped before any queue inside it.

A slip's time is its arrival: under load a request can wait for a thread, for a database connection from
the pool, or for the round's lock, and that wait must never make a slip sent in time late.

The ASGI application (uvicorn) is wrapped so that the time is taken when the server hands over the
request's headers, before the body is read and before Django runs the view in a thread; the WSGI
application stamps ``environ`` the same way. The only waits that come before the stamp are the server's
own: the socket's accept queue and the event loop's turn, a few milliseconds on a loaded server (bounded by
the loop's slowest step; the views do no blocking work on the loop). A request without a stamp (tests,
management commands) is stamped when it is read.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from datetime import UTC, datetime

from django.utils import timezone

ARRIVAL_KEY = "arbiter.received_at"


def stamp_asgi(app):
    async def application(scope, receive, send):
        if scope.get("type") == "http":
            scope = {**scope, ARRIVAL_KEY: time.time()}
        return await app(scope, receive, send)

    return application


def limit_in_flight(app, limit: int | None = None, streams: tuple[str, ...] = ("/events",)):
    """At most ``limit`` changes (POST and the like) of one process run at once. A hundred slips a second
    on a 2-core machine then queue first-come first-served instead of sharing the interpreter a hundred
    ways, and the event loop stays free to stamp arrivals. Reads (the live feed, pages) are cheap and
    mostly served from the cache: they do not queue behind the slips."""
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
        async with semaphore:
            return await app(scope, receive, send)

    return application


def stamp_wsgi(app):
    def application(environ, start_response):
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
