"""The shared cache (Redis) as the service uses it: a helper that may fail, never a dependency of a saved change.

Live versions, snapshots and rate-limit counters live in Redis. When Redis cannot be reached, every call
answers at once as if the key were missing (``get`` gives the default, ``add`` says it was added so a builder
goes on, ``set`` does nothing), the failure is logged once per outage, and for ``RETRY_SECONDS`` no new
connection is tried, so a request never waits on a dead cache more than one short connect timeout.
``available()`` says whether the last call worked: the live feed then serves what the database alone
gives, and /healthz reports the outage. When Redis answers again, everything resumes by itself.
"""

from __future__ import annotations

import functools
import logging
import threading
import time

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError

logger = logging.getLogger(__name__)

FAILURES = (ConnectionError, TimeoutError, BusyLoadingError, OSError)
RETRY_SECONDS = 1.0
_MISSING = object()


class _Outage:
    """Process-wide state of the connection to the cache (shared by every cache object of the process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.down_since: float | None = None
        self.retry_at = 0.0
        self.failures = 0
        self.detail = ""

    def skip(self) -> bool:
        return self.down_since is not None and time.monotonic() < self.retry_at

    def failed(self, error: BaseException) -> None:
        with self.lock:
            self.failures += 1
            self.retry_at = time.monotonic() + RETRY_SECONDS
            self.detail = f"{type(error).__name__}: {error}"
            if self.down_since is None:
                self.down_since = time.time()
                logger.error("the cache cannot be reached (%s): serving from the database alone", self.detail)

    def worked(self) -> None:
        if self.down_since is not None:
            with self.lock:
                if self.down_since is not None:
                    logger.warning("the cache answers again after %.1f s", time.time() - self.down_since)
                    self.down_since = None


outage = _Outage()


def available() -> bool:
    """False while the cache is known to be unreachable."""
    return outage.down_since is None


def _guarded(fallback):
    def decorate(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            if outage.skip():
                return fallback(*args, **kwargs)
            try:
                value = method(self, *args, **kwargs)
            except FAILURES as error:
                outage.failed(error)
                return fallback(*args, **kwargs)
            outage.worked()
            return value

        return call

    return decorate


def _default(key, default=None, version=None):
    return default


def _missing_counter(key, delta=1, version=None):
    raise ValueError(f"Key '{key}' not found (the cache cannot be reached)")


class _ReusedClients(RedisCacheClient):
    """Django's client makes a new ``redis.Redis`` (with its table of ~170 reply handlers) for every call;
    one per connection pool is enough (a ``redis.Redis`` is safe to share between threads)."""

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client


def _no_count(*args, **kwargs):
    return None


class ResilientRedisCache(RedisCache):
    """Django's Redis cache whose failures degrade to a miss (see the module's docstring)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _ReusedClients

    @_guarded(_no_count)
    def count(self, key, timeout: int | None = None) -> int | None:
        """Add one to a counter, created at 1 (expiring after ``timeout`` s from its creation): one round
        trip, two when it is created. None when the cache cannot be reached."""
        key = self.make_and_validate_key(key)
        client = self._cache.get_client(key, write=True)
        value = int(client.incr(key))
        if value == 1 and timeout is not None:  # a second round trip only when the counter is created
            client.expire(key, int(timeout))
        return value

    get = _guarded(_default)(RedisCache.get)
    add = _guarded(lambda *a, **k: True)(RedisCache.add)
    set = _guarded(lambda *a, **k: None)(RedisCache.set)
    touch = _guarded(lambda *a, **k: False)(RedisCache.touch)
    delete = _guarded(lambda *a, **k: False)(RedisCache.delete)
    get_many = _guarded(lambda *a, **k: {})(RedisCache.get_many)
    has_key = _guarded(lambda *a, **k: False)(RedisCache.has_key)
    incr = _guarded(_missing_counter)(RedisCache.incr)
    set_many = _guarded(lambda *a, **k: [])(RedisCache.set_many)
    delete_many = _guarded(lambda *a, **k: None)(RedisCache.delete_many)
    clear = _guarded(lambda *a, **k: None)(RedisCache.clear)

    def ping(self) -> tuple[bool, str]:
        """Ask Redis itself, whatever the recent state (for /healthz)."""
        try:
            self._cache.get_client(write=True).ping()
        except FAILURES as error:
            outage.failed(error)
            return False, f"{type(error).__name__}: {error}"
        outage.worked()
        return True, "redis"


def count(cache, key, timeout: int | None = None) -> int | None:
    """``cache.count`` where the cache has it (Redis: one round trip), else add-then-incr (the embedded
    file cache: not atomic across processes, which a club's single laptop does not need)."""
    counter = getattr(cache, "count", None)
    if counter is not None:
        return counter(key, timeout)
    if cache.add(key, 1, timeout=timeout):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired in between
        cache.set(key, 1, timeout=timeout)
        return 1
