"""The server on two web hosts behind HAProxy, with one PostgreSQL and one Redis (docker/haproxy-hosts.cfg).

Each "host" is a network namespace of its own made by the test (tests/tournaments/stack.py, Namespace),
linked to this one by a veth pair in a private 10.231.N.0/24 the test finds free. In it run the host's own
uvicorn (arbiter.asgi, two processes, as the image runs it) and its Celery worker. A namespace cannot see
this machine's 127.0.0.1: the hosts reach the test's redis-server on their link's address (it listens
there too) and PostgreSQL through a forwarder the test runs on that address. HAProxy (the system's
/usr/sbin/haproxy) runs here on a loopback port with docker/haproxy-hosts.cfg as shipped, its hosts given by
the environment, health checks on /healthz. Phones and the arbitrator speak only to the proxy; its
X-Served-By names the host that answered, and each host's own access log confirms it.

Everything is taken down in a finally: processes killed by their group, namespaces deleted (their links with
them), even when the test fails. Needs root (ip netns), the ip and haproxy programs, PostgreSQL and Redis.
"""

from __future__ import annotations

import http.client
import os
import secrets
import shutil
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tournaments.models import Result, Round, Slip
from tournaments.security import issue_api_token

from .stack import (
    HOST,
    Answer,
    Forwarder,
    Listener,
    Namespace,
    Process,
    Proxy,
    RedisServer,
    WebServer,
    Worker,
    child_env,
    database_address,
    database_url,
    free_subnets,
    haproxy_program,
    ip_program,
    request,
    timestamp,
    wait_for,
)

MISSING = [name for name, found in (("ip", ip_program()), ("haproxy", haproxy_program()),
                                     ("redis-server", shutil.which("redis-server"))) if found is None]

pytestmark = [
    pytest.mark.hosts,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)",
    ),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the hosts are network namespaces (ip netns add)"),
    pytest.mark.skipif(
        bool(MISSING) and not settings.REQUIRE_SERVICES,
        reason=f"needs the programs {', '.join(MISSING)} (network namespaces, the proxy, a Redis of its own)",
    ),
]

RACK = "ACEILMN"
TOP = {"word": "MELANIC", "ref": "H4", "score": 78}  # a top of RACK on the empty board
PLAY = {"word": "LIMACE", "ref": "8D", "score": 20}  # any slip: round 2's is judged, whatever it scores
ROUND_SECONDS = 120  # the test closes its rounds itself, well before
PHONES = 12
TOLD_WITHIN = 10.0  # a live stream is told of a change within this (bounded waits; a loaded CI machine)


@dataclass
class Host:
    name: str  # the proxy's name for it: host1, host2
    namespace: Namespace
    forwarder: Forwarder
    web: WebServer
    worker: Worker

    def kill(self) -> None:
        """Every process of the host, SIGKILL, as a machine gone would leave them."""
        self.web.kill()
        self.worker.kill()

    def served(self, method: str, path: str) -> int:
        """How many requests ``method path`` this host's uvicorn logged (its access log)."""
        return self.web.log(tail=10_000_000).count(f'"{method} {path} HTTP/1.1"')


@dataclass
class Hall:
    proxy: Proxy
    hosts: dict[str, Host]
    game_id: int
    arbitrator: str
    players: list  # [(Player, bearer token)]

    def __call__(self, method: str, path: str, body=None, token: str | None = None) -> Answer:
        return request(self.proxy.port, method, path, body=body, token=token, timeout=20)

    def url(self, tail: str = "") -> str:
        return f"/api/games/{self.game_id}{tail}"

    def round(self, number: int) -> Round:
        return Round.objects.get(game_id=self.game_id, number=number)

    def aim(self, name: str) -> None:
        """Make the next request go to host ``name``: no stickiness, so the proxy takes turns (round
        robin); a read shows whose turn it was."""
        for _ in range(4):
            if served_by(self("GET", self.url("/live"))) != name:
                return
        raise AssertionError(f"the proxy sent four reads in a row to {name}")


def served_by(answer: Answer | Listener) -> str | None:
    """The host that answered, as the proxy names it."""
    return answer.headers.get("x-served-by")


@pytest.fixture
def two_hosts(django_db_setup, tmp_path: Path):
    """{"host1": Host, "host2": Host} and the Proxy in front of them, on one redis-server and the test
    database; the namespaces deleted at the end whatever happened."""
    folder = tmp_path
    namespaces: list[Namespace] = []
    forwarders: list[Forwarder] = []
    processes: list[Process] = []
    hosts: dict[str, Host] = {}
    redis = proxy = None
    try:
        Namespace.sweep()  # what a run killed before its finally left behind
        for letter, subnet in zip("ab", free_subnets(2), strict=True):
            namespaces.append(Namespace(f"arbiter-{os.getpid()}-{letter}", subnet))
        redis = RedisServer.start(folder / "redis", also=tuple(ns.outside for ns in namespaces))
        # One installation on several hosts: one SECRET_KEY (sessions, tokens, and the key that seals the
        # receipts: a receipt made on one host is the same made again on the other).
        secret = secrets.token_urlsafe(48)
        for n, namespace in enumerate(namespaces, 1):
            forwarder = Forwarder(namespace.outside, database_address())
            forwarders.append(forwarder)
            env = child_env(
                redis.url_at(namespace.outside),
                DATABASE_URL=database_url(at=(namespace.outside, forwarder.port)),
                ALLOWED_HOSTS=f"{HOST},{namespace.inside}",
                TRUSTED_PROXIES="1",  # one proxy in front: the phone's address is X-Forwarded-For's last
                SECRET_KEY=secret,
            )
            web = WebServer(folder, env, name=f"web{n}", host=namespace.inside, netns=namespace.name, workers=2)
            processes.append(web)
            worker = Worker(folder, env, name=f"worker{n}", netns=namespace.name)
            processes.append(worker)
            hosts[f"host{n}"] = Host(f"host{n}", namespace, forwarder, web, worker)
        proxy = Proxy(folder, [host.web.address for host in hosts.values()])
        processes.append(proxy)
        yield proxy, hosts
    finally:
        for process in processes:
            process.stop()
            print(f"---- {process.name} ({process.log_path})\n{process.log(3000)}")
        for forwarder in forwarders:
            forwarder.stop()
        if redis is not None:
            redis.stop()
        for namespace in namespaces:
            namespace.delete()
        assert not any(namespace.exists for namespace in namespaces), "a namespace was left behind"


@pytest.fixture
def hall(two_hosts, make_game, make_player, arbitrator, isolated_cache):
    proxy, hosts = two_hosts
    game = make_game(round_seconds=ROUND_SECONDS)
    seats = [make_player(game, f"Player {n}", table=n) for n in range(1, PHONES + 1)]
    return Hall(proxy, hosts, game.pk, f"Token {issue_api_token(arbitrator)[0]}", seats)


def draw_and_start(hall: Hall, rack: str | None) -> int:
    drawn = hall("POST", hall.url("/rounds"), {"rack": rack} if rack else {}, token=hall.arbitrator)
    assert drawn.status == 201, drawn
    number = drawn.json()["number"]
    started = hall("POST", hall.url(f"/rounds/{number}/start"), {}, token=hall.arbitrator)
    assert started.status == 200 and started.json()["status"] == "open", started
    assert timestamp(started.json()["deadline"]) > time.time() + 30
    return number


def send(hall: Hall, number: int, seat: int, key: str, play: dict) -> Answer:
    return hall("POST", hall.url(f"/rounds/{number}/slips"), {**play, "key": key}, token=hall.players[seat][1])


def told(listener: Listener, number: int, status: str):
    return listener.first(lambda e: e.get("round") == number and e.get("round_status") == status, TOLD_WITHIN)


def test_two_hosts_behind_haproxy_any_host_serves_and_a_host_killed_mid_round_loses_nothing(hall):
    host_a, host_b = hall.hosts["host1"], hall.hosts["host2"]
    listeners: list[Listener] = []
    try:
        # ---- any request to any host: one phone's requests, on one kept-alive connection, land on both
        token = hall.players[0][1]
        conn = http.client.HTTPConnection(HOST, hall.proxy.port, timeout=20)
        served = []
        try:
            for _ in range(6):
                conn.request("GET", hall.url("/me"), headers={"Host": f"{HOST}:{hall.proxy.port}",
                                                             "Authorization": f"Bearer {token}"})
                answer = conn.getresponse()
                answer.read()
                assert answer.status == 200, answer.status
                served.append(answer.getheader("X-Served-By"))
        finally:
            conn.close()
        assert set(served) == {"host1", "host2"}, served
        assert host_a.served("GET", hall.url("/me")) == served.count("host1")
        assert host_b.served("GET", hall.url("/me")) == served.count("host2")

        # ---- round 1: a slip accepted through host A, the close run on host B, both hosts' streams told
        number = draw_and_start(hall, RACK)
        listeners = [Listener(hall.proxy.port, hall.game_id) for _ in range(2)]
        for listener in listeners:
            assert listener.answered(TOLD_WITHIN) and listener.status == 200, (listener.status, listener.error)
        assert {served_by(listener) for listener in listeners} == {"host1", "host2"}
        for listener in listeners:
            assert told(listener, number, "open") is not None, (listener.error, listener.events)

        hall.aim("host1")
        accepted = send(hall, number, 0, uuid.uuid4().hex, TOP)
        assert accepted.status == 201 and served_by(accepted) == "host1", accepted
        slips = hall.url(f"/rounds/{number}/slips")
        assert (host_a.served("POST", slips), host_b.served("POST", slips)) == (1, 0)

        hall.aim("host2")
        closed = hall("POST", hall.url(f"/rounds/{number}/close"), {}, token=hall.arbitrator)
        assert closed.status == 200 and closed.json()["closed"] is True and served_by(closed) == "host2", closed
        close = hall.url(f"/rounds/{number}/close")
        assert (host_a.served("POST", close), host_b.served("POST", close)) == (0, 1)

        for listener in listeners:  # the stream on host A too: it learns of B's close through Redis
            seen = told(listener, number, "closed")
            assert seen is not None, (served_by(listener), listener.error, listener.events[-2:])
            assert seen[1]["last"]["number"] == number and seen[1]["last"]["top_score"] == TOP["score"]
        first = Result.objects.get(round=hall.round(number), player=hall.players[0][0])
        assert first.slip_id == accepted.json()["id"] and first.paid == TOP["score"]

        # ---- round 2: host A killed mid-round
        number = draw_and_start(hall, None)
        keys = [uuid.uuid4().hex for _ in range(PHONES)]
        half = PHONES // 2
        answers: dict[int, Answer] = {}
        for seat in range(half):
            answers[seat] = send(hall, number, seat, keys[seat], PLAY)
            assert answers[seat].status == 201, answers[seat]
        assert {served_by(answers[seat]) for seat in range(half)} == {"host1", "host2"}
        redispatched = int(hall.proxy.stat("host1")["wredis"])

        # Host A hangs with two requests in its hands, then dies: a phone's slip, whose answer never comes
        # from A, is sent again to B by the proxy (a keyed slip: harmless twice); the arbitrator's pause is
        # not (a change without a key): its sender gets the proxy's 502, and the round is not paused.
        lost: dict[str, Answer] = {}
        hall.aim("host1")
        streams = int(hall.proxy.stat("host1")["scur"])  # round 1's live stream held on host A

        def in_hand(count: int) -> bool:
            return int(hall.proxy.stat("host1")["scur"]) == streams + count

        host_a.web.freeze()
        seat = half
        threads = [threading.Thread(target=lambda: lost.update(slip=send(hall, number, seat, keys[seat], PLAY)))]
        threads[0].start()
        assert wait_for(lambda: in_hand(1), 5), hall.proxy.stat("host1")
        read = hall("GET", hall.url("/live"))
        assert read.status == 200 and served_by(read) == "host2", read
        pause = hall.url(f"/rounds/{number}/pause")
        threads.append(threading.Thread(
            target=lambda: lost.update(pause=hall("POST", pause, {}, token=hall.arbitrator))))
        threads[1].start()
        assert wait_for(lambda: in_hand(2), 5), hall.proxy.stat("host1")
        host_a.kill()
        assert not host_a.web.running and not host_a.worker.running
        for thread in threads:
            thread.join(timeout=30)
        assert lost["slip"].status == 201 and served_by(lost["slip"]) == "host2", lost["slip"]
        answers[seat] = lost["slip"]
        assert lost["pause"].status == 502, lost["pause"]
        assert host_b.served("POST", pause) == 0 and hall.round(number).status == Round.Status.OPEN

        # The other phones send at once, before the checks take host A out: those whose turn was host A's
        # are sent to host B by the proxy, and each is accepted.
        for seat in range(half + 1, PHONES):
            answers[seat] = send(hall, number, seat, keys[seat], PLAY)
            assert answers[seat].status == 201 and served_by(answers[seat]) == "host2", answers[seat]
        assert int(hall.proxy.stat("host1")["wredis"]) > redispatched, hall.proxy.stat("host1")

        # Phones that had their receipt (from either host) send again with the same key, as a phone does
        # when it is not sure it was heard: answered once, the same slip and receipt, nothing written.
        for seat in range(half):
            again = send(hall, number, seat, keys[seat], PLAY)
            assert again.status == 200 and served_by(again) == "host2", again
            body, before = again.json(), answers[seat].json()
            assert body["replayed"] is True and body["id"] == before["id"], (body, before)
            assert body["receipt"] == before["receipt"] and body["received_at"] == before["received_at"]

        # The checks take host A out; a phone coming back to the stream is served by host B.
        assert wait_for(lambda: hall.proxy.states().get("host1") == "DOWN", 15, step=0.2), hall.proxy.states()
        assert hall.proxy.states()["host2"] == "UP"
        back = Listener(hall.proxy.port, hall.game_id)
        listeners.append(back)
        assert back.answered(TOLD_WITHIN) and back.status == 200 and served_by(back) == "host2", back.error
        assert told(back, number, "open") is not None, (back.error, back.events)

        closed = hall("POST", hall.url(f"/rounds/{number}/close"), {}, token=hall.arbitrator)
        assert closed.status == 200 and closed.json()["closed"] is True and served_by(closed) == "host2", closed
        assert told(back, number, "closed") is not None, (back.error, back.events[-2:])
    finally:
        for listener in listeners:
            listener.close()

    # Every slip with a receipt judged, each once: one slip per phone (its key), its result made of it.
    rnd = hall.round(number)
    assert rnd.status == Round.Status.CLOSED
    judged = {r.player_id: r for r in Result.objects.filter(round=rnd)}
    for seat, (player, _) in enumerate(hall.players):
        held = list(Slip.objects.filter(round=rnd, player=player))
        assert [(s.pk, s.key) for s in held] == [(answers[seat].json()["id"], keys[seat])], held
        assert judged[player.pk].slip_id == held[0].pk, judged[player.pk]
    assert set(judged) == {player.pk for player, _ in hall.players}
