"""Game versions: a number per game, bumped after every change, that pages and streams follow cheaply.

The bottom of the live side: it needs only the cache and transactions. The version lives in the shared cache
(Redis in production), so the web processes and the worker see the same number. It is bumped once the
change is committed, never before: a page that sees a new version and reloads reads the new state.
Services call ``notify_game_changed`` / ``notify_progress`` explicitly (not signals: state changes go
through ``.update()`` and ``bulk_create``, which fire none).
"""

from __future__ import annotations

import logging

from django.core.cache import cache
from django.db import connections, transaction

logger = logging.getLogger(__name__)


def live_key(game_id: int, *parts) -> str:
    """A cache key for something built from the database (a body, a snapshot): it carries the database's
    name, so that databases sharing one cache (test runs in parallel, a staging copy) never serve each
    other's data."""
    database = connections["default"].settings_dict["NAME"]
    return ":".join(str(part) for part in ("live", database, "game", game_id, *parts))


def version_key(game_id: int) -> str:
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
untold: set[int] = set()


def cache_available() -> bool:
    from arbiter.cache import available

    return available()


def bump(game_id: int) -> None:
    """Best effort, after the change is saved: a cache failure is logged and the change told later, never
    turned into an error for the request that saved it."""
    try:
        cache.set(version_key(game_id), _next_version(), timeout=None)
    except Exception:  # a cache backend without the resilient wrapper
        logger.exception("could not tell the change of game %s", game_id)
        untold.add(game_id)
        return
    if not cache_available():
        untold.add(game_id)
    else:
        _tell_untold()


def _tell_untold() -> None:
    """Bump the games whose change could not be told during a cache outage (cheap when there are none)."""
    if not untold or not cache_available():
        return
    for game_id in list(untold):
        untold.discard(game_id)
        bump(game_id)


def notify_game_changed(game_id: int) -> None:
    """Change the game's version when the current transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: bump(game_id), robust=True)


# A slip handed in changes nothing the pages show but the count of slips received (console, projector).
# It moves a counter of its own rather than the version: a thousand slips at the deadline must not make
# every server process build the whole snapshot again a thousand times.
def progress_key(game_id: int) -> str:
    return f"game:{game_id}:progress"


def notify_progress(game_id: int) -> None:
    """A slip arrived (after the current transaction commits): the counts of slips received changed."""
    transaction.on_commit(lambda: _count_progress(game_id), robust=True)


def _count_progress(game_id: int) -> None:
    from arbiter.cache import count

    count(cache, progress_key(game_id))


def progress_mark(game_id: int) -> int:
    return int(cache.get(progress_key(game_id)) or 0)


def drawn_mark(game_id: int) -> str:
    """What a page drawn from the database now stands for, as the live stream says it ("version/progress
    mark"); read before the page's state, so that a change in between makes the page draw itself again
    rather than be missed. Empty without the cache (the stream then compares digests of its own)."""
    if not cache_available():
        return ""
    return f"{game_version(game_id)}/{progress_mark(game_id)}"


def game_created(game_id: int) -> None:
    """Give a new game a fresh version at once, whatever a game of the same id left in the cache."""
    bump(game_id)


def game_version(game_id: int) -> int:
    _tell_untold()
    return int(cache.get(version_key(game_id)) or 0)


def game_versions(game_ids) -> dict[int, int]:
    """Versions of several games in one cache round trip."""
    ids = list(game_ids)
    found = cache.get_many([version_key(game_id) for game_id in ids])
    return {game_id: int(found.get(version_key(game_id)) or 0) for game_id in ids}


def progress_marks(game_ids) -> dict[int, int]:
    """Progress marks of several games in one cache round trip."""
    ids = list(game_ids)
    found = cache.get_many([progress_key(game_id) for game_id in ids])
    return {game_id: int(found.get(progress_key(game_id)) or 0) for game_id in ids}


def game_marks(game_ids) -> dict[int, tuple[int, int]]:
    """(version, progress mark) of several games."""
    ids = list(game_ids)
    versions, marks = game_versions(ids), progress_marks(ids)
    return {game_id: (versions[game_id], marks[game_id]) for game_id in ids}
