"""A request counts from the moment it has arrived whole: its body is read here, at the edge of the
application, under a size limit and a deadline, before any queue inside the application; only then is it
stamped with its arrival (arbiter/arrival.py) and handed on.

Why at the edge, and why the last byte:
- **Fairness.** A slip's time is its arrival, and a request has not arrived until its last byte has. A
  client that sends a slip's headers before the deadline and its body after the close (when the tops are
  published) is late, by the time its body completed: stamping the headers would pay it the top it read.
- **Slow clients hold nothing.** A client that sends headers and then trickles (or never sends) its body is
  held here, in the event loop, where it costs a few hundred bytes; it never reaches the work slots
  (arbiter.arrival.limit_in_flight) nor a thread nor a database connection. It is cut off with 408 when
  its body is not whole within ``ARBITER_BODY_SECONDS`` plus the time its declared size needs at
  ``ARBITER_BODY_MIN_BYTES_PER_SECOND`` (a venue's Wi-Fi sends a slip in milliseconds; a 20 MB word list at
  that rate in under a minute). The server's own guard (arbiter/server.py) closes connections whose headers
  trickle.

Size: an API body (``/api/``) above Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MB), or a game record's
own cap on its import path (``MAX_RECORD_BYTES``), or a centre's results file's on its push path
(``RESULTS_FILE_MAX_BYTES``, 8 MiB), is refused with 413 ``too_large`` in the API's error
shape before a byte of it is read; any other body (the console's uploads: a word list, a record) above
``ARBITER_PAGE_MAX_BODY_BYTES``, with a plain 413. A body is held in memory up to 256 KiB, on disk past
that. A chunked body (``Transfer-Encoding: chunked``) is read whole the same way and handed on with its
``Content-Length``: Django reads a body's length from that header only, and would take a chunked slip as
empty.

A request without a body (a GET, a POST without one) has arrived with its headers and is stamped then.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile

from arbiter.arrival import ARRIVAL_KEY, last_byte_stamp
from tournaments.errors import error_body

logger = logging.getLogger(__name__)

PREFIX = "/api/"
RECORD_IMPORT = re.compile(r"/api/tournaments/\d+/imports/record")
RESULTS_PUSH = re.compile(r"/api/events/\d+/results")
IN_MEMORY = 256 * 1024  # a body larger than this waits on disk, not in memory
REPLAY_CHUNK = 64 * 1024


def _setting(name: str, default):
    from django.conf import settings  # configured by the time a request arrives

    return getattr(settings, name, default)


def _limit(path: str) -> int:
    """The largest body accepted on this path."""
    if not path.startswith(PREFIX):
        return int(_setting("ARBITER_PAGE_MAX_BODY_BYTES", 40 * 1024 * 1024))
    if RECORD_IMPORT.fullmatch(path):
        from tournaments.sheets.views import MAX_RECORD_BYTES

        return MAX_RECORD_BYTES
    if RESULTS_PUSH.fullmatch(path):
        from tournaments.limits import RESULTS_FILE_MAX_BYTES

        return RESULTS_FILE_MAX_BYTES
    return int(_setting("DATA_UPLOAD_MAX_MEMORY_SIZE", 2621440))


def body_seconds(size: int) -> float:
    """How long a body of ``size`` bytes may take to arrive whole."""
    rate = max(1, int(_setting("ARBITER_BODY_MIN_BYTES_PER_SECOND", 16 * 1024)))
    return float(_setting("ARBITER_BODY_SECONDS", 10.0)) + size / rate


async def _answer(send, path: str, status: int, code: str, message: str) -> None:
    if path.startswith(PREFIX):
        body = json.dumps(error_body(code, message)).encode()
        kind = b"application/json"
    else:
        body, kind = message.encode(), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


async def _drain(receive, message: dict, bound: int, until: float) -> None:
    """Read and drop the rest of a body refused for its size, up to ``bound`` more bytes and until the
    deadline: a client that has sent it all then reads the 413 (closing on unread bytes would reset the
    connection under the answer); one that keeps sending is cut off."""
    dropped = 0
    while message.get("more_body", False) and dropped <= bound:
        try:
            async with asyncio.timeout_at(until):
                message = await receive()
        except TimeoutError:
            return
        if message["type"] != "http.request":
            return
        dropped += len(message.get("body", b""))


def _header(headers, name: bytes) -> bytes | None:
    return next((value for key, value in headers if key.lower() == name), None)


def arrive_whole(app):
    """Wrap an ASGI application: read each request's body whole (bounded, under a deadline), stamp its
    arrival at its last byte, then hand it on with the body replayed."""

    async def application(scope, receive, send):
        if scope.get("type") != "http":
            return await app(scope, receive, send)
        headers = scope.get("headers", [])
        declared = _header(headers, b"content-length")
        chunked = _header(headers, b"transfer-encoding") is not None
        size = int(declared) if declared is not None and declared.strip().isdigit() else None
        if not chunked and not size:
            return await app({**scope, ARRIVAL_KEY: last_byte_stamp(scope)}, receive, send)  # no body: here

        path = scope.get("path", "")
        limit = _limit(path)
        too_large = f"The request body is larger than {limit} bytes."
        if size is not None and size > limit:
            return await _answer(send, path, 413, "too_large", too_large)
        loop = asyncio.get_running_loop()
        started = loop.time()
        until = started + body_seconds(size if size is not None else 0)
        spool = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)
        received = 0
        try:
            while True:
                try:
                    # A deadline on the await itself, not wait_for, which makes a task of every read.
                    async with asyncio.timeout_at(until):
                        message = await receive()
                except TimeoutError:
                    logger.warning("body_too_slow: %s %s from %s: %d of %s bytes in %.1f s; closed",
                                   scope.get("method"), path, (scope.get("client") or ("?",))[0], received,
                                   size if size is not None else "chunked", until - started)
                    return await _answer(send, path, 408, "too_slow",
                                         "The request's body did not arrive in time; nothing was done.")
                if message["type"] != "http.request":
                    return None  # the client went away before the end of its body: nothing arrived
                chunk = message.get("body", b"")
                received += len(chunk)
                if received > limit:
                    await _drain(receive, message, limit, until)
                    return await _answer(send, path, 413, "too_large", too_large)
                spool.write(chunk)
                if size is None:  # chunked: each byte received earns its time at the least rate
                    until = started + body_seconds(received)
                if not message.get("more_body", False):
                    break
            stamp = last_byte_stamp(scope)  # the last byte is in: the request has arrived
            if chunked:
                kept = [(name, value) for name, value in headers
                        if name.lower() not in (b"transfer-encoding", b"content-length")]
                scope = {**scope, "headers": [*kept, (b"content-length", str(received).encode())]}
            scope = {**scope, ARRIVAL_KEY: stamp}
            spool.seek(0)
            return await app(scope, _replay(spool, received, receive), send)
        finally:
            spool.close()

    return application


def _replay(spool, size: int, receive):
    """The body again, from the spool, as the application reads it; after it, the client's own messages
    (a disconnect)."""
    left = size

    async def replay():
        nonlocal left
        if left is None:
            return await receive()
        chunk = spool.read(min(REPLAY_CHUNK, left)) if left else b""
        left -= len(chunk)
        more = left > 0
        if not more:
            left = None
        return {"type": "http.request", "body": chunk, "more_body": more}

    return replay
