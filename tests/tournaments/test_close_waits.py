"""The clock's close waits a moment for slips that arrived in time and are still queued in the web processes
(tournaments/arriving.py), so that a crowd at the deadline is judged with the close, not one by one after."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from arbiter.arrival import ARRIVAL_KEY
from tournaments import arriving, services
from tournaments.models import Round

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not getattr(settings.BROKER, "redis_url", None), reason="slips arriving are noted in Redis"),
]


@pytest.fixture
def open_round(make_game, make_player, settings):
    settings.ARBITER_CLOSE_WAIT_SECONDS = 1.0

    def make(past_deadline: float):
        game = make_game(round_seconds=180)
        player, _ = make_player(game, "Ann")
        rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"),
                                   now=timezone.now() - timedelta(seconds=180 + past_deadline))
        arriving._client(arriving._redis_url()).delete(arriving.key(game.pk))
        return game, rnd, player

    return make


def test_a_close_on_the_way_leaves_the_round_open_while_a_slip_in_time_is_served(open_round):
    game, rnd, player = open_round(0.1)
    arriving.note(game.pk, "a", (rnd.deadline - timedelta(milliseconds=200)).timestamp())
    arriving.note(game.pk, "b", (rnd.deadline + timedelta(milliseconds=50)).timestamp())  # late: not waited for
    assert arriving.still_arriving(game.pk, rnd.deadline) == 1
    assert services.game_close_if_due(game_id=game.pk) is False
    assert services.rounds_close_overdue() == 0
    # The slip is served before the close: an ordinary slip, judged by the close with the others.
    services.slip_submit(round=rnd, player=player, word="MELANIC", ref="H4", score=78, key="a1",
                         now=rnd.deadline - timedelta(milliseconds=200))
    arriving.served(game.pk, "a")
    assert services.game_close_if_due(game_id=game.pk) is True
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at >= rnd.deadline
    assert rnd.results.get(player=player).reason == "ok"
    assert not rnd.log.filter(action="slip_judged_late").exists()


def test_the_clock_waits_for_slips_in_time_and_no_longer_than_the_setting(open_round):
    game, rnd, _ = open_round(0.0)
    arriving.note(game.pk, "a", (rnd.deadline - timedelta(milliseconds=100)).timestamp())
    threading.Timer(0.3, arriving.served, args=(game.pk, "a")).start()
    started = time.monotonic()
    assert services.round_close_if_due(round_id=rnd.pk) is True
    assert time.monotonic() - started >= 0.25

    # A slip never answered (its process gone) holds the close one second past the deadline at most.
    game, rnd, _ = open_round(0.0)
    arriving.note(game.pk, "lost", (rnd.deadline - timedelta(milliseconds=100)).timestamp())
    assert services.round_close_if_due(round_id=rnd.pk) is True
    assert timezone.now() >= rnd.deadline + timedelta(seconds=1)
    game, rnd, _ = open_round(2.0)  # past the wait: a close on the way closes at once
    arriving.note(game.pk, "lost", (rnd.deadline - timedelta(milliseconds=100)).timestamp())
    assert services.game_close_if_due(game_id=game.pk) is True


def test_the_web_process_notes_a_slip_from_its_arrival_until_its_answer(open_round):
    game, rnd, _ = open_round(0.0)
    seen = []

    async def serving(scope, receive, send):
        await asyncio.sleep(0.1)  # queued a while: sent to Redis meanwhile
        seen.append(await asyncio.to_thread(arriving.still_arriving, game.pk, rnd.deadline))

    async def main():
        stamp = (rnd.deadline - timedelta(milliseconds=10)).timestamp()
        slip = {"type": "http", "method": "POST", "path": f"/api/games/{game.pk}/rounds/1/slips", ARRIVAL_KEY: stamp}
        await arriving.arriving_slips(serving)(slip, None, None)
        await arriving.arriving_slips(serving)({**slip, "path": f"/api/games/{game.pk}/rounds/1"}, None, None)
        await asyncio.sleep(0.1)
        seen.append(await asyncio.to_thread(arriving.still_arriving, game.pk, rnd.deadline))

    asyncio.run(main())
    assert seen == [1, 0, 0]  # noted while served; another path never; none once answered


def test_the_slips_noted_are_those_the_fast_path_serves():
    from tournaments.api.fast import PATH

    assert arriving.SLIPS_PATH is PATH


def test_installations_sharing_a_redis_never_wait_for_each_others_slips(open_round, settings):
    """Two installations (or two test processes) on one Redis, each with a game of the same id in its own
    database: the slips one notes are its own, under its cache's KEY_PREFIX."""
    game, rnd, _ = open_round(0.0)
    in_time = (rnd.deadline - timedelta(milliseconds=100)).timestamp()
    caches = settings.CACHES
    settings.CACHES = {name: {**config, "KEY_PREFIX": "club-a"} for name, config in caches.items()}
    arriving.note(game.pk, "a", in_time)
    try:
        assert arriving.still_arriving(game.pk, rnd.deadline) == 1
        settings.CACHES = {name: {**config, "KEY_PREFIX": "club-b"} for name, config in caches.items()}
        assert arriving.still_arriving(game.pk, rnd.deadline) == 0
        settings.CACHES = caches
        assert arriving.still_arriving(game.pk, rnd.deadline) == 0
    finally:
        settings.CACHES = {name: {**config, "KEY_PREFIX": "club-a"} for name, config in caches.items()}
        arriving.served(game.pk, "a")
        assert arriving.still_arriving(game.pk, rnd.deadline) == 0
