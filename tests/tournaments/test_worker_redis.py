"""The worker and Redis: compose's worker (its very command, docker/compose.yml) rides out Redis lost in the
middle of a round and started again, empty, before the deadline. The round closes on time, by the worker alone
(no beat, no request after the deadline), every slip handed in is there and judged, the worker is the same
process, and /healthz reports it beating again.

Real processes (tests/tournaments/stack.py): a redis-server of the test's own on a free loopback port (the one
that is killed), uvicorn and the worker on the pytest-django PostgreSQL database.
"""

from __future__ import annotations

import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.db import connection

from tournaments.models import Result, Round, Slip
from tournaments.security import issue_api_token

from .stack import ROOT, START_SECONDS, Process, RedisServer, WebServer, child_env, timestamp, wait_for

SERVICES = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)",
    ),
    pytest.mark.skipif(
        shutil.which("redis-server") is None and not settings.REQUIRE_SERVICES,
        reason="needs the redis-server program (a Redis of the test's own, killed and started again)",
    ),
]


def needs_services(test):
    """PostgreSQL, Redis and a redis-server of the test's own; skipped, with the reason, without them."""
    for mark in SERVICES:
        test = mark(test)
    return test

RACK = "ACEILMN"
TOP = {"word": "MELANIC", "ref": "H4", "score": 78}  # a top of RACK on the empty board
# Long enough for the slips, the kill, and the worker's reconnection (its retries come 2 s, then 4 s apart) to
# happen before the deadline on a loaded machine.
ROUND_SECONDS = 20
ON_TIME = 2.0  # the close comes within this after the deadline
HEARTBEAT = {"WORKER_HEARTBEAT_SECONDS": "1", "WORKER_SILENT_SECONDS": "5"}


def compose_worker_command() -> list[str]:
    """docker/compose.yml's worker command, with this interpreter's celery."""
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    command = compose["services"]["worker"]["command"]
    assert command[0] == "celery", command
    return [sys.executable, "-m", "celery", *command[1:]]


class ComposeWorker(Process):
    def __init__(self, folder: Path, env: dict[str, str]):
        super().__init__("worker", compose_worker_command(), env, folder / "worker.log")

        def ready():
            if not self.running:
                raise RuntimeError(f"the worker stopped: {self.log()}")
            return " ready." in self.full_log()

        try:
            if not wait_for(ready, START_SECONDS, step=0.1):
                raise RuntimeError(f"the worker did not start: {self.log()}")
        except BaseException:
            self.stop()
            raise

    def full_log(self) -> str:
        return self.log(tail=10_000_000)


def test_the_worker_tries_to_reconnect_for_as_long_as_redis_is_away():
    """Celery's default gives up after 100 tries (some 46 minutes, the tries 2 s more apart each time up to
    30 s) and the worker exits: an evening's Redis outage must not end it. The worker's own configuration."""
    from arbiter.celery import app

    assert app.conf.broker_connection_retry is True
    assert app.conf.broker_connection_max_retries is None  # no limit
    assert app.conf.worker_consumer == "arbiter.celery:Consumer"  # the consumer that outlives the loss


@needs_services
def test_the_worker_rides_out_redis_lost_mid_round_and_the_round_closes_on_time(
    make_game, make_player, arbitrator, tmp_path
):
    redis = RedisServer.start(tmp_path / "redis")
    port = redis.port
    env = child_env(redis.url, **HEARTBEAT)
    web = worker = None
    try:
        web = WebServer.start(tmp_path, env)
        worker = ComposeWorker(tmp_path, env)
        pid = worker.popen.pid

        game = make_game(round_seconds=ROUND_SECONDS)
        seats = [make_player(game, f"Player {n}", table=n) for n in (1, 2, 3)]
        token = f"Token {issue_api_token(arbitrator)[0]}"
        url = f"/api/games/{game.pk}"

        def slip(seat: int):
            body = {**TOP, "key": uuid.uuid4().hex}
            return web("POST", f"{url}/rounds/1/slips", body, token=seats[seat][1])

        answer = web("POST", f"{url}/rounds", {"rack": RACK}, token=token)
        assert answer.status == 201, answer
        assert wait_for(lambda: Round.objects.filter(game=game, number=1, tops_ready=True).exists(), 30)  # a bound
        answer = web("POST", f"{url}/rounds/1/start", {}, token=token)
        assert answer.status == 200, answer
        deadline = timestamp(answer.json()["deadline"])
        # The worker holds the close, due at the deadline.
        assert wait_for(lambda: "tournaments.tasks.close_round[" in worker.full_log(), 10), worker.log()
        for seat in (0, 1):
            assert (answer := slip(seat)).status == 201, answer
        assert wait_for(lambda: web("GET", "/healthz").status == 200, 10, step=0.2), web("GET", "/healthz")

        redis.kill()  # the broker and the cache
        assert wait_for(lambda: "Connection to broker lost" in worker.full_log(), 10), worker.log()
        assert (answer := slip(2)).status == 201, answer  # handed in while Redis is away: saved all the same

        redis = RedisServer(tmp_path / "redis", port=port)  # back on its port, empty (it kept nothing)
        assert time.time() < deadline - 5, "Redis came back too late for this test's timing"
        assert wait_for(lambda: worker.full_log().count("Connected to redis") >= 2, deadline - time.time()), worker.log()

        closed = wait_for(lambda: Round.objects.filter(game=game, number=1, status=Round.Status.CLOSED).first(),
                          deadline - time.time() + ON_TIME + 1, step=0.05)
        assert closed is not None, f"the round did not close: {worker.log()}"
        assert 0 <= closed.closed_at.timestamp() - deadline < ON_TIME, (closed.closed_at, deadline)

        assert worker.running and worker.popen.pid == pid, worker.log()
        slips = Slip.objects.filter(round=closed, current=True)
        assert sorted(s.player_id for s in slips) == sorted(p.pk for p, _ in seats)
        results = {r.player_id: r for r in Result.objects.filter(round=closed)}
        assert set(results) == {p.pk for p, _ in seats}
        assert all(r.paid == TOP["score"] and r.outcome for r in results.values()), results

        def beating():
            answer = web("GET", "/healthz")
            return answer.status == 200 and answer.json()["worker"]["state"] == "beating" and answer

        assert wait_for(beating, 15, step=0.2), web("GET", "/healthz")
    finally:
        for process in (worker, web):
            if process is not None:
                print(f"---- {process.name} ({process.log_path})\n{process.log(6000)}")
                process.stop()
        redis.stop()
