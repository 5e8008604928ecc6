"""Each fault the service must ride out, with real processes: uvicorn, a Celery worker, a redis-server.

The deadline is the truth and notifications are best effort. A player or arbitrator sees the round close on
time whatever is down. A slip that arrived in time counts. A change that was saved is answered as saved,
or with a clear 503 when nothing was saved, and never with a 500.
The servers run on the pytest-django test database and a redis-server of their own (tests/tournaments/
stack.py); the tests talk to them over HTTP on 127.0.0.1 and check the database directly.
"""

from __future__ import annotations

import http.client
import json
import logging
import shutil
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from tournaments.models import Game, LateSlip, LogEntry, Result, Round, Slip
from tournaments.security import issue_api_token

from .stack import (
    HOST,
    Listener,
    RedisServer,
    WebServer,
    Worker,
    child_env,
    sleep_until,
    timestamp,
    wait_for,
)

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)",
    ),
    pytest.mark.skipif(
        shutil.which("redis-server") is None and not settings.REQUIRE_SERVICES,
        reason="needs the redis-server program (a private Redis per test stack)",
    ),
]

RACK = "ACEILMN"
TOP = {"word": "MELANIC", "ref": "H4", "score": 78}  # a top of RACK on the empty board
ROUND_SECONDS = 3
TOLD_WITHIN = 1.0  # after the deadline, a phone is told the round is closed within this


@dataclass
class Stack:
    folder: Path
    redis: RedisServer
    web: WebServer


@pytest.fixture(scope="module")
def stack(django_db_setup, tmp_path_factory):
    """A redis-server of its own and uvicorn on the test database; no worker, no beat."""
    folder = tmp_path_factory.mktemp("faults")
    redis = RedisServer.start(folder / "redis")
    web = None
    try:
        web = WebServer.start(folder, child_env(redis.url))
        yield Stack(folder, redis, web)
    finally:
        if web is not None:
            web.stop()
        redis.stop()


@pytest.fixture(autouse=True)
def own_cache(isolated_cache):
    """This process's own cache keys (its services notify through the shared test Redis)."""
    return isolated_cache


@pytest.fixture
def server_logs():
    """Processes whose log is printed after the test (shown by pytest when it fails)."""
    processes = []
    yield processes
    for process in processes:
        print(f"---- {process.name} ({process.log_path})\n{process.log(6000)}")


@dataclass
class Hall:
    game: Game
    arbitrator: str  # "Token <token>"
    players: list  # [(Player, bearer token)]

    @property
    def game_id(self) -> int:
        return self.game.pk

    def url(self, tail: str = "") -> str:
        return f"/api/games/{self.game_id}{tail}"

    def round(self, number: int) -> Round:
        return Round.objects.get(game_id=self.game_id, number=number)


@pytest.fixture
def hall(make_game, make_player, arbitrator):
    """``hall(players=2, round_seconds=3)``: a game, its players (with their bearer tokens) and an
    arbitrator's API token, made through the services."""

    def make(players: int = 2, round_seconds: int = ROUND_SECONDS) -> Hall:
        game = make_game(round_seconds=round_seconds)
        seats = [make_player(game, f"Player {n}", table=n) for n in range(1, players + 1)]
        key = issue_api_token(arbitrator)[0]
        return Hall(game, f"Token {key}", seats)

    return make


def draw(web, hall: Hall, rack: str | None = RACK) -> int:
    answer = web("POST", hall.url("/rounds"), {"rack": rack} if rack else {}, token=hall.arbitrator)
    assert answer.status == 201, answer
    return answer.json()["number"]


def start(web, hall: Hall, number: int) -> float:
    """Start the round; its deadline (a Unix time)."""
    answer = web("POST", hall.url(f"/rounds/{number}/start"), {}, token=hall.arbitrator)
    assert answer.status == 200 and answer.json()["status"] == "open", answer
    return timestamp(answer.json()["deadline"])


def slip(web, hall: Hall, number: int, seat: int, play: dict = TOP, **options):
    body = {**play, "key": uuid.uuid4().hex}
    return web("POST", hall.url(f"/rounds/{number}/slips"), body, token=hall.players[seat][1], **options)


def assert_error(answer, status: int, code: str) -> dict:
    assert answer.status == status, answer
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}, body
    assert body["error"]["code"] == code and body["error"]["message"], body
    return body["error"]


def results(hall: Hall, number: int) -> dict[int, Result]:
    return {r.player_id: r for r in Result.objects.filter(round=hall.round(number)).select_related("slip")}


def closes(hall: Hall, number: int) -> int:
    return LogEntry.objects.filter(round=hall.round(number), action="round_close").count()


# ---- 1. the worker killed just before the deadline ---------------------------------------------------------


def test_the_worker_killed_just_before_the_deadline_a_polling_phone_closes_the_round(stack, hall, server_logs):
    web = stack.web
    worker = Worker(stack.folder, child_env(stack.redis.url), name=f"worker-{uuid.uuid4().hex[:6]}")
    server_logs += [web, worker]
    try:
        h = hall(players=3, round_seconds=4)
        number = draw(web, h)
        # The worker consumes the queue: it computes the tops as soon as the rack is drawn.
        assert wait_for(lambda: Round.objects.filter(pk=h.round(number).pk, tops_ready=True).exists(), 30)
        deadline = start(web, h, number)
        assert slip(web, h, number, 0).status == 201
        # The worker holds the round's timer (received, due at the deadline) ...
        assert wait_for(lambda: "tournaments.tasks.close_round[" in worker.log(100_000), 5), worker.log()
        sleep_until(deadline - 1.0)
        assert h.round(number).status == Round.Status.OPEN
        worker.kill()  # ... and dies with it, 1 s before the deadline
        assert not worker.running and time.time() < deadline - 0.5

        # A phone polls the cheap live body every 100 ms through uvicorn.
        seen = None
        while seen is None and time.time() < deadline + 5:
            answer = web("GET", h.url("/live"), timeout=5)
            assert answer.status == 200, answer
            body = answer.json()
            assert body["round"] == number
            if body["round_status"] == "closed":
                seen = time.time()
            else:
                assert body["round_status"] == "open", body
                time.sleep(0.1)
    finally:
        worker.stop()
    assert seen is not None, "the round was never closed"
    assert seen - deadline < TOLD_WITHIN, f"told {seen - deadline:.2f} s after the deadline"
    rnd = h.round(number)
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at.timestamp() >= deadline
    got = results(h, number)
    assert set(got) == {player.pk for player, _ in h.players}
    first = h.players[0][0].pk
    assert got[first].paid == TOP["score"] and got[first].outcome == Result.Outcome.OK
    assert all(got[player.pk].reason == "no_slip" for player, _ in h.players[1:])
    assert closes(h, number) == 1


# ---- 2. no worker, no beat: the live streams' watcher closes the round ---------------------------------------


def test_with_no_worker_and_no_beat_every_phone_on_the_event_stream_is_told_the_close(stack, hall, server_logs):
    web = stack.web
    server_logs.append(web)
    h = hall(players=3, round_seconds=4)
    number = draw(web, h)
    deadline = start(web, h, number)
    assert slip(web, h, number, 1).status == 201
    phones = [Listener(web.port, h.game_id) for _ in range(4)]
    try:
        for phone in phones:
            told = phone.first(lambda e: e.get("round") == number and e.get("round_status") == "open", 10)
            assert told is not None, (phone.status, phone.error, phone.events)
        assert time.time() < deadline, "the phones were not all listening before the deadline"
        assert h.round(number).status == Round.Status.OPEN
        for phone in phones:
            told = phone.first(lambda e: e.get("round") == number and e.get("round_status") == "closed",
                               deadline + 5 - time.time())
            assert told is not None, (phone.status, phone.error, phone.events[-2:])
            moment, state = told
            assert moment - deadline < TOLD_WITHIN, f"told {moment - deadline:.2f} s after the deadline"
            assert state["last"]["number"] == number and state["last"]["top_score"] == TOP["score"]
    finally:
        for phone in phones:
            phone.close()
    got = results(h, number)
    assert set(got) == {player.pk for player, _ in h.players}
    assert got[h.players[1][0].pk].paid == TOP["score"]
    assert closes(h, number) == 1


# ---- 3. a request closes the round ---------------------------------------------------------------------------


def test_with_no_worker_the_first_request_after_the_deadline_closes_the_round(stack, hall, server_logs):
    web = stack.web
    server_logs.append(web)
    h = hall(players=2)
    number = draw(web, h)
    deadline = start(web, h, number)
    assert slip(web, h, number, 0).status == 201
    sleep_until(deadline + 0.3)
    assert h.round(number).status == Round.Status.OPEN  # nobody closed it yet

    late = slip(web, h, number, 1, timeout=5)
    assert_error(late, 409, "round_closed")
    assert late.seconds < 2, late
    rnd = h.round(number)
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at.timestamp() >= deadline
    got = results(h, number)
    assert set(got) == {player.pk for player, _ in h.players}
    assert got[h.players[0][0].pk].paid == TOP["score"]
    assert got[h.players[1][0].pk].reason == "late"  # the refused slip is on record (rules §4), not judged
    assert not Slip.objects.filter(round=rnd, player=h.players[1][0]).exists()
    assert closes(h, number) == 1

    # Another round: the arbitrator's console reading the game after its deadline closes it.
    second = draw(web, h, rack=None)
    deadline = start(web, h, second)
    assert slip(web, h, second, 1, play={"word": "XX", "ref": "A1", "score": 1}).status == 201
    sleep_until(deadline + 0.3)
    assert h.round(second).status == Round.Status.OPEN
    answer = web("GET", h.url(), token=h.arbitrator, timeout=5)
    assert answer.status == 200, answer
    assert answer.json()["round"] == second and answer.json()["round_status"] == "closed"
    assert h.round(second).status == Round.Status.CLOSED
    got = results(h, second)
    assert set(got) == {player.pk for player, _ in h.players}
    assert got[h.players[1][0].pk].outcome == Result.Outcome.ZERO and got[h.players[1][0].pk].slip is not None
    assert closes(h, second) == 1


# ---- 4. a slip that arrived in time, served after the close --------------------------------------------------


def test_a_slip_whose_headers_arrived_before_the_deadline_is_late_when_its_body_comes_after_the_close(
    stack, hall, server_logs
):
    """The late-top attack against uvicorn in its own process: the head of a slip sent before the deadline,
    the tops read after the close with the player's own token, then the body with the top. A slip has
    arrived when its last byte has: refused as late, kept on record, never paid."""
    web = stack.web
    server_logs.append(web)
    h = hall(players=2)
    number = draw(web, h)
    deadline = start(web, h, number)
    (slow, token), (other, _) = h.players
    body = json.dumps({**TOP, "key": "slow-phone"}).encode()
    head = (
        f"POST {h.url(f'/rounds/{number}/slips')} HTTP/1.1\r\nHost: {HOST}:{web.port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    sock = socket.create_connection((HOST, web.port), timeout=15)
    try:
        sleep_until(deadline - 0.8)
        sock.sendall(head)  # the request's line and headers, in time ...
        assert time.time() < deadline - 0.3

        # ... then the deadline passes and a phone's poll closes the round: its tops are published.
        sleep_until(deadline + 0.1)
        closed = wait_for(lambda: web("GET", h.url("/live"), timeout=5).json()["round_status"] == "closed", 5,
                          step=0.1)
        assert closed
        shown = web("GET", h.url(f"/rounds/{number}"), token=token, timeout=5)
        assert shown.status == 200 and shown.json()["status"] == "closed"

        sock.sendall(body)  # ... and only now the body
        body_at = time.time()
        response = http.client.HTTPResponse(sock)
        response.begin()
        answer = json.loads(response.read())
    finally:
        sock.close()
    assert response.status == 409 and answer["error"]["code"] == "round_closed", answer
    assert 0 < answer["error"]["fields"]["late_by"] <= body_at - deadline + 0.5
    assert not Slip.objects.filter(round=h.round(number), player=slow).exists()
    assert LateSlip.objects.get(round=h.round(number), player=slow).word == TOP["word"]
    result = results(h, number)[slow.pk]
    assert result.paid == 0 and result.slip_id is None
    assert not LogEntry.objects.filter(round=h.round(number), action="slip_judged_late").exists()
    assert closes(h, number) == 1

    # A slip whose headers arrive after the deadline is refused the same way.
    assert_error(slip(web, h, number, 1), 409, "round_closed")
    assert results(h, number)[other.pk].reason == "late"
    assert not Slip.objects.filter(round=h.round(number), player=other).exists()


# ---- 5. Redis unreachable -----------------------------------------------------------------------------------


def test_with_redis_down_every_change_is_saved_and_answered_and_the_feed_serves_the_database(
    hall, tmp_path, server_logs
):
    redis = RedisServer.start(tmp_path / "redis")
    port = redis.port
    web = phone = None
    try:
        web = WebServer.start(tmp_path, child_env(redis.url), name="web-cache")
        server_logs += [web]
        h = hall(players=2, round_seconds=60)
        assert web("GET", "/healthz").status == 200
        phone = Listener(web.port, h.game_id)
        assert phone.first(lambda e: e.get("game_id") == h.game_id and not e.get("degraded"), 10), phone.error

        redis.kill()  # the cache and the broker with it
        quick = 5.0  # seconds: a dead cache costs a request one refused connect, the broker about a second

        answer = web("POST", h.url("/rounds"), {"rack": RACK}, token=h.arbitrator)
        assert answer.status == 201 and answer.seconds < quick, answer
        assert h.round(1).status == Round.Status.DRAWN and h.round(1).rack == RACK

        answer = web("POST", h.url("/rounds/1/start"), {}, token=h.arbitrator)
        assert answer.status == 200 and answer.seconds < quick, answer
        assert h.round(1).status == Round.Status.OPEN

        answer = slip(web, h, 1, 0)
        assert answer.status == 201 and answer.seconds < quick, answer
        assert Slip.objects.filter(round=h.round(1), player=h.players[0][0], current=True).exists()

        answer = web("POST", h.url("/rounds/1/close"), {}, token=h.arbitrator)
        assert answer.status == 200 and answer.json()["closed"] is True and answer.seconds < quick, answer
        assert h.round(1).status == Round.Status.CLOSED
        got = results(h, 1)
        assert len(got) == 2 and got[h.players[0][0].pk].paid == TOP["score"]

        health = web("GET", "/healthz")
        assert health.status == 503 and health.seconds < 8, health
        assert health.json()["cache"]["up"] is False and health.json()["database"]["up"] is True

        live = web("GET", f"/games/{h.game_id}/live")
        assert live.status == 200, live
        state = live.json()
        assert state["degraded"] is True
        assert (state["round"], state["round_status"]) == (1, "closed")
        assert state["last"]["top_score"] == TOP["score"]
        # The phone on the stream is told the same, from the database alone.
        assert phone.first(lambda e: e.get("degraded") and e.get("round_status") == "closed", 5), phone.events[-2:]

        # Redis is back on the same port (empty): health recovers, and the feed follows new changes.
        redis = RedisServer(tmp_path / "redis", port=port)
        assert wait_for(lambda: web("GET", "/healthz").status == 200, 15, step=0.25), web("GET", "/healthz")
        answer = web("POST", h.url("/rounds"), {}, token=h.arbitrator)
        assert answer.status == 201, answer
        second = answer.json()["number"]
        live = web("GET", f"/games/{h.game_id}/live").json()
        assert not live.get("degraded") and (live["round"], live["round_status"]) == (second, "drawn"), live
        told = phone.first(lambda e: e.get("round") == second and not e.get("degraded"), 5)
        assert told is not None, (phone.error, phone.events[-2:])
    finally:
        if phone is not None:
            phone.close()
        if web is not None:
            web.stop()
        redis.stop()


# ---- 6. a view fails ------------------------------------------------------------------------------------------


def test_an_unexpected_failure_answers_500_in_the_error_shape_logged_and_nothing_saved(
    hall, monkeypatch, caplog
):
    from tournaments import services
    from tournaments.services import clock, draw, slips

    # No task leaves this process (the shared test broker is not this test's business).
    monkeypatch.setattr(clock, "_schedule_close", lambda *args: None)
    monkeypatch.setattr(draw, "_schedule_tops", lambda *args: None)
    h = hall(players=1, round_seconds=60)
    game_round = services.round_start(round=services.round_draw(game=h.game, rack=RACK))
    entries = LogEntry.objects.count()

    def broken(*args, **kwargs):
        raise RuntimeError("the notification failed in an unexpected way")

    # Raised inside the slip's transaction, after the slip row was written.
    monkeypatch.setattr(slips, "notify_progress", broken)
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.post(
            h.url(f"/rounds/{game_round.number}/slips"), data=json.dumps({**TOP, "key": "k"}),
            content_type="application/json", headers={"Authorization": f"Bearer {h.players[0][1]}"},
        )
    assert response.status_code == 500
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == "server_error" and body["error"]["message"]
    logged = [r for r in caplog.records if r.name == "django.request" and r.levelno >= logging.ERROR]
    assert logged and logged[0].exc_info and logged[0].exc_info[0] is RuntimeError
    assert not Slip.objects.filter(round=game_round).exists()
    assert LogEntry.objects.count() == entries
    assert Round.objects.get(pk=game_round.pk).status == Round.Status.OPEN


# ---- 7. the database pool exhausted -----------------------------------------------------------------------


def test_with_the_pool_exhausted_every_answer_is_a_success_or_a_503_with_retry_after(
    stack, hall, tmp_path, server_logs
):
    # No limit on requests in flight (reads are not limited anyway), so that the burst reaches the pool.
    env = child_env(stack.redis.url, DB_POOL_MAX_SIZE="1", DB_POOL_MIN_SIZE="0", DB_POOL_TIMEOUT="0.3",
                    REQUESTS_IN_FLIGHT="0")
    web = WebServer.start(tmp_path, env, name="web-pool")
    server_logs.append(web)
    try:
        h = hall(players=2)
        assert web("GET", h.url(), token=h.arbitrator).status == 200  # warm: URLs, views, lexicon loaded
        answers = []
        for _ in range(3):  # bursts of 100 at once, until one overflows the pool (30 at once did not always)
            answers += burst(web, h, 100)
            if any(a.status == 503 for a in answers):
                break
    finally:
        web.stop()
    statuses = sorted({a.status for a in answers})
    assert set(statuses) <= {200, 503}, [a for a in answers if a.status not in (200, 503)][:3]
    assert 503 in statuses and 200 in statuses, statuses
    for answer in answers:
        if answer.status == 503:
            assert int(answer.headers["retry-after"]) > 0, answer.headers
            assert_error(answer, 503, "unavailable")
        else:
            assert answer.json()["id"] == h.game_id
    assert "Internal Server Error" not in web.log(200_000)


def burst(web, h: Hall, count: int) -> list:
    """``count`` requests sent at once, each on its own connection (threads)."""
    gate = threading.Barrier(count)
    answers: list = [None] * count

    def one(index: int) -> None:
        gate.wait(timeout=10)
        try:
            answers[index] = web("GET", h.url(), token=h.arbitrator, timeout=20)
        except Exception as error:  # kept: a dropped connection is a failure of the test
            answers[index] = error

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    failures = [a for a in answers if not hasattr(a, "status")]
    assert not failures, failures[:3]
    return answers
