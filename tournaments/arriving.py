"""Slips received but not yet served: so that the close waits a moment for a crowd at the deadline.

A slip's time is its arrival (arbiter/arrival.py), and a slip that arrived in time but is served after the
close is still accepted, judged on its own, its result replacing the close's ``no_slip`` — about five times
the server's work of a slip served before the close, which the close judges with all the others. At a
festival's deadline hundreds of slips can be queued in the web processes (for a work slot, a thread, a
database connection). Each web process therefore notes in Redis, per game, the slips it has received and not
yet answered, with their arrival; the clock's close waits while slips that arrived before the deadline are
still being served, at most ARBITER_CLOSE_WAIT_SECONDS past the deadline, and a close on the way (a request
after the deadline, the sweep) leaves the round to the clock meanwhile. Nothing changes what is in time: a
slip served after the close is accepted as before. Without Redis, or when it cannot be reached, nothing is
noted and the close does not wait.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
import time
from datetime import datetime

from django.conf import settings

from arbiter.arrival import ARRIVAL_KEY

logger = logging.getLogger(__name__)

STALE_SECONDS = 60  # a slip noted longer ago than this is forgotten (its process died while serving it)
NOTE_SECONDS = 0.01  # how often a web process sends the slips it received and answered to Redis
_numbers = itertools.count()
_clients: dict = {}


def key(game_id: int | str) -> str:
    """The game's noted slips in Redis, under the cache's KEY_PREFIX: two installations on one Redis (or two
    test processes, each with game ids of its own database) never wait for each other's slips."""
    prefix = settings.CACHES.get("default", {}).get("KEY_PREFIX", "")
    return f"{prefix}:arbiter:game:{game_id}:arriving" if prefix else f"arbiter:game:{game_id}:arriving"


def _redis_url() -> str | None:
    broker = getattr(settings, "BROKER", None)
    return getattr(broker, "redis_url", None)


class _Notes:
    """The slips this process has received and not answered, sent to Redis every NOTE_SECONDS in one
    pipeline by a thread of their own (not a round trip per slip on the event loop, which stamps arrivals);
    a slip answered before it was sent costs Redis nothing."""

    def __init__(self, url: str):
        self.url = url
        self.lock = threading.Lock()
        self.added: dict[str, dict[str, float]] = {}
        self.removed: dict[str, list[str]] = {}
        self.wake = threading.Event()  # set when there is something to send: an idle process sleeps
        threading.Thread(target=self.run, name="slips-arriving", daemon=True).start()

    def add(self, name: str, member: str, stamp: float) -> None:
        with self.lock:
            self.added.setdefault(name, {})[member] = stamp
        self.wake.set()

    def remove(self, name: str, member: str) -> None:
        with self.lock:
            if self.added.get(name, {}).pop(member, None) is not None:
                return  # never sent
            self.removed.setdefault(name, []).append(member)
        self.wake.set()

    def run(self) -> None:
        while True:
            self.wake.wait()
            time.sleep(NOTE_SECONDS)
            with self.lock:
                added, removed, self.added, self.removed = self.added, self.removed, {}, {}
                if not any(added.values()) and not removed:
                    self.wake.clear()
                    continue
            try:
                pipe = _client(self.url).pipeline(transaction=False)
                for name, members in added.items():
                    if members:
                        pipe.zadd(name, members).expire(name, STALE_SECONDS)
                for name, members in removed.items():
                    pipe.zrem(name, *members)
                pipe.execute()
            except Exception as error:  # the close then does not wait for these slips: no harm but the cost
                logger.warning("could not note the slips arriving: %s", error)


_notes_of: dict[str, _Notes] = {}
_notes_lock = threading.Lock()


def _notes(url: str) -> _Notes:
    with _notes_lock:
        notes = _notes_of.get(url)
        if notes is None:
            notes = _notes_of[url] = _Notes(url)
        return notes


def _client(url: str):
    import redis

    client = _clients.get(url)
    if client is None:
        client = _clients[url] = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    return client


SLIPS_PATH = re.compile(r"/api/games/(\d{1,18})/rounds/(\d{1,9})/slips")  # a round's slips (tournaments.api.fast too)


def arriving_slips(app, path=SLIPS_PATH):
    """Wrap the ASGI application: a POST to a round's slips is noted, with its arrival stamp, from its
    arrival (after arbiter.bodies stamped it, before any queue) until it is answered."""

    async def application(scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") != "POST":
            return await app(scope, receive, send)
        match = path.fullmatch(scope.get("path", ""))
        url = _redis_url()
        stamp = scope.get(ARRIVAL_KEY)
        if match is None or url is None or not isinstance(stamp, float):
            return await app(scope, receive, send)
        name, member = key(match.group(1)), f"{os.getpid()}:{next(_numbers)}"
        notes = _notes(url)
        notes.add(name, member, stamp)
        try:
            return await app(scope, receive, send)
        finally:
            notes.remove(name, member)

    return application


def note(game_id: int, member: str, arrived: float) -> None:
    """Note a slip arriving (what the ASGI wrapper does; for tests and other servers)."""
    url = _redis_url()
    if url is not None:
        _client(url).zadd(key(game_id), {member: arrived})


def served(game_id: int, member: str) -> None:
    url = _redis_url()
    if url is not None:
        _client(url).zrem(key(game_id), member)


def still_arriving(game_id: int, deadline: datetime) -> int:
    """How many slips that arrived before ``deadline`` are still being served (0 without Redis, or when
    it cannot be reached)."""
    url = _redis_url()
    if url is None:
        return 0
    try:
        pipe = _client(url).pipeline(transaction=False)
        pipe.zremrangebyscore(key(game_id), "-inf", time.time() - STALE_SECONDS)
        pipe.zcount(key(game_id), "-inf", deadline.timestamp())
        return int(pipe.execute()[1])
    except Exception as error:
        logger.warning("could not count the slips arriving for game %s: %s", game_id, error)
        return 0
