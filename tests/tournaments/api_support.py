"""What the API tests share: seats and games set up through HTTP (the ``api_game`` fixture is in conftest.py),
and the checks of an answer's status and error shape."""

from __future__ import annotations

import asyncio
import json
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


def asgi_post(path: str, body, authorization: str | None = None, host: bytes = b"localhost",
              raw: bytes | None = None, headers: list[tuple[bytes, bytes]] = ()) -> tuple[int, dict, object]:
    """POST through arbiter.asgi.application, as uvicorn hands a request over (the slips' fast path first):
    (status, headers, the JSON body, or the raw body when it is not JSON)."""
    from arbiter.asgi import application

    content = raw if raw is not None else json.dumps(body).encode()
    extra, headers = list(headers), [(b"host", host), (b"content-type", b"application/json"),
               (b"content-length", str(len(content)).encode())]
    if authorization:
        headers.append((b"authorization", authorization.encode()))
    headers.extend(extra)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80)}
    sent: list[dict] = []
    calls: list[int] = []

    async def receive():
        calls.append(1)
        if len(calls) == 1:
            return {"type": "http.request", "body": content, "more_body": False}
        await asyncio.sleep(30)
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(application(scope, receive, send))
    start = sent[0]
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    answer_headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    is_json = answer_headers.get("content-type", "").startswith("application/json")
    return start["status"], answer_headers, json.loads(answer) if answer and is_json else answer
