"""The contract's paths one by one: status codes and fields of each answer."""

from __future__ import annotations

from .conftest_api import *  # noqa: F403
from .conftest_api import expect


def test_tournament_game_and_player_creation(api_game):
    game = api_game(players=2, lexicon="TWL06", round_seconds=120, coordinates="rows-numbers")
    state = expect(game.arbitrator.get(game.url()), 200)
    assert state["id"] == game.id
    assert state["status"] == "ready"
    assert state["round"] is None
    assert state["board"] == ["." * 15] * 15
    assert state["bag_count"] == 100
    assert state["coordinates"] == "rows-numbers"
    assert len(game.join_code) >= 4
    for seat in game.players:
        assert seat.token and len(seat.token) >= 20
        me = expect(seat.client.get(game.url("/me")), 200)
        assert (me["id"], me["name"], me["table"], me["slip"]) == (seat.id, seat.name, seat.table, None)

