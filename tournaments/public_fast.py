"""A follower's conditional request answered 304 straight from the ASGI application, before Django's machinery.

Thousands of followers poll a public results feed (tournaments/public.py) every few seconds, and nearly every
poll finds nothing new. Through Django's handler, its middleware and DRF, such a 304 costs a few milliseconds of
a server core; the work itself is one Redis read. Here only that case is served: a ``GET`` or ``HEAD`` of
``/api/public/<key>`` or a public page (``/results/<key>/``, ``/results/<key>/games/<n>/``) whose
``If-None-Match`` names the link's current ETag while the stamp in the cache is current (``public.current``:
one cache round trip, no database); and the unfiltered feed's 200 when this process holds its body encoded for
that same current data. Anything else — no ``If-None-Match``, another ETag, a stamp to check again
after a change, an unknown host — goes on to Django untouched, which answers it exactly as before (the same
ETag, Cache-Control and headers as here)."""

from __future__ import annotations

import re

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import parse_etags

from tournaments import public

PATH = re.compile(r"/api/public/(?P<feed>[A-Za-z0-9_-]{1,32})|/results/(?P<page>[A-Za-z0-9_-]{1,32})/(?:games/\d{1,9}/)?")
HEADERS = [
    (b"vary", b"Accept-Language"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
served = {"fast": 0, "fast_200": 0}  # how many 304s and whole feeds were answered here (read by the tests)


def fast_public(app):
    """Wrap the Django ASGI application: answer a follower's 304 here, pass anything else on."""

    async def application(scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD"):
            return await app(scope, receive, send)
        match = PATH.fullmatch(scope.get("path", ""))
        asked = _asked(scope) if match else None
        # The unfiltered feed's whole body too, when this process has it encoded for the current data: after a
        # close, every follower's next poll is a 200 (tournaments.public.feed_bytes).
        whole = bool(match and match["feed"] and not scope.get("query_string") and asked is not None)
        if not asked and not whole:
            return await app(scope, receive, send)
        key, kind = (match["feed"], public.FEED) if match["feed"] else (match["page"], public.PAGE)
        found = await sync_to_async(public.current, thread_sensitive=False)(key)
        tag = public.etag(kind, found.tag) if found is not None else None
        if tag is None:
            return await app(scope, receive, send)
        headers = [(b"etag", tag.encode("ascii")),
                   (b"cache-control", f"public, max-age={int(settings.ARBITER_PUBLIC_MAX_AGE)}".encode()),
                   (b"content-language", found.language.encode("ascii", "replace")), *HEADERS]
        if "*" in asked or tag in asked:
            served["fast"] += 1
            await send({"type": "http.response.start", "status": 304,
                        "headers": [*headers, (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return None
        body = public.encoded(found) if whole else None
        if body is None:
            return await app(scope, receive, send)
        served["fast_200"] += 1
        await send({"type": "http.response.start", "status": 200,
                    "headers": [*headers, (b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
        return None

    return application


def _asked(scope) -> list[str] | None:
    """The ETags of ``If-None-Match`` (empty without one) when the request's host is one this server serves;
    else None."""
    headers = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.lower(), value)
    domain, _ = split_domain_port(headers.get(b"host", b"").decode("latin-1"))
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    asked = headers.get(b"if-none-match")
    return parse_etags(asked.decode("latin-1")) if asked else []
