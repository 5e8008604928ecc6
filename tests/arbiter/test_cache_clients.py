"""Requests share the process's connections to Redis.

Under ASGI each request runs in a context of its own, and Django holds its cache objects per context: a
request gets a cache object of its own. Those objects must share one client and its connection pools, else
every request opens a new connection to Redis (a slip at a festival's deadline paid a third of its server
time for it)."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from arbiter.cache import count

pytestmark = pytest.mark.usefixtures("isolated_cache")

REQUESTS = 40


def _redis(settings) -> None:
    if not settings.CACHES["default"]["BACKEND"].endswith("ResilientRedisCache"):
        pytest.skip("the cache is not Redis here (REDIS_URL unset)")


def _requests(work) -> list:
    """``work()`` run as that many requests run under ASGI: each in a task of its own, in a thread."""

    async def one():
        return await sync_to_async(work, thread_sensitive=False)()

    async def all_of_them():
        return await asyncio.gather(*(asyncio.ensure_future(one()) for _ in range(REQUESTS)))

    return asyncio.run(all_of_them())


def test_requests_in_their_own_contexts_share_one_client_and_few_connections(settings):
    _redis(settings)

    def slip_like_request():
        from django.core.cache import caches

        cache = caches["default"]
        assert count(cache, "clients-test:player-1:window", timeout=60) is not None  # the slip's rate counter
        return cache, cache._cache

    from django.core.cache import caches

    # The process's client lives as long as the process: the connections other tests made before are in its pool.
    # (A cache object made aside: one of this context would be inherited by the requests' contexts.)
    pool = caches.create_connection("default")._cache._get_connection_pool(True)
    before = pool._created_connections
    found = _requests(slip_like_request)
    objects = {id(cache) for cache, _ in found}
    clients = {id(client): client for _, client in found}
    assert len(objects) > 1  # Django did give the requests cache objects of their own...
    assert len(clients) == 1  # ... which share the process's client
    assert next(iter(clients.values()))._get_connection_pool(True) is pool
    # At most one new connection per thread that served the requests at once, however many requests there were.
    assert pool._created_connections - before < REQUESTS / 4
    from django.core.cache import cache

    assert cache.get("clients-test:player-1:window") == REQUESTS


def test_another_server_or_other_options_get_a_client_of_their_own(settings):
    _redis(settings)
    from arbiter.cache import ResilientRedisCache

    location = settings.CACHES["default"]["LOCATION"]
    a = ResilientRedisCache(location, {"OPTIONS": {"socket_timeout": 0.5}})
    b = ResilientRedisCache(location, {"OPTIONS": {"socket_timeout": 0.5}, "KEY_PREFIX": "other"})
    c = ResilientRedisCache(location, {"OPTIONS": {"socket_timeout": 2.0}})
    d = ResilientRedisCache("redis://127.0.0.1:1/0", {"OPTIONS": {"socket_timeout": 0.5}})
    assert a is not b and a._cache is b._cache  # the key prefix is the cache object's, not the client's
    assert c._cache is not a._cache
    assert d._cache is not a._cache
