"""Fixtures of the API tests (imported by tests/tournaments/test_api*.py): games set up through HTTP."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def fresh_cache(isolated_cache):
    """Every API test runs with its own cache keys (see tests/conftest.py)."""
    return isolated_cache


@dataclass
class PlayerSeat:
    id: int
    name: str
    table: int | None
    token: str
    client: APIClient


@dataclass
class ApiGame:
    tournament_id: int
    id: int
    join_code: str
    arbitrator: APIClient
    players: list[PlayerSeat] = field(default_factory=list)

    def url(self, tail: str = "") -> str:
        return f"/api/games/{self.id}{tail}"

    def round_url(self, number: int, tail: str = "") -> str:
        return f"/api/games/{self.id}/rounds/{number}{tail}"


def bearer_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def expect(response, status: int) -> dict | list:
    assert response.status_code == status, (response.status_code, getattr(response, "data", response.content))
    return response.json()


def assert_error(response, status: int, code: str | None = None) -> dict:
    """The contract's error shape: {"error": {"code", "message", "fields"}} with the given status (and code)."""
    body = expect(response, status)
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "fields"}, error
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["fields"], dict)
    if code is not None:
        assert error["code"] == code, error
    return error


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
