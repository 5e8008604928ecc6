"""Live updates: a version number per game, bumped after every change, that pages poll cheaply.

The version lives in the shared cache (Redis in production), so the web processes and the worker see
the same number. It is bumped once the change is committed, never before: a page that sees a new
version and reloads reads the new state.
"""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction


def _key(game_id: int) -> str:
    return f"game:{game_id}:version"


def _bump(game_id: int) -> None:
    key = _key(game_id)
    cache.add(key, 0, timeout=None)
    try:
        cache.incr(key)
    except ValueError:  # evicted between add and incr
        cache.set(key, 1, timeout=None)


def notify_game_changed(game_id: int) -> None:
    """Bump the game's version when the current transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: _bump(game_id))


def game_version(game_id: int) -> int:
    return int(cache.get(_key(game_id)) or 0)
