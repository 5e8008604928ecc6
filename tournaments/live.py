"""Live updates: a version number per game, bumped after every change, that pages poll cheaply.

The version lives in the shared cache (Redis in production), so the web processes and the worker see
the same number. It is bumped once the change is committed, never before: a page that sees a new
version and reloads reads the new state.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

from django.core.cache import cache
from django.db import connections, transaction
from django.db.models import Q
from django.utils import timezone

logger = logging.getLogger(__name__)


def live_key(game_id: int, *parts) -> str:
    """A cache key for something built from the database (a body, a snapshot): it carries the database's
    name, so that databases sharing one cache (test runs in parallel, a staging copy) never serve each
    other's data."""
    database = connections["default"].settings_dict["NAME"]
    return ":".join(str(part) for part in ("live", database, "game", game_id, *parts))


def _key(game_id: int) -> str:
    return f"game:{game_id}:version"


# Versions come from one counter shared by every game (and database): a version is never reused, so
# whatever is cached under (game, version) cannot be mistaken for another state, even when a game's id
# comes back in a recreated database.
_CLOCK_KEY = "live:version-clock"


def _next_version() -> int:
    cache.add(_CLOCK_KEY, 0, timeout=None)
    try:
        return cache.incr(_CLOCK_KEY)
    except ValueError:  # evicted between add and incr
        cache.set(_CLOCK_KEY, 1, timeout=None)
        return 1


# Games whose change could not be told (the cache was unreachable): told again as soon as it answers.
_untold: set[int] = set()


def cache_available() -> bool:
    from arbiter.cache import available

    return available()


def _bump(game_id: int) -> None:
    """Best effort, after the change is saved: a cache failure is logged and the change told later, never
    turned into an error for the request that saved it."""
    try:
        cache.set(_key(game_id), _next_version(), timeout=None)
    except Exception:  # a cache backend without the resilient wrapper
        logger.exception("could not tell the change of game %s", game_id)
        _untold.add(game_id)
        return
    if not cache_available():
        _untold.add(game_id)
    else:
        _tell_untold()


def _tell_untold() -> None:
    """Bump the games whose change could not be told during a cache outage (cheap when there are none)."""
    if not _untold or not cache_available():
        return
    for game_id in list(_untold):
        _untold.discard(game_id)
        _bump(game_id)


def notify_game_changed(game_id: int) -> None:
    """Change the game's version when the current transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: _bump(game_id), robust=True)


# A slip handed in changes nothing the pages show but the count of slips received (console, projector).
# It moves a counter of its own rather than the version: a thousand slips at the deadline must not make
# every server process build the whole snapshot again a thousand times. The counts are read again when
# the counter moved, at most every PROGRESS_SECONDS for the live streams.
PROGRESS_SECONDS = 0.5


def _progress_key(game_id: int) -> str:
    return f"game:{game_id}:progress"


def notify_progress(game_id: int) -> None:
    """A slip arrived (after the current transaction commits): the counts of slips received changed."""
    transaction.on_commit(lambda: _count_progress(game_id), robust=True)


def _count_progress(game_id: int) -> None:
    from arbiter.cache import count

    count(cache, _progress_key(game_id))


def progress_mark(game_id: int) -> int:
    return int(cache.get(_progress_key(game_id)) or 0)


def progress_counts(game_id: int, mark: int) -> dict | None:
    """The slips received in the game's open round, as of progress ``mark`` (cached per mark)."""
    from tournaments import selectors
    from tournaments.models import Round

    key = live_key(game_id, "progress", mark)
    found = cache.get(key)
    if found is not None:
        return found
    current = (Round.objects.filter(game_id=game_id).exclude(status=Round.Status.CANCELLED)
               .select_related("game").order_by("-number").first())
    if current is None or current.status != Round.Status.OPEN:
        return None
    counts = selectors.round_counts(round=current)
    found = {"round": current.number, "received": counts["received"], "players": counts["players"]}
    cache.set(key, found, timeout=SNAPSHOT_TIMEOUT)
    return found


def with_progress(snapshot: dict, mark: int) -> dict:
    """The snapshot with its slip counts as of ``mark`` (itself when nothing moved or no round is open)."""
    if snapshot.get("progress_mark", mark) == mark or snapshot.get("round_status") != "open":
        return snapshot
    counts = progress_counts(snapshot["game_id"], mark)
    if counts is None:
        return snapshot
    return {**snapshot, "progress": counts, "progress_mark": mark}


def game_created(game_id: int) -> None:
    """Give a new game a fresh version at once, whatever a game of the same id left in the cache."""
    _bump(game_id)


def game_version(game_id: int) -> int:
    _tell_untold()
    return int(cache.get(_key(game_id)) or 0)


# What the pages receive: the public state of a game, built once per version and shared by every listener.
#
# Phones, the projector and the console hold a server-sent events stream (/games/<id>/events). Under
# ASGI (uvicorn), one watcher task per process reads the versions of the watched games from the cache
# every WATCH_TICK seconds and, on a change, builds the snapshot once and wakes every stream of that game:
# a thousand idle phones cost one cache read per tick, not a thousand. Under WSGI (runserver, the test
# server) each stream polls the version itself.

WATCH_TICK = 0.1
SNAPSHOT_TIMEOUT = 600
SNAPSHOT_BUILD_SECONDS = 5.0
SNAPSHOT_WAIT_SECONDS = 2.0
DEGRADED_TICK = 1.0  # without the cache, the watcher reads the database once a second
STANDINGS_SHOWN = 10
# Never the join code: the feed is public and game ids are easy to guess; the code is shown in the hall.
# Nor the count of players: a thousand arrivals must not wake every phone already waiting (it is under
# "progress", sent to the projector and the console only).
PUBLIC_GAME_FIELDS = (
    "id", "status", "round", "round_status", "board", "bag_count", "rack", "kept", "drawn", "rejected",
    "deadline", "coordinates", "labels", "round_seconds", "tileset", "number", "end_reason",
    "tournament", "tournament_name",
)
# Changes of these alone (slips received, arrivals, players' own rows) are sent only to the listeners that
# asked for progress: the phones are not woken by them.
PROGRESS_FIELDS = ("progress", "progress_mark", "players_digest")


def _snapshot_key(game_id: int, version: int) -> str:
    return live_key(game_id, "snapshot", version)


def _player_key(game_id: int, digest: str | None, player_id) -> str:
    return live_key(game_id, "player", digest, player_id)


PLAYERS = "_players"  # the per-player rows build_snapshot hands to game_snapshot, not part of the snapshot


def build_snapshot(game_id: int) -> dict | None:
    """The public state of a game: what any page may show (no slips of other players before the close)."""
    from tournaments import selectors
    from tournaments.models import Game, Round

    game = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if game is None:
        return None
    state = selectors.game_state(game=game)
    public = {key: state[key] for key in PUBLIC_GAME_FIELDS if key in state}
    current = game.rounds.exclude(status=Round.Status.CANCELLED).order_by("-number").first()
    last_closed = game.rounds.filter(status=Round.Status.CLOSED).order_by("-number").first()
    mark = progress_mark(game_id)  # read before counting: the counts are at least as new as the mark
    progress = {"round": None, "received": None, "players": state.get("players")}
    if current is not None and current.status == Round.Status.OPEN:
        counts = selectors.round_counts(round=current)
        progress = {"round": current.number, "received": counts["received"], "players": counts["players"]}
    last, rows, players = _scores(game, last_closed)
    if last is None:
        rows = []  # before the first close the standings are a list of zeros in registration order
    return {
        PLAYERS: players,
        "game_id": game.pk,
        "status": public.get("status", game.status),
        "round": current.number if current is not None else None,
        "round_status": current.status if current is not None else None,
        "deadline": current.deadline.isoformat() if current is not None and current.deadline else None,
        "game": public,
        "last": last,
        "progress": progress,
        "progress_mark": mark,
        "standings": rows[:STANDINGS_SHOWN],
    }


def _scores_signature(game) -> str:
    """What the standings and the players' results depend on, read in a few small queries: while slips
    arrive it does not move, so the standings are not computed again for every slip."""
    from django.db.models import Count, Max, Sum

    from tournaments.models import LogEntry, Result, Round
    from tournaments.services import game_players

    players = game_players(game).aggregate(n=Count("id"), last=Max("id"))
    closed = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number")
                  .values_list("id", "top_score", "master"))
    results = Result.objects.filter(round__game=game, round__status=Round.Status.CLOSED).aggregate(
        n=Count("id"), paid=Sum("paid"), corrected=Count("id", filter=Q(corrected=True)))
    log = LogEntry.objects.filter(game=game).aggregate(last=Max("id"))
    # created_at: a game of the same id in a recreated database (the cache outlived it) is another game.
    parts = [game.created_at, game.status, game.tournament.rule_overrides, players, closed, results, log]
    return hashlib.sha256(_snapshot_json(parts).encode()).hexdigest()[:24]


def _scores(game, last_closed) -> tuple[dict | None, list[dict], dict]:
    """The last closed round (tops, master), the standings and each player's own rows: from the cache
    while their signature holds."""
    from tournaments import selectors

    key = live_key(game.pk, "scores", _scores_signature(game))
    found = cache.get(key)
    if found is not None:
        return found
    last = None
    detail = {}
    if last_closed is not None:
        detail = selectors.round_detail(round=last_closed)
        last = {key: detail.get(key) for key in ("number", "rack", "top_score", "tops", "master")}
    rows = [
        {k: row.get(k) for k in ("rank", "player", "name", "table", "total", "diff", "percent")}
        for row in selectors.game_standings(game=game)
    ]
    # Each player's own line and last result, kept apart: a phone fetches its own few hundred bytes rather
    # than every player's rows (a thousand phones at the close).
    players = {row["player"]: {"standing": row, "result": None} for row in rows}
    for result in detail.get("results") or []:
        players.setdefault(result["player"], {"standing": None, "result": None})
        players[result["player"]]["result"] = {"round": last_closed.number, **result}
    cache.set(key, (last, rows, players), timeout=SNAPSHOT_TIMEOUT)
    return last, rows, players


def game_snapshot(game_id: int) -> dict | None:
    """The snapshot at the current version; a round whose deadline has passed is closed on the way (the
    deadline is the truth, whoever reads first after it closes the round)."""
    from tournaments.selectors import overdue
    from tournaments.services import game_close_if_due

    snapshot = _cached_snapshot(game_id)
    if snapshot is not None and overdue(snapshot) and game_close_if_due(game_id=game_id):
        _bump(game_id)  # whatever the close's own notice (at its commit) did, this reader must not get the old one
        snapshot = _cached_snapshot(game_id)
    if snapshot is not None and not snapshot.get("degraded"):
        snapshot = with_progress(snapshot, progress_mark(game_id))
    return snapshot


def degraded_snapshot(game_id: int) -> dict | None:
    """Without the cache: the snapshot from the database alone, marked ``degraded`` for the pages."""
    snapshot = build_snapshot(game_id)
    if snapshot is None:
        return None
    snapshot.pop(PLAYERS, None)
    snapshot["degraded"] = True
    # No version counter without the cache: the content's digest stands for it (pages compare versions).
    snapshot["version"] = "db-" + hashlib.sha256(_snapshot_json(snapshot).encode()).hexdigest()[:16]
    return snapshot


def clock_progress(game_id: int) -> int:
    """The progress mark for the pages' clock poll (0 without the cache)."""
    return progress_mark(game_id) if cache_available() else 0


def clock_version(game_id: int):
    """The version the pages' clock poll compares: the counter, or without the cache the digest of the
    state read from the database (None: no such game)."""
    if cache_available():
        version = game_version(game_id)
        if cache_available():
            return version
    snapshot = degraded_snapshot(game_id)
    return None if snapshot is None else snapshot["version"]


def _cached_snapshot(game_id: int) -> dict | None:
    """The snapshot at the current version, from the shared cache when another process already built it.

    After a change a thousand polls may miss the cache at once: one of them builds (a lock in the cache),
    the others wait for its result instead of each opening a database connection."""
    if not cache_available():
        return degraded_snapshot(game_id)
    version = game_version(game_id)
    key = _snapshot_key(game_id, version)
    snapshot = cache.get(key)
    if snapshot is not None:
        return snapshot
    lock = f"{key}:building"
    latest_key = live_key(game_id, "snapshot", "latest")
    if not cache.add(lock, 1, timeout=SNAPSHOT_BUILD_SECONDS):
        waited_until = time.monotonic() + SNAPSHOT_WAIT_SECONDS
        while time.monotonic() < waited_until:
            time.sleep(0.02)
            snapshot = cache.get(key)
            if snapshot is not None:
                return snapshot
        # An overloaded server: rather than a stampede of builds, the state one change behind; its
        # version says so, and the next ask gets the new one.
        snapshot = cache.get(latest_key)
        if snapshot is not None:
            return snapshot
    try:
        # Between our miss and taking the lock, another builder may have finished and let the lock go.
        snapshot = cache.get(key)
        if snapshot is not None:
            return snapshot
        snapshot = build_snapshot(game_id)
        if snapshot is None:
            return None
        players = snapshot.pop(PLAYERS, {})
        snapshot["version"] = version
        # The players' rows change only with a close, a master or a correction, not with each slip: they
        # are stored under a digest of their content, written once per content.
        digest = hashlib.sha256(_snapshot_json({str(k): v for k, v in players.items()}).encode()).hexdigest()[:20]
        snapshot["players_digest"] = digest
        if cache.add(_player_key(game_id, digest, "written"), 1, timeout=SNAPSHOT_TIMEOUT):
            cache.set_many({_player_key(game_id, digest, pid): row for pid, row in players.items()},
                           timeout=SNAPSHOT_TIMEOUT)
        cache.set_many({key: snapshot, latest_key: snapshot}, timeout=SNAPSHOT_TIMEOUT)
    finally:
        cache.delete(lock)
    return snapshot


def player_view(game_id: int, player_id: int) -> dict | None:
    """A player's own standing and last result at the game's current version (None: no such game)."""
    snapshot = game_snapshot(game_id)
    if snapshot is None:
        return None
    if snapshot.get("degraded"):
        built = build_snapshot(game_id) or {}
        row = built.get(PLAYERS, {}).get(player_id) or {"standing": None, "result": None}
        return {"version": snapshot["version"], "last_round": (built.get("last") or {}).get("number"),
                "degraded": True, **row}
    row = cache.get(_player_key(game_id, snapshot.get("players_digest"), player_id))
    if row is None:  # a player who joined since, or a row evicted from the cache
        row = {"standing": None, "result": None}
    return {"version": snapshot["version"], "last_round": (snapshot.get("last") or {}).get("number"), **row}


def without_progress(snapshot: dict) -> dict:
    return {key: value for key, value in snapshot.items() if key not in PROGRESS_FIELDS and key != "version"}


def game_versions(game_ids) -> dict[int, int]:
    """Versions of several games in one cache round trip."""
    ids = list(game_ids)
    found = cache.get_many([_key(game_id) for game_id in ids])
    return {game_id: int(found.get(_key(game_id)) or 0) for game_id in ids}


def progress_marks(game_ids) -> dict[int, int]:
    """Progress marks of several games in one cache round trip."""
    ids = list(game_ids)
    found = cache.get_many([_progress_key(game_id) for game_id in ids])
    return {game_id: int(found.get(_progress_key(game_id)) or 0) for game_id in ids}


def game_marks(game_ids) -> dict[int, tuple[int, int]]:
    """(version, progress mark) of several games."""
    ids = list(game_ids)
    versions, marks = game_versions(ids), progress_marks(ids)
    return {game_id: (versions[game_id], marks[game_id]) for game_id in ids}


HEARTBEAT_SECONDS = 15.0
FIRST_SNAPSHOT_SECONDS = 10.0
SYNC_STREAM_SECONDS = 55.0
SYNC_POLL_SECONDS = 0.25
SYNC_HEARTBEAT_SECONDS = 3.0


def _snapshot_json(snapshot: dict) -> str:
    from django.core.serializers.json import DjangoJSONEncoder

    return json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":"))


def with_server_time(snapshot_json: str) -> str:
    """The snapshot's JSON with the server's time of sending first (for the pages' clock correction)."""
    now = timezone.now()
    stamp = f'{{"server_time":"{now.isoformat()}","server_ms":{int(now.timestamp() * 1000)}'
    return stamp + ("," + snapshot_json[1:] if len(snapshot_json) > 2 else "}")


def sse_event(data: str, event: str = "state") -> str:
    return f"event: {event}\ndata: {data}\n\n"


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
        self.payload = _snapshot_json(snapshot)
        self.wake()


def closing_connections(function, *args):
    """Run ``function`` in a thread outside any request, closing (returning to the pool) the database
    connection it opened."""
    try:
        return function(*args)
    finally:
        connections.close_all()


def snapshot_closing_connections(game_id: int) -> dict | None:
    """game_snapshot for a thread outside any request: it closes the database connection it opened."""
    return closing_connections(game_snapshot, game_id)


def close_if_due(game_id: int) -> bool:
    from tournaments.services import game_close_if_due

    return game_close_if_due(game_id=game_id)


class VersionWatcher:
    """Per process and event loop: one task reads the watched games' versions and wakes their streams.

    Its cache reads and snapshot builds run in a thread of its own, so that a crowd of requests queuing
    for the loop's default threads never delays a change."""

    def __init__(self, tick: float = WATCH_TICK) -> None:
        self.tick = tick
        self.games: dict[int, _Watched] = {}
        self._task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-watcher")

    async def _in_thread(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def _watch(self, game_id: int) -> _Watched:
        watched = self.games.setdefault(game_id, _Watched())
        watched.listeners += 1
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return watched

    async def _run(self) -> None:
        from tournaments.selectors import overdue

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
                    if watched.full is not None and overdue(watched.full):
                        await self._in_thread(closing_connections, close_if_due, game_id)
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
                current = watched.seq if progress else watched.core_seq
                if watched.payload is not None and current != seen:
                    seen = current
                    yield sse_event(with_server_time(watched.payload))
                    continue
                try:
                    await asyncio.wait_for(watched.changed.wait(), heartbeat)
                except TimeoutError:
                    yield ": ping\n\n"
        finally:
            watched.listeners -= 1


_watchers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def watcher() -> VersionWatcher:
    """The watcher of the running event loop (one per server process)."""
    loop = asyncio.get_running_loop()
    found = _watchers.get(loop)
    if found is None:
        found = _watchers[loop] = VersionWatcher()
    return found


def sync_stream(game_id: int, *, progress: bool = False, duration: float = SYNC_STREAM_SECONDS,
                poll: float = SYNC_POLL_SECONDS, heartbeat: float = SYNC_HEARTBEAT_SECONDS):
    """The same events for a WSGI server (runserver, the test server): one thread per listener, so it ends
    after `duration` seconds and the browser reconnects by itself. A frequent heartbeat notices a closed
    page early; the database connection is closed after each build, so an idle stream holds none."""
    from django.db import connections

    yield "retry: 1000\n\n"
    started = last_sent = time.monotonic()
    sent = None
    version = None
    while time.monotonic() - started < duration:
        current = (game_version(game_id), progress_mark(game_id) if progress else 0)
        if current != version or not cache_available():
            try:
                snapshot = game_snapshot(game_id)
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
                yield sse_event(with_server_time(_snapshot_json(snapshot)))
        if time.monotonic() - last_sent > heartbeat:
            last_sent = time.monotonic()
            yield ": ping\n\n"
        time.sleep(poll)
