"""Server-sent events: the transport of the snapshots to phones, projector and console.

Phones, the projector and the console hold a server-sent events stream (/games/<id>/events). Under ASGI
(uvicorn), one watcher task per process reads the versions of the watched games from the cache every
WATCH_TICK seconds and, on a change, builds the snapshot once and wakes every stream of that game: a
thousand idle phones cost one cache read per tick, not a thousand. Under WSGI (runserver, the test server)
each stream polls the version itself.

Between changes every stream sends a beat (an event the page hears, where a comment would reach no script)
at least every third of ARBITER_LIVE_SILENT_SECONDS: a page that hears nothing for that long knows the
server went silent (a frozen or sleeping laptop keeps its connections open and sends nothing).

When the server process stops (SIGTERM, arbiter/stopping.py), every stream sends a last event,
``reconnect``, and ends: the page opens its stream again at once (on another host behind the proxy, or on
this one once it is back), within ``within_ms`` of the event, spread so a hall does not come back in the
same millisecond.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connections
from django.utils import timezone

from arbiter import stopping
from tournaments.live.snapshot import (
    closing_connections,
    degraded_snapshot,
    game_snapshot,
    snapshot_closing_connections,
    snapshot_json,
    with_progress,
    without_progress,
)
from tournaments.selectors import overdue
from tournaments.versions import cache_available, game_marks, game_version, progress_mark

logger = logging.getLogger(__name__)


WATCH_TICK = 0.1
DEGRADED_TICK = 1.0  # without the cache, the watcher reads the database once a second
# The counts of slips received are read again when the progress counter moved, at most every
# PROGRESS_SECONDS for the live streams.
PROGRESS_SECONDS = 0.5
HEARTBEAT_SECONDS = 15.0
FIRST_SNAPSHOT_SECONDS = 10.0
SYNC_STREAM_SECONDS = 55.0
SYNC_POLL_SECONDS = 0.25
SYNC_HEARTBEAT_SECONDS = 3.0
# A stopping server's last event tells the page to open its stream again within this (a random share of it).
RECONNECT_WITHIN_MS = 1000


def with_server_time(snapshot_json: str) -> str:
    """The snapshot's JSON with the server's time of sending first (for the pages' clock correction)."""
    now = timezone.now()
    stamp = f'{{"server_time":"{now.isoformat()}","server_ms":{int(now.timestamp() * 1000)}'
    return stamp + ("," + snapshot_json[1:] if len(snapshot_json) > 2 else "}")


def sse_event(data: str, event: str = "state") -> str:
    return f"event: {event}\ndata: {data}\n\n"


def beat_event() -> str:
    """The stream's heartbeat, with the server's time: the page hears that the server is there."""
    return sse_event(f'{{"server_ms":{int(timezone.now().timestamp() * 1000)}}}', event="beat")


def reconnect_event() -> str:
    """The stream's last event when the server stops: the page opens its stream again, within the delay."""
    return sse_event(f'{{"within_ms":{RECONNECT_WITHIN_MS}}}', event="reconnect")


def heartbeat_seconds() -> float:
    """How often a stream beats between changes: three beats within the pages' silence threshold."""
    return settings.ARBITER_LIVE_SILENT_SECONDS / 3


class _Watched:
    """One game's listeners in this process, and the last snapshot they were sent."""

    def __init__(self) -> None:
        self.listeners = 0
        self.version: int | None = None
        self.full: dict | None = None  # the last snapshot without its version
        self.core: dict | None = None  # ... and without the progress counts
        self.seq = 0  # bumped when anything shown changed
        self.core_seq = 0  # bumped when more than the progress counts changed
        self.payload: str | None = None
        self.missing = False  # no such game
        self.snapshot: dict | None = None  # the last snapshot published, whole
        self.mark = 0  # the progress mark its counts stand for
        self.progress_at = 0.0  # when the counts were last read (monotonic)
        self.changed = asyncio.Event()

    def wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    def publish(self, snapshot: dict) -> None:
        self.snapshot = snapshot
        self.mark = snapshot.get("progress_mark", self.mark)
        full = {key: value for key, value in snapshot.items() if key != "version"}
        if full == self.full:
            return
        core = without_progress(snapshot)
        self.seq += 1
        if core != self.core:
            self.core_seq += 1
            self.core = core
        self.full = full
        self.payload = snapshot_json(snapshot)
        self.wake()


class VersionWatcher:
    """Per process and event loop: one task reads the watched games' versions and wakes their streams.

    Its cache reads and snapshot builds run in a thread of its own, so that a crowd of requests queuing
    for the loop's default threads never delays a change."""

    def __init__(self, tick: float = WATCH_TICK, close_if_due=None) -> None:
        self.tick = tick
        # close_if_due(game_id) -> bool: the caller's way to close an overdue round (the read model only reads)
        self.close_if_due = close_if_due
        self.games: dict[int, _Watched] = {}
        self._task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-watcher")
        self.stopping = False
        stopping.on_stop(self._stop)

    def _stop(self) -> None:
        """The server stops: every stream is woken, says ``reconnect`` and ends."""
        self.stopping = True
        for watched in self.games.values():
            watched.wake()

    async def _in_thread(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def _watch(self, game_id: int) -> _Watched:
        watched = self.games.setdefault(game_id, _Watched())
        watched.listeners += 1
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return watched

    async def _run(self) -> None:

        while self.games:
            tick = self.tick
            try:
                marks = await self._in_thread(game_marks, list(self.games))
                degraded = not cache_available()
                for game_id, (version, mark) in marks.items():
                    watched = self.games.get(game_id)
                    if watched is None:
                        continue
                    if (not degraded and watched.version == version and watched.snapshot is not None
                            and "progress_mark" in watched.snapshot and mark != watched.mark):
                        # Only slips arrived: read the counts again, at most every PROGRESS_SECONDS.
                        if time.monotonic() - watched.progress_at >= PROGRESS_SECONDS:
                            watched.progress_at = time.monotonic()
                            updated = await self._in_thread(closing_connections, with_progress,
                                                            watched.snapshot, mark)
                            watched.mark = mark
                            watched.publish(updated)
                        continue
                    if degraded:
                        # No versions to follow: the database alone, read once a second.
                        snapshot = await self._in_thread(closing_connections, degraded_snapshot, game_id)
                        watched.version = None
                        tick = DEGRADED_TICK
                    elif watched.version == version and (watched.payload or watched.missing):
                        continue
                    else:
                        snapshot = await self._in_thread(snapshot_closing_connections, game_id)
                        # A snapshot one change behind (an overloaded moment) is sent, and asked again next tick.
                        watched.version = version if snapshot is None else snapshot.get("version", version)
                    if snapshot is None:
                        watched.missing = True
                        watched.wake()
                    else:
                        watched.missing = False
                        watched.publish(snapshot)
                # The deadline is the truth: listeners of a game whose deadline passed make the close happen,
                # whether or not a worker is there to do it.
                for game_id, watched in list(self.games.items()):
                    if self.close_if_due is not None and watched.full is not None and overdue(watched.full):
                        await self._in_thread(closing_connections, self.close_if_due, game_id)
            except Exception:  # a cache or database hiccup: keep the streams, try again next tick
                logger.exception("live watcher")
                tick = DEGRADED_TICK
            for game_id in [gid for gid, watched in self.games.items() if watched.listeners <= 0]:
                del self.games[game_id]
            await asyncio.sleep(tick)

    async def open(self, game_id: int, timeout: float = FIRST_SNAPSHOT_SECONDS) -> _Watched | None:
        """A new listener of the game, once its first snapshot is ready; None when there is no such game."""
        watched = self._watch(game_id)
        try:
            while watched.payload is None and not watched.missing:
                await asyncio.wait_for(watched.changed.wait(), timeout)
        except BaseException:
            watched.listeners -= 1
            raise
        if watched.payload is None:
            watched.listeners -= 1
            return None
        return watched

    async def stream(self, watched: _Watched, *, progress: bool = False, heartbeat: float = HEARTBEAT_SECONDS):
        """Server-sent events for a listener from open(): the current state at once, then every change."""
        seen = None
        try:
            yield "retry: 1000\n\n"
            while True:
                if self.stopping:
                    yield reconnect_event()
                    return
                current = watched.seq if progress else watched.core_seq
                if watched.payload is not None and current != seen:
                    seen = current
                    yield sse_event(with_server_time(watched.payload))
                    continue
                try:
                    await asyncio.wait_for(watched.changed.wait(), heartbeat)
                except TimeoutError:
                    yield beat_event()
        finally:
            watched.listeners -= 1


_watchers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def watcher(close_if_due=None) -> VersionWatcher:
    """The watcher of the running event loop (one per server process); ``close_if_due(game_id)`` closes a
    round whose deadline its listeners saw pass."""
    loop = asyncio.get_running_loop()
    found = _watchers.get(loop)
    if found is None:
        found = _watchers[loop] = VersionWatcher(close_if_due=close_if_due)
    elif close_if_due is not None:
        found.close_if_due = close_if_due
    return found


def sync_stream(game_id: int, *, progress: bool = False, duration: float = SYNC_STREAM_SECONDS,
                poll: float = SYNC_POLL_SECONDS, heartbeat: float = SYNC_HEARTBEAT_SECONDS, close_if_due=None):
    """The same events for a WSGI server (runserver, the test server): one thread per listener, so it ends
    after `duration` seconds and the browser reconnects by itself. A frequent heartbeat notices a closed
    page early; the database connection is closed after each build, so an idle stream holds none.
    ``close_if_due(game_id)``: the caller's way to close a round whose deadline the stream saw pass."""

    yield "retry: 1000\n\n"
    started = last_sent = time.monotonic()
    sent = None
    version = None
    while time.monotonic() - started < duration:
        current = (game_version(game_id), progress_mark(game_id) if progress else 0)
        if current != version or not cache_available():
            try:
                snapshot = game_snapshot(game_id)
                if (snapshot is not None and close_if_due is not None and overdue(snapshot)
                        and close_if_due(game_id)):
                    snapshot = game_snapshot(game_id)
            except Exception as exc:  # the database failed under this stream: it ends, and the page reconnects
                logger.warning("live stream of game %s ended: %s: %s", game_id, type(exc).__name__, exc)
                return
            finally:
                connections.close_all()
            if snapshot is None:
                return
            version = (snapshot.get("version", current[0]), current[1])
            shown = {key: value for key, value in snapshot.items() if key != "version"}
            if not progress:
                shown = without_progress(snapshot)
            if shown != sent:
                sent = shown
                last_sent = time.monotonic()
                yield sse_event(with_server_time(snapshot_json(snapshot)))
        if time.monotonic() - last_sent > heartbeat:
            last_sent = time.monotonic()
            yield beat_event()
        time.sleep(poll)
