"""Fixtures of the tests of tournaments/: games set up through HTTP (``api_game``) and a short game played
through the services for the sheets and exports (``played_game``). Helpers live in api_support.py and
sheets_support.py; the fixtures shared by every folder are in tests/conftest.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .api_support import ApiGame, PlayerSeat, bearer_client, expect
from .sheets_support import PlayedGame, load_played_game, play_game, save_played_game

ROOT = Path(__file__).resolve().parents[2]


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
def console(client, arbitrator):
    """A test client signed in to the console as ``arbitrator`` (``console.user``)."""
    client.force_login(arbitrator)
    client.user = arbitrator
    return client


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


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A Celery worker process on the test database and the test Redis (on this test process's own queue:
    arbiter/settings/test.py), for the modules that test the clock with a real worker."""
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection

    from tournaments.tasks import ping

    db = connection.settings_dict
    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"postgres://{user}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        REDIS_URL=settings.BROKER.redis_url,
        DJANGO_SETTINGS_MODULE="arbiter.settings.test",
        LEXICON_CACHE_DIR=str(settings.LEXICON_CACHE_DIR),
    )
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "arbiter", "worker", "--purge", "--pool", "threads",
             "--concurrency", "4", "--loglevel", "info", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        token = uuid.uuid4().hex
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"the worker stopped: {log.read_text()[-3000:]}")
            ping.delay(token)
            time.sleep(0.5)
            if cache.get(f"ping:{token}") == "pong":
                break
        else:
            pytest.fail(f"the worker did not answer: {log.read_text()[-3000:]}")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def uvicorn_server(transactional_db, settings, isolated_cache):
    """arbiter.asgi.application served by uvicorn in a thread of this process (so on the embedded default
    too), with the production server's guard (arbiter/server.py): (host, port)."""
    import socket
    import threading
    import time

    import uvicorn

    from arbiter.asgi import application
    from arbiter.server import GuardedHTTPProtocol

    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(application, lifespan="off", log_level="warning", timeout_graceful_shutdown=2,
                            http=GuardedHTTPProtocol, timeout_keep_alive=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    yield sock.getsockname()
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()
