"""What the API tests share: seats and games set up through HTTP (the ``api_game`` fixture is in conftest.py),
and the checks of an answer's status and error shape."""

from __future__ import annotations

from dataclasses import dataclass, field

from rest_framework.test import APIClient


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
