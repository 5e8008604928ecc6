"""A slip counts from the moment it has arrived whole, and slow clients hold nothing, against a live uvicorn
(the production server's guard, in a thread of this process: on the embedded default as on PostgreSQL).

- The late-top attack: a slip's headers sent before the deadline, its body after the close (when the tops
  can be read): refused as late, 409 ``round_closed`` with ``late_by``, kept on record, never paid.
- Connections that send a POST's headers and no body, without credentials, hold no work slot: the hall's
  slips are accepted at once while they hang, and they are cut off (408) at their body's deadline.
- Connections whose headers trickle are closed at the headers' deadline.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import uuid

import pytest

from tournaments.models import LateSlip, LogEntry, Result, Round, Slip

from .stack import free_port, sleep_until, wait_for

RACK = "ACEILMN"
TOP = {"word": "MELANIC", "ref": "H4", "score": 78}  # a top of RACK on the empty board


def request(address, method: str, path: str, body=None, token: str | None = None, timeout: float = 10):
    conn = http.client.HTTPConnection(*address, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = token if " " in token else f"Bearer {token}"
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def head_only(address, path: str, length: int = 300, token: str | None = None, chunked: bool = False):
    """A socket that has sent a POST's request line and headers, and no body."""
    sock = socket.create_connection(address, timeout=30)
    lines = [f"POST {path} HTTP/1.1", f"Host: {address[0]}:{address[1]}", "Content-Type: application/json",
             "Accept: application/json", "Connection: close"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {length}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return sock


def answer_of(sock) -> tuple[int, dict]:
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, json.loads(response.read() or b"null")


@pytest.fixture
def open_round(make_game, make_player):
    """A game of ten players whose first round is open for ``seconds``: (game, [(player, token)], deadline)."""
    from tournaments import services

    def make(seconds: int = 3, players: int = 2):
        game = make_game(round_seconds=seconds)
        seats = [make_player(game, f"Player {n}", table=n) for n in range(1, players + 1)]
        round = services.round_start(round=services.round_draw(game=game, rack=RACK))
        return game, seats, round.deadline.timestamp()

    return make


def wait_closed(address, game, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, live = request(address, "GET", f"/api/games/{game.pk}/live")
        if status == 200 and live.get("round_status") == "closed":
            return True
        time.sleep(0.05)
    return False


def test_a_slip_whose_body_arrives_after_the_close_is_late_though_its_headers_came_in_time(
    uvicorn_server, open_round
):
    game, seats, deadline = open_round(seconds=3)
    (cheat, token), (honest, honest_token) = seats
    path = f"/api/games/{game.pk}/rounds/1/slips"
    body = json.dumps({**TOP, "key": "after-the-tops"}).encode()
    sleep_until(deadline - 1.0)
    sock = head_only(uvicorn_server, path, length=len(body), token=token)  # the head, a second early
    try:
        sleep_until(deadline + 0.1)
        assert wait_closed(uvicorn_server, game)  # the round closes; its tops are published
        status, tops = request(uvicorn_server, "GET", f"/api/games/{game.pk}/rounds/1", token=token)
        assert status == 200 and tops["status"] == "closed"
        sock.sendall(body)  # ... and only now the body, with the top
        status, answer = answer_of(sock)
    finally:
        sock.close()
    assert status == 409, answer
    assert answer["error"]["code"] == "round_closed"
    assert answer["error"]["fields"]["late_by"] > 0
    round = Round.objects.get(game=game, number=1)
    assert not Slip.objects.filter(round=round, player=cheat).exists()
    late = LateSlip.objects.get(round=round, player=cheat)
    assert late.word == TOP["word"] and late.received_at.timestamp() > deadline and late.late_by > 0
    result = Result.objects.get(round=round, player=cheat)
    assert result.paid == 0 and result.slip_id is None
    assert not LogEntry.objects.filter(round=round, action="slip_judged_late").exists()
    # The honest player's slip in time still counts.
    assert Result.objects.get(round=round, player=honest).reason in ("no_slip", "late")


def test_a_chunked_slip_completed_after_the_close_is_late(uvicorn_server, open_round):
    game, seats, deadline = open_round(seconds=3)
    (cheat, token), _ = seats
    path = f"/api/games/{game.pk}/rounds/1/slips"
    body = json.dumps({**TOP, "key": "chunked-late"}).encode()
    sleep_until(deadline - 1.0)
    sock = head_only(uvicorn_server, path, token=token, chunked=True)
    try:
        first, rest = body[:10], body[10:]
        sock.sendall(f"{len(first):x}\r\n".encode() + first + b"\r\n")  # part of it in time
        sleep_until(deadline + 0.1)
        assert wait_closed(uvicorn_server, game)
        sock.sendall(f"{len(rest):x}\r\n".encode() + rest + b"\r\n0\r\n\r\n")
        status, answer = answer_of(sock)
    finally:
        sock.close()
    assert (status, answer["error"]["code"]) == (409, "round_closed"), answer
    assert LateSlip.objects.filter(round__game=game, player=cheat, word=TOP["word"]).exists()
    assert not Slip.objects.filter(round__game=game, player=cheat).exists()


def test_a_slip_whose_body_completed_in_time_is_accepted_at_its_arrival():
    """Stamped at the last byte of its body, before any queue inside the application: a request that waits
    for its turn keeps the time it arrived."""
    import asyncio

    from arbiter.arrival import ARRIVAL_KEY
    from arbiter.bodies import arrive_whole

    seen = {}

    async def app(scope, receive, send):
        await asyncio.sleep(0.2)  # a queue inside the application
        seen["stamp"] = scope[ARRIVAL_KEY]
        message = await receive()
        seen["body"] = message["body"]

    parts = [b'{"word": ', b'"MELANIC"}']

    async def receive():
        await asyncio.sleep(0.1)  # the client sends its body in two parts, 0.1 s apart
        chunk = parts.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(parts)}

    scope = {"type": "http", "method": "POST", "path": "/api/games/1/rounds/1/slips",
             "headers": [(b"content-length", b"19")]}
    started = time.time()
    asyncio.run(arrive_whole(app)(scope, receive, None))
    assert seen["body"] == b'{"word": "MELANIC"}'
    assert started + 0.18 <= seen["stamp"] <= started + 0.28  # the last byte's time, not the headers'


def test_headers_without_a_body_hold_no_work_slot_and_are_cut_off(uvicorn_server, open_round, settings):
    settings.ARBITER_BODY_SECONDS = 4.0
    settings.ARBITER_REQUESTS_IN_FLIGHT = 8
    game, seats, deadline = open_round(seconds=30, players=10)
    path = f"/api/games/{game.pk}/rounds/1/slips"
    # 24 connections, no credentials, each a POST's headers and no body (3 times the work slots).
    hanging = [head_only(uvicorn_server, path) for _ in range(24)]
    time.sleep(0.3)
    try:
        answers: dict[int, tuple[int, float]] = {}

        def hand_in(seat: int) -> None:
            _, token = seats[seat]
            sent = time.monotonic()
            status, _ = request(uvicorn_server, "POST", path, {**TOP, "key": uuid.uuid4().hex}, token=token,
                                timeout=10)
            answers[seat] = (status, time.monotonic() - sent)

        threads = [threading.Thread(target=hand_in, args=(seat,)) for seat in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=15)
        assert sorted(answers) == list(range(10))
        assert all(status == 201 for status, _ in answers.values()), answers
        slowest = max(seconds for _, seconds in answers.values())
        assert slowest < 3.0, answers
        assert Slip.objects.filter(round__game=game).count() == 10
        # The hanging connections are cut off at their body's deadline, with 408.
        cut = []
        for sock in hanging:
            sock.settimeout(10)
            status, body = answer_of(sock)
            cut.append((status, body["error"]["code"]))
        assert cut == [(408, "too_slow")] * 24
    finally:
        for sock in hanging:
            sock.close()


def test_a_connection_whose_headers_trickle_is_closed(uvicorn_server, settings):
    settings.ARBITER_HEAD_SECONDS = 1.5
    sock = socket.create_connection(uvicorn_server, timeout=10)
    try:
        sock.sendall(b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # ... and never the end of its head
        started = time.monotonic()
        assert sock.recv(1024) == b""  # closed by the server
        assert 1.0 <= time.monotonic() - started <= 4.0
    finally:
        sock.close()
    # A silent connection too.
    sock = socket.create_connection(uvicorn_server, timeout=10)
    try:
        started = time.monotonic()
        assert sock.recv(1024) == b""
        assert 1.0 <= time.monotonic() - started <= 4.0
    finally:
        sock.close()
    # A request that is whole is served as ever.
    assert request(uvicorn_server, "GET", "/healthz")[0] in (200, 503)


# ---- behind the optional buffering proxy (docker/haproxy.cfg) ----------------------------------------------


@pytest.fixture
def proxy(uvicorn_server, tmp_path):
    """HAProxy with the repository's docker/haproxy.cfg in front of the live server: (host, port)."""
    import os
    import shutil
    import subprocess
    from pathlib import Path

    binary = shutil.which("haproxy")
    if binary is None:
        pytest.skip("needs HAProxy (apt install haproxy): the optional proxy of docker/")
    port = free_port()
    config = Path(__file__).resolve().parents[2] / "docker" / "haproxy.cfg"
    env = {**os.environ, "ARBITER_WEB": f"{uvicorn_server[0]}:{uvicorn_server[1]}",
           "PROXY_BIND": f"127.0.0.1:{port}", "PROXY_REQUEST_TIMEOUT": "5s"}
    log = open(tmp_path / "haproxy.log", "w")
    process = subprocess.Popen([binary, "-db", "-f", str(config)], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        def listening() -> bool:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return True
            except OSError:
                return False

        wait_for(listening, 10, step=0.05)
        yield "127.0.0.1", port
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def test_behind_the_proxy_a_late_body_is_still_late_and_slow_clients_are_cut_by_it(proxy, open_round):
    game, seats, deadline = open_round(seconds=3)
    (cheat, token), (honest, honest_token) = seats
    path = f"/api/games/{game.pk}/rounds/1/slips"
    # A slip in time, through the proxy: accepted.
    status, answer = request(proxy, "POST", path, {**TOP, "key": "in-time"}, token=honest_token)
    assert status == 201, answer
    # The late-top attack through the proxy: the proxy passes the request on only once its body is whole,
    # after the close.
    body = json.dumps({**TOP, "key": "after-the-tops"}).encode()
    sleep_until(deadline - 1.0)
    sock = head_only(proxy, path, length=len(body), token=token)
    try:
        time.sleep(0.5)
        sleep_until(deadline + 0.1)
        assert wait_closed(proxy, game)
        sock.sendall(body)
        status, answer = answer_of(sock)
    finally:
        sock.close()
    assert (status, answer["error"]["code"]) == (409, "round_closed"), answer
    round = Round.objects.get(game=game, number=1)
    assert not Slip.objects.filter(round=round, player=cheat).exists()
    assert Result.objects.get(round=round, player=cheat).paid == 0
    assert Result.objects.get(round=round, player=honest).paid == TOP["score"]
    # Headers with no body: cut off by the proxy at its deadline, without reaching the service.
    sock = head_only(proxy, path)
    try:
        sock.settimeout(10)
        started = time.monotonic()
        data = sock.recv(4096)
        assert data.startswith(b"HTTP/1.1 408"), data
        assert 3 < time.monotonic() - started < 8  # the proxy's deadline (5 s here)
    finally:
        sock.close()
