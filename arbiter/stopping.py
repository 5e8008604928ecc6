"""The web server process is stopping: what its long requests (the live streams) listen for.

uvicorn, told to stop (SIGTERM: ``docker compose stop``, a deploy, a host taken out of the proxy), stops
accepting connections, asks each open one to close after its current answer, then waits for the answers
still running. A live stream never ends by itself: without a word it would hold the process until killed.
The server's protocol (arbiter/server.py) calls ``begin()`` at the first of those requests; each listener
registered here with ``on_stop()`` is then called once, on the event loop, and the streams it wakes tell
their page to reconnect and end (tournaments/live/stream.py).

One state per event loop (one per server process). Imports nothing of Django nor of the server.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

logger = logging.getLogger(__name__)

_state: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop -> {"stopping": bool, "listeners": [...]}


def _of(loop: asyncio.AbstractEventLoop) -> dict:
    found = _state.get(loop)
    if found is None:
        found = _state[loop] = {"stopping": False, "listeners": []}
    return found


def stopping() -> bool:
    """Whether the server of the running event loop is stopping."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    return _of(loop)["stopping"]


def on_stop(listener) -> None:
    """Call ``listener()`` (no arguments, on the loop) when the server of the running loop begins to stop;
    at once if it has."""
    state = _of(asyncio.get_running_loop())
    if state["stopping"]:
        listener()
    else:
        state["listeners"].append(listener)


def begin(loop: asyncio.AbstractEventLoop) -> None:
    """The server of ``loop`` stops: every listener called once (a failing one does not stop the others)."""
    state = _of(loop)
    if state["stopping"]:
        return
    state["stopping"] = True
    listeners, state["listeners"] = state["listeners"], []
    for listener in listeners:
        try:
            listener()
        except Exception:
            logger.exception("stop listener")
