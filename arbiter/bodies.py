"""Request bodies of the API under ASGI: a declared size above the limit is refused before a byte of it is
read, and a body sent in chunks (``Transfer-Encoding: chunked``, no ``Content-Length``) is read whole,
within the same limit, and handed on with its length.

Django reads a body's length from ``Content-Length`` only: without it a chunked body would be taken as
empty, and the API would answer "field required" to a slip that was sent. The limit is Django's own
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MB): no API body comes near it (the API's JSON bodies have a far
smaller cap of their own, tournaments/api/parsers.py), but for a game record to import, which has its own
(tournaments/sheets/views.py, MAX_RECORD_BYTES) when its length is declared; a chunked one is held in
memory, so it is read within the general limit. Beyond the limit the answer is 413 ``too_large`` in the
API's error shape. Paths outside ``/api/`` (pages, forms, uploads) are passed on untouched.
"""

from __future__ import annotations

import json
import re

PREFIX = "/api/"
RECORD_IMPORT = re.compile(r"/api/tournaments/\d+/imports/record")


def _limit(path: str | None = None) -> int:
    """The largest body accepted: a declared game record's own cap, else DATA_UPLOAD_MAX_MEMORY_SIZE."""
    from django.conf import settings  # configured by the time a request arrives

    if path is not None and RECORD_IMPORT.fullmatch(path):
        from tournaments.sheets.views import MAX_RECORD_BYTES

        return MAX_RECORD_BYTES
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


async def _too_large(send, limit: int) -> None:
    body = json.dumps({"error": {"code": "too_large",
                                 "message": f"The request body is larger than {limit} bytes.",
                                 "fields": {}}}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


async def _drain(receive, message: dict, bound: int) -> None:
    """Read and drop the rest of a body refused for its size, up to ``bound`` more bytes: a client that has
    sent it all then reads the 413 (closing on unread bytes would reset the connection under the answer);
    one that keeps sending is cut off."""
    dropped = 0
    while message.get("more_body", False) and dropped <= bound:
        message = await receive()
        if message["type"] != "http.request":
            return
        dropped += len(message.get("body", b""))


def sized_bodies(app):
    """Wrap an ASGI application: API bodies are refused above the limit (413) and chunked ones read whole."""

    async def application(scope, receive, send):
        if scope.get("type") != "http" or not scope.get("path", "").startswith(PREFIX):
            return await app(scope, receive, send)
        headers = scope.get("headers", [])
        names = {name.lower() for name, _ in headers}
        limit = _limit()
        if b"content-length" in names:
            declared = next(value for name, value in headers if name.lower() == b"content-length")
            largest = _limit(scope["path"])
            if declared.strip().isdigit() and int(declared) > largest:
                return await _too_large(send, largest)
            return await app(scope, receive, send)
        if b"transfer-encoding" not in names:
            return await app(scope, receive, send)  # no body at all (a GET, an empty POST)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client went away before the end of its body
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _drain(receive, message, limit)
                return await _too_large(send, limit)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        kept = [(name, value) for name, value in headers if name.lower() != b"transfer-encoding"]
        scope = {**scope, "headers": [*kept, (b"content-length", str(len(body)).encode())]}
        sent = False

        async def whole():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await app(scope, whole, send)

    return application
