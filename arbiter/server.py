"""The web server's guard against clients that send their headers slowly, or never.

uvicorn hands a request to the application only once its headers are whole, and has no deadline of its own
for them: a connection that sends half a request line, then a byte a minute, stays open for ever. A thousand
such connections cost no work slot (the application never sees them) but hold the process's file
descriptors, which a hall of phones needs. This protocol is uvicorn's own (httptools where installed, else
h11) with one addition: the headers of each request must be whole within ``ARBITER_HEAD_SECONDS`` of the
connection being made, or of the first byte of a next request on a kept-alive connection; else the
connection is closed. Bodies have their own deadline, in the application (arbiter/bodies.py). Idle kept-alive
connections are closed by uvicorn's ``--timeout-keep-alive``.

No limit is set per address: a hall of a thousand phones often comes through one venue address.

When the server stops (SIGTERM), the protocol also tells the application's long answers, the live streams,
to end (arbiter/stopping.py): each tells its page to reconnect, and the process exits at once instead of
waiting for phones that never hang up (docs/operations.md, "Stopping the web server").

uvicorn takes it with ``--http arbiter.server:GuardedHTTPProtocol`` (``make run`` and the image do).
"""

from __future__ import annotations

import logging
import os
import time

from uvicorn.protocols.http.h11_impl import H11Protocol

from arbiter import stopping
from arbiter.arrival import LAST_BYTE_KEY

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Fastest
except ImportError:  # httptools has no wheel for this platform
    _Fastest = H11Protocol

logger = logging.getLogger("arbiter.server")
DEFAULT_HEAD_SECONDS = 10.0


def head_seconds() -> float:
    try:
        from django.conf import settings

        return float(settings.ARBITER_HEAD_SECONDS)
    except Exception:  # settings not configured (the protocol used outside the project's application)
        return float(os.environ.get("HEAD_SECONDS") or DEFAULT_HEAD_SECONDS)


class HeadDeadline:
    """Mixed into a uvicorn HTTP protocol: a request's headers arrive in time, or the connection closes; and
    when the server stops, the application's long answers hear it (``shutdown``)."""

    _head_timer = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        super().data_received(data)
        if self.cycle is not before:  # this data completed a request's headers
            self._disarm()
        elif self._head_timer is None and (before is None or before.response_complete):
            self._arm()  # the first bytes of a next request on a kept-alive connection

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server stops (SIGTERM): uvicorn asks each open connection to close after its answer. The
        first time, the process's long answers are told too (arbiter/stopping.py): the live streams tell
        their page to reconnect and end, instead of holding the process until it is killed."""
        stopping.begin(self.loop)
        super().shutdown()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(head_seconds(), self._head_expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_expired(self) -> None:
        self._head_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being served
        if not self.transport.is_closing():
            logger.warning("head_too_slow: %s: headers not whole in %.0f s; closed",
                           (self.client or ("?",))[0], head_seconds())
            self.transport.close()


class GuardedHTTPProtocol(HeadDeadline, _Fastest):
    """uvicorn's fastest HTTP/1.1 protocol here, with the headers' deadline; with httptools, it also stamps
    each request's scope when its last byte is parsed (arbiter/arrival.py ``LAST_BYTE_KEY``): a slip's
    arrival, before the application's first turn on a busy event loop."""

    if _Fastest is not H11Protocol:

        def on_message_complete(self) -> None:
            self.scope[LAST_BYTE_KEY] = time.time()
            super().on_message_complete()


class GuardedH11Protocol(HeadDeadline, H11Protocol):
    """uvicorn's pure-Python HTTP/1.1 protocol, with the headers' deadline."""


def raise_open_files_limit() -> int | None:
    """Let the process hold as many connections as the system allows (the soft limit of open files up to
    the hard one: 1,024 by default on Linux, fewer than a festival hall's phones). None where the platform
    has no such limit (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            return wanted
        except (ValueError, OSError):
            return soft
    return soft
