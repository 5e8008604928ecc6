"""Fixtures of the tests of tournaments/: games set up through HTTP (``api_game``) and a short game played
through the services for the sheets and exports (``played_game``). Helpers live in api_support.py and
sheets_support.py; the fixtures shared by every folder are in tests/conftest.py."""

from __future__ import annotations

import pytest

from .api_support import ApiGame, PlayerSeat, bearer_client, expect
from .sheets_support import PlayedGame, load_played_game, play_game, save_played_game


@pytest.fixture
def api_game(arbitrator_client):
    """``api_game(players=3, seed=7, **tournament)``: a tournament, a game and registered players, all by HTTP."""

    def make(players: int = 3, seed: int = 7, **tournament) -> ApiGame:
        body = {"name": "Club night", **tournament}
        t = expect(arbitrator_client.post("/api/tournaments", body, format="json"), 201)
        g = expect(arbitrator_client.post(f"/api/tournaments/{t['id']}/games", {"seed": seed}, format="json"), 201)
        game = ApiGame(tournament_id=t["id"], id=g["id"], join_code=g["join_code"], arbitrator=arbitrator_client)
        for i in range(players):
            name, table = f"Player {chr(ord('A') + i)}", i + 1
            p = expect(
                arbitrator_client.post(game.url("/players"), {"name": name, "table": table}, format="json"), 201
            )
            game.players.append(PlayerSeat(p["id"], name, table, p["token"], bearer_client(p["token"])))
        return game

    return make


@pytest.fixture
def sheets_tournament(make_tournament, arbitrator):
    return make_tournament(name="Open de Vichy — Festival", solo_min_players=3, created_by=arbitrator)


@pytest.fixture(scope="session")
def played_game_rows() -> dict:
    """The rows of the first ``played_game`` of this test process, kept to be loaded again (see below)."""
    return {}


@pytest.fixture
def played_game(sheets_tournament, arbitrator, played_game_rows, isolated_cache) -> PlayedGame:
    """The short game of sheets_support.play_game, in this test's own tournament and for its arbitrator.

    It is played through the services once per test process; later tests get the same rows loaded back
    (same primary keys: the first test's transaction was rolled back, and no sequence hands them out
    again), instead of replaying the five rounds each time."""
    if not played_game_rows:
        played = play_game(sheets_tournament, arbitrator)
        played_game_rows.update(save_played_game(played, sheets_tournament, arbitrator))
        return played
    return load_played_game(played_game_rows, sheets_tournament, arbitrator)
