"""The push of a centre's results file to the organiser (tournaments/centre_results.py, tasks.push_centre_results),
with a real Celery worker on Redis and PostgreSQL and an organiser that is a live HTTP server on 127.0.0.1: not
acknowledged (503) the push is tried again until it is, and lands once; a push while the organiser is down is
tried again and lands once when it comes back; a refusal (4xx) is kept and not tried again."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.db import connection

from tournaments import centre, packs, results_files, services
from tournaments.models import CentreResults, Round

from .stack import HOST, Worker, child_env, free_port, wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)",
    ),
]

EVENT = "Simultané d'automne"
TOKEN = "centre-push-token"
ROUNDS = 2
WAIT = 30  # seconds: a bound, not a timing


class Organiser:
    """The organiser's results endpoint as a live server: answers each POST with the next of ``script`` (then
    200), "already received" for a content hash it acknowledged before; records every POST it answered."""

    def __init__(self):
        self.port = free_port()
        self.script: list[tuple[int, dict]] = []
        self.posts: list[dict] = []
        self.acknowledged: set[str] = set()
        self.server = None
        self.lock = threading.Lock()

    def start(self) -> None:
        organiser = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                digest = results_files.results_sha256(json.loads(body))
                with organiser.lock:
                    if organiser.script:
                        status, answer = organiser.script.pop(0)
                    elif digest in organiser.acknowledged:
                        status, answer = 200, {"status": "already_received", "message": "already received"}
                    else:
                        status, answer = 201, {"status": "accepted", "message": "accepted"}
                    if 200 <= status < 300:
                        organiser.acknowledged.add(digest)
                    organiser.posts.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                            "sha256": digest, "status": status, "body": body})
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((HOST, self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def landed(self, digest: str) -> list[dict]:
        return [p for p in self.posts if p["sha256"] == digest and 200 <= p["status"] < 300]


@pytest.fixture(scope="module")
def organiser_key():
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def centre_key():
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def organiser():
    server = Organiser()
    server.start()
    yield server
    if server.server is not None:
        try:
            server.stop()
        except OSError:
            pass


@pytest.fixture(scope="module")
def centre_worker(django_db_setup, django_db_blocker, tmp_path_factory, organiser, centre_key):
    """A Celery worker of this centre: the organiser's address, the event's id there and the push token set,
    quick retries, and the centre's own signing key."""
    seed = centre_key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                    serialization.NoEncryption())
    with django_db_blocker.unblock():
        env = child_env(settings.BROKER.redis_url, ORGANISER_URL=f"http://{HOST}:{organiser.port}",
                        ORGANISER_EVENT="7", ORGANISER_TOKEN=TOKEN, CENTRE_ID="centre-vichy",
                        RESULTS_PUSH_FIRST_DELAY="0.2", RESULTS_PUSH_MAX_DELAY="0.5", RESULTS_PUSH_ATTEMPTS="60",
                        SIGNING_KEY=base64.b64encode(seed).decode())
    worker = Worker(tmp_path_factory.mktemp("centre-worker"), env)
    yield worker
    worker.stop()


def _version(game, sequence: int, predicate) -> CentreResults | None:
    def found():
        version = CentreResults.objects.filter(game=game, sequence=sequence).first()
        return version if version is not None and predicate(version) else None

    return wait_for(found, WAIT, step=0.1)


def _play(game, arbitrator, recorded, player) -> Round:
    round = services.round_start(round=services.round_draw(game=game, actor=arbitrator), actor=arbitrator)
    master = packs.play_to_dict(recorded.master, "rows-numbers")
    services.slip_submit(round=round, player=player, word=master["word"], ref=master["ref"], score=master["score"],
                         key=f"r{round.number}")
    assert services.round_close(round=round, actor=arbitrator)
    return Round.objects.get(pk=round.pk)


def test_the_push_is_tried_again_until_acknowledged_and_lands_once(
        centre_worker, organiser, organiser_key, centre_key, settings, arbitrator, make_tournament, make_player):
    # One test, so that one worker at a time consumes the queue.
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser_key)]
    game_file = packs.draw_game_file(seed=20261126, max_rounds=ROUNDS, labelling="rows-numbers")
    pack, key = packs.seal_pack(game_file, event=EVENT, game_id="G1", signer=organiser_key)
    tournament = make_tournament(name="Club", created_by=arbitrator)
    game = centre.pack_import(tournament=tournament, raw=packs.pack_bytes(pack), actor=arbitrator)
    centre.pack_unlock(game=game, key=packs.key_text(key), actor=arbitrator)
    ada, _ = make_player(game, "Ada", table=1)
    rounds = game_file.game.rounds

    # The organiser answers 503 twice, then acknowledges: three attempts, one lands.
    organiser.script = [(503, {"detail": "busy"}), (503, {"detail": "busy"})]
    round = _play(game, arbitrator, rounds[0], ada)
    first = _version(game, 1, lambda v: v.push_state == CentreResults.Push.SENT)
    assert first is not None, (CentreResults.objects.filter(game=game).values(), centre_worker.log())
    assert first.push_attempts == 3 and first.push_answer["status"] == 201 and not first.final
    assert [p["status"] for p in organiser.posts] == [503, 503, 201]
    assert {p["sha256"] for p in organiser.posts} == {first.sha256}
    assert len(organiser.landed(first.sha256)) == 1
    assert {(p["path"], p["auth"]) for p in organiser.posts} == {("/api/events/7/results", f"Bearer {TOKEN}")}
    # What landed is the centre's file, signed with its key, and verifies against the pack's game.
    verified = results_files.verify_results(organiser.posts[-1]["body"], centre_key=packs.public_text(centre_key),
                                            game_file=game_file, event=EVENT, pack_sha256=packs.pack_sha256(pack))
    assert (verified.centre, verified.sequence, verified.differences) == ("centre-vichy", 1, ())
    assert round.number == 1

    # The organiser is down when the last round closes: tried again, and lands once when it is back.
    organiser.stop()
    _play(game, arbitrator, rounds[1], ada)
    waiting = _version(game, 2, lambda v: v.push_attempts >= 2)
    assert waiting is not None and waiting.push_state == CentreResults.Push.PENDING and waiting.final
    assert waiting.push_answer["status"] is None  # no answer: refused connection
    organiser.start()
    second = _version(game, 2, lambda v: v.push_state == CentreResults.Push.SENT)
    assert second is not None, centre_worker.log()
    assert len(organiser.landed(second.sha256)) == 1
    assert [p["sha256"] for p in organiser.posts].count(second.sha256) == 1
    assert CentreResults.objects.filter(game=game).count() == 2  # the round's close and the end: one version

    # A refusal (4xx) is kept, with the organiser's words, and not tried again.
    organiser.script = [(409, {"error": {"code": "results_outdated", "message": "an earlier version"}})]
    result = Round.objects.get(game=game, number=2).results.get(player=ada)
    services.result_override(result=result, paid=10, outcome="ok", reason="ruled by the head", actor=arbitrator)
    third = _version(game, 3, lambda v: v.push_state == CentreResults.Push.REFUSED)
    assert third is not None, centre_worker.log()
    assert third.push_answer == {"status": 409, "code": "results_outdated", "message": "an earlier version"}
    time.sleep(1.5)  # three retry delays: nothing more is sent
    assert [p["sha256"] for p in organiser.posts].count(third.sha256) == 1
    assert CentreResults.objects.get(pk=third.pk).push_attempts == 1
