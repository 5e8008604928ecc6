"""In real Chromium, a phone whose web server stops (SIGTERM: a deploy, a host taken out of the proxy): the
stream's last event, ``reconnect``, makes the page open its stream again at once, on the other host behind
HAProxy (docker/haproxy-hosts.cfg), within 3 s of the stop.

Two uvicorn servers on loopback ports, on the test database and a redis-server of their own, behind the
system's HAProxy; each server's access log says which one served the page's streams."""

from __future__ import annotations

import shutil
import signal
import time

import pytest
from django.conf import settings
from django.db import connection

from tests.tournaments.stack import HOST, Proxy, RedisServer, WebServer, child_env, haproxy_program, wait_for

from .conftest import SIZES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)",
    ),
    pytest.mark.skipif(
        (haproxy_program() is None or shutil.which("redis-server") is None) and not settings.REQUIRE_SERVICES,
        reason="needs the haproxy and redis-server programs",
    ),
]

BACK_WITHIN = 3.0


def test_a_phone_told_to_reconnect_is_on_the_other_host_within_3_s(chromium, make_game, isolated_cache, tmp_path):
    from tournaments import services

    game = make_game()
    _, token = services.player_register(game=game, name="Léa", table=1)
    redis = RedisServer.start(tmp_path / "redis")
    webs: list[WebServer] = []
    proxy = None
    context = None
    try:
        # DEBUG: the pages' scripts served from the source (no collected static files in a checkout)
        env = child_env(redis.url, TRUSTED_PROXIES="1", DEBUG="1")
        webs = [WebServer.start(tmp_path, env, name=f"web{n}") for n in (1, 2)]
        proxy = Proxy(tmp_path, [web.address for web in webs])
        streams = f'"GET /games/{game.pk}/events HTTP/1.1"'

        def opened() -> list[int]:
            return [web.log(tail=10_000_000).count(streams) for web in webs]

        context = chromium.new_context(viewport=SIZES["phone"], base_url=f"http://{HOST}:{proxy.port}")
        page = context.new_page()
        page.goto(f"/games/{game.pk}/play#token={token}")
        assert wait_for(lambda: sum(opened()) >= 1, 20, step=0.05), opened()
        before = opened()
        serving = webs[before.index(max(before))]
        other = webs[1 - webs.index(serving)]
        count = other.log(tail=10_000_000).count(streams)

        stopped_at = time.monotonic()
        serving.popen.send_signal(signal.SIGTERM)
        back = wait_for(lambda: other.log(tail=10_000_000).count(streams) > count, BACK_WITHIN + 5, step=0.05)
        took = time.monotonic() - stopped_at
        assert back, (opened(), serving.log()[-2000:])
        assert took <= BACK_WITHIN, took
        serving.popen.wait(timeout=5)
        # The stream ended by its own last event, not cut by the server's graceful timeout.
        assert "timeout graceful shutdown exceeded" not in serving.log(tail=100_000), serving.log()[-2000:]
        print(f"phone back on the other host's stream {took:.2f} s after SIGTERM")
    finally:
        if context is not None:
            context.close()
        if proxy is not None:
            proxy.stop()
        for web in webs:
            web.stop()
        redis.stop()
