"""When a service the request needs is out of reach (the database pool exhausted past its wait, the database
or the cache down), the answer is a clear 503 with Retry-After, in the error shape under /api/, never a
bare 500. The request's transaction was rolled back: nothing was saved, and a retry is safe (slips carry
their key)."""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tournaments.errors import error_body

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2
UNAVAILABLE = (OperationalError, InterfaceError, RedisConnectionError, RedisTimeoutError)


def _is_unavailable(exception: BaseException) -> bool:
    if isinstance(exception, UNAVAILABLE):
        return True
    # psycopg's pool timeout reaches here wrapped by Django as an OperationalError, or bare.
    return isinstance(exception, DatabaseError) and type(exception).__name__ == "PoolTimeout"


def unavailable_response(request, detail: str):
    message = _("The server is busy or a service it needs is out of reach: nothing was saved, try again in a moment.")
    if request.path.startswith("/api/") or request.headers.get("Accept", "").startswith("application/json"):
        response = JsonResponse(error_body("unavailable", message), status=503)
    else:
        response = HttpResponse(f"<!doctype html><title>503</title><p>{message}</p>", status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class ServiceUnavailableMiddleware(MiddlewareMixin):
    def process_exception(self, request, exception):
        if not _is_unavailable(exception):
            return None
        detail = f"{type(exception).__name__}: {exception}"
        logger.warning("503 for %s %s: %s", request.method, request.path, detail)
        return unavailable_response(request, detail)


class SyncChain:
    """The innermost middleware, synchronous only, so that under ASGI Django runs the whole middleware
    chain in the request's thread, then the (synchronous) view: two switches between the event loop and
    that thread per request instead of two per middleware (Django's middleware switch for each of their
    hooks when the chain runs asynchronously). The live streams, the only asynchronous views, pay one
    switch back to the event loop."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)
