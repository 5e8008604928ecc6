"""The shared cache (Redis) as the service uses it: a helper that may fail, never a dependency of a saved change.

Live versions, snapshots and rate-limit counters live in Redis. When Redis cannot be reached, every call
answers at once as if the key were missing (``get`` gives the default, ``add`` says it was added so a builder
goes on, ``set`` does nothing), the failure is logged once per outage, and for ``RETRY_SECONDS`` no new
connection is tried, so a request never waits on a dead cache more than one short connect timeout.
``available()`` says whether the last call worked: the live feed then serves what the database alone
gives, and /healthz reports the outage. When Redis answers again, everything resumes by itself.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import threading
import time

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError

from arbiter import locks

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


_clients: dict[tuple, RedisCacheClient] = {}
_clients_lock = threading.Lock()


class ResilientRedisCache(RedisCache):
    """Django's Redis cache whose failures degrade to a miss (see the module's docstring)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _ReusedClients

    @functools.cached_property
    def _cache(self) -> RedisCacheClient:
        """The process's client of this server and options, with its connection pools. Django makes a
        cache object per request under ASGI (``caches`` is held per context, and each request runs in a
        context of its own): each object with its own client would open a new connection to Redis for
        every request (a connect, a handshake, and redis-py reading its own version from the installed
        package's metadata), about a third of a slip's server time at a festival's deadline."""
        key = (type(self), self._class, tuple(self._servers), repr(sorted(self._options.items())))
        client = _clients.get(key)
        if client is None:
            with _clients_lock:
                client = _clients.setdefault(key, self._class(self._servers, **self._options))
        return client

    @_guarded(_no_count)
    def count(self, key, timeout: int | None = None) -> int | None:
        """Add one to a counter, created at 1 (expiring ``timeout`` s after its creation): one round trip,
        atomic (``SET key 0 NX EX`` then ``INCR`` in one MULTI/EXEC: a counter never lives without its
        expiry, however many processes count at once). None when the cache cannot be reached."""
        key = self.make_and_validate_key(key)
        client = self._cache.get_client(key, write=True)
        if timeout is None:
            return int(client.incr(key))
        pipe = client.pipeline(transaction=True)
        pipe.set(key, 0, ex=max(1, math.ceil(timeout)), nx=True)
        pipe.incr(key)
        return int(pipe.execute()[1])

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
    """Add one to the counter ``key`` (created at 1, expiring ``timeout`` s after its creation) and give
    its new value; ``cache.get(key)`` reads it. ``cache.count`` where the cache has it (Redis: one atomic
    round trip). Elsewhere (the embedded file cache, whose ``incr`` is a read then a write, and would
    restart the expiry) the count is made under a lock that holds across threads and processes
    (``_counting``), and the counter keeps the expiry of its creation, noted beside it (``key:until``)."""
    counter = getattr(cache, "count", None)
    if counter is not None:
        return counter(key, timeout)
    with _counting(cache):
        now = time.time()
        value = cache.get(key)
        until = cache.get(f"{key}:until")
        if value is None or (until is not None and until <= now):
            value, until = 0, (None if timeout is None else now + timeout)
        elif until is None and timeout is not None:  # a counter written without its expiry beside it
            until = now + timeout
        left = None if until is None else max(0.001, until - now)
        cache.set(key, int(value) + 1, timeout=left)
        if until is not None:
            cache.set(f"{key}:until", until, timeout=left)
        return int(value) + 1


_counting_in_process = threading.Lock()
COUNTERS_LOCK = "counters.lock"


@contextlib.contextmanager
def _counting(cache):
    """Hold the embedded cache's counters for one count: a lock of this process's threads, and an exclusive
    lock on a file of the cache's folder for the other processes (web and worker share the folder):
    arbiter/locks.py, ``flock`` on POSIX, ``msvcrt.locking`` on Windows."""
    folder = getattr(cache, "_dir", None)
    with _counting_in_process:
        if folder is None:
            yield
            return
        os.makedirs(folder, exist_ok=True)
        with locks.exclusive(os.path.join(folder, COUNTERS_LOCK)):
            yield
