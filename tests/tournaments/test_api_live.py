"""GET /api/games/{id}/live: polled every second by every phone, so it must cost (almost) nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from .api_support import expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]  # the version is bumped when a change commits


def test_live_polls_hit_the_database_once_per_change(api_game, django_assert_num_queries):
    game = api_game(players=1)
    phone = APIClient()
    first = expect(phone.get(game.url("/live")), 200)
    assert (first["status"], first["round"], first["round_status"], first["deadline"]) == ("ready", None, None, None)
    with django_assert_num_queries(0):
        for _ in range(20):
            again = expect(phone.get(game.url("/live")), 200)
    assert again["version"] == first["version"]
    assert again["server_time"] >= first["server_time"]

    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    drawn = expect(phone.get(game.url("/live")), 200)
    assert drawn["version"] > first["version"]
    assert (drawn["status"], drawn["round"], drawn["round_status"]) == ("playing", 1, "drawn")

    started = expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)
    live = expect(phone.get(game.url("/live")), 200)
    assert live["version"] > drawn["version"]
    assert (live["round_status"], live["deadline"]) == ("open", started["deadline"])
    with django_assert_num_queries(0):
        expect(phone.get(game.url("/live")), 200)


def test_live_ignores_credentials(api_game):
    game = api_game(players=1)
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Bearer forged")
    assert expect(forged.get(game.url("/live")), 200)["status"] == "ready"
