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
    env: dict  # the environment its processes run with (a web server started again gets the same)

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
            hosts[f"host{n}"] = Host(f"host{n}", namespace, forwarder, web, worker, env)
        proxy = Proxy(folder, [host.web.address for host in hosts.values()])
        processes.append(proxy)
        yield proxy, hosts
    finally:
        processes += [host.web for host in hosts.values() if host.web not in processes]  # started again
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


# ---- a host restarted mid-round (SIGTERM, as a deploy or `docker compose restart` sends) ------------------

RESTART_ROUND_SECONDS = 45  # long enough for a host to stop and start again within the round
BACK_WITHIN = 3.0  # a phone told to reconnect is on a stream again within this
CLOSED_WITHIN = 2.0  # after the deadline, the round is closed within this (its phones told within TOLD_WITHIN)


class Phone:
    """A phone's page on the live stream through the proxy, as static/js/live.js holds it: told
    ``reconnect``, it opens its stream again at a random moment within the delay given. Records each
    stream (the host that served it, when its first state came) and each ``reconnect`` heard."""

    def __init__(self, port: int, game_id: int, streams: int = 4) -> None:
        import random

        self.port, self.game_id, self.streams = port, game_id, streams
        self.random = random.Random()
        self.lock = threading.Condition()
        self.opened: list[tuple[float, str | None]] = []  # (first state received, host)
        self.told: list[float] = []  # when a reconnect was heard
        self.dropped: list[tuple[float, str | None]] = []  # a stream that ended without a reconnect
        self.states: list[tuple[float, dict]] = []
        self.error: BaseException | None = None
        self.conn: http.client.HTTPConnection | None = None
        self.closed = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import json

        try:
            for _ in range(self.streams):  # bounded: a phone in this test reconnects a few times at most
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
                self.conn.request("GET", f"/games/{self.game_id}/events",
                                  headers={"Host": f"{HOST}:{self.port}", "Accept": "text/event-stream"})
                response = self.conn.getresponse()
                assert response.status == 200, response.status
                host = response.getheader("X-Served-By")
                event, data, first, within = "message", [], True, None
                while within is None:
                    line = response.readline()
                    if not line:  # ended without a word: the page's EventSource would retry in 1 s
                        with self.lock:
                            self.dropped.append((time.time(), host))
                            self.lock.notify_all()
                        within = 1.0
                        break
                    text = line.decode().rstrip("\r\n")
                    if text.startswith("event:"):
                        event = text[6:].strip()
                    elif text.startswith("data:"):
                        data.append(text[5:].strip())
                    elif not text and data:
                        body = json.loads("\n".join(data))
                        with self.lock:
                            if event == "state":
                                if first:
                                    self.opened.append((time.time(), host))
                                    first = False
                                self.states.append((time.time(), body))
                            elif event == "reconnect":
                                self.told.append(time.time())
                                within = body["within_ms"] / 1000
                            self.lock.notify_all()
                        event, data = "message", []
                self.conn.close()
                time.sleep(self.random.random() * within)
        except Exception as error:
            if not self.closed:
                self.error = error
        finally:
            with self.lock:
                self.lock.notify_all()

    def wait(self, predicate, seconds: float):
        with self.lock:
            return self.lock.wait_for(lambda: predicate(self) or not self.thread.is_alive(), seconds) and (
                predicate(self))

    def close(self) -> None:
        self.closed = True
        if self.conn is not None and self.conn.sock is not None:
            try:
                self.conn.sock.shutdown(2)
            except OSError:
                pass
        self.thread.join(timeout=5)


def restart(host: Host, folder: Path) -> float:
    """SIGTERM to the host's web server (to its first process, as Docker sends it), then the same server
    started again on the same address: how long it took to exit."""
    import signal

    old = host.web
    stopped_at = time.monotonic()
    old.popen.send_signal(signal.SIGTERM)
    old.popen.wait(timeout=10)
    took = time.monotonic() - stopped_at
    host.web = WebServer(folder, host.env, name=f"{old.name}-again", port=old.port,
                         host=old.host, netns=host.namespace.name, workers=2)
    return took


def test_a_host_restarted_mid_round_with_phones_listening_loses_no_slip_and_the_round_closes_on_time(
        two_hosts, make_game, make_player, arbitrator, isolated_cache, tmp_path):
    proxy, hosts = two_hosts
    game = make_game(round_seconds=RESTART_ROUND_SECONDS)
    seats = [make_player(game, f"Player {n}", table=n) for n in range(1, PHONES + 1)]
    hall = Hall(proxy, hosts, game.pk, f"Token {issue_api_token(arbitrator)[0]}", seats)
    host_a = hosts["host1"]
    phones: list[Phone] = []
    try:
        drawn = hall("POST", hall.url("/rounds"), {"rack": RACK}, token=hall.arbitrator)
        assert drawn.status == 201, drawn
        number = drawn.json()["number"]
        started = hall("POST", hall.url(f"/rounds/{number}/start"), {}, token=hall.arbitrator)
        assert started.status == 200 and started.json()["status"] == "open", started
        deadline = timestamp(started.json()["deadline"])

        phones = [Phone(proxy.port, game.pk) for _ in range(PHONES)]
        for phone in phones:
            assert phone.wait(lambda p: any(s.get("round_status") == "open" for _, s in p.states), TOLD_WITHIN), (
                phone.error, phone.states[-1:])
        on_a = [phone for phone in phones if phone.opened[0][1] == "host1"]
        assert on_a and len(on_a) < PHONES, [phone.opened for phone in phones]

        keys = [uuid.uuid4().hex for _ in range(PHONES)]
        half = PHONES // 2
        answers: dict[int, Answer] = {}
        for seat in range(half):
            answers[seat] = send(hall, number, seat, keys[seat], PLAY)
            assert answers[seat].status == 201, answers[seat]

        # Host A restarted while the other half of the hall sends its slips.
        senders = [threading.Thread(target=lambda s=seat: answers.update({s: send(hall, number, s, keys[s], PLAY)}))
                   for seat in range(half, PHONES)]
        for sender in senders:
            sender.start()
        exit_seconds = restart(host_a, tmp_path)
        for sender in senders:
            sender.join(timeout=30)
        assert exit_seconds < 5, exit_seconds
        for seat in range(PHONES):
            assert answers[seat].status == 201, (seat, answers[seat])

        # Every phone of host A was told to reconnect and is back on a stream within 3 s of it.
        for phone in on_a:
            assert phone.wait(lambda p: len(p.told) >= 1 and len(p.opened) >= 2, BACK_WITHIN + 5), (
                phone.error, phone.told, phone.opened)
            assert phone.opened[1][0] - phone.told[0] <= BACK_WITHIN, (phone.told, phone.opened)
        for phone in phones:
            if phone not in on_a:
                assert not phone.told, phone.told  # host B's phones heard nothing of it

        # A phone not sure it was heard sends again: the same slip, once.
        for seat in range(PHONES):
            again = send(hall, number, seat, keys[seat], PLAY)
            assert again.status == 200 and again.json()["replayed"] is True, again
            assert again.json()["id"] == answers[seat].json()["id"]

        # The round closes on time, and every phone is told.
        assert deadline > time.time(), "the restart took the whole round"
        late = []
        for phone in phones:
            seen = phone.wait(lambda p: any(s.get("round") == number and s.get("round_status") == "closed"
                                            for _, s in p.states), deadline - time.time() + CLOSED_WITHIN + 5)
            assert seen, (phone.error, phone.dropped, phone.told, phone.opened, phone.states[-1:])
            late.append(next(moment for moment, s in phone.states
                             if s.get("round") == number and s.get("round_status") == "closed") - deadline)
        rnd = hall.round(number)
        assert rnd.status == Round.Status.CLOSED
        closed_late = rnd.closed_at.timestamp() - deadline
        print(f"restart: exit {exit_seconds:.2f} s; closed {closed_late:.2f} s after the deadline; phones told "
              f"{min(late):.2f} to {max(late):.2f} s after it")
        assert closed_late <= CLOSED_WITHIN and max(late) <= TOLD_WITHIN, (closed_late, late)
        assert not any(phone.dropped for phone in phones), [phone.dropped for phone in phones]
    finally:
        for phone in phones:
            phone.close()

    for seat, (player, _) in enumerate(hall.players):
        held = list(Slip.objects.filter(round=rnd, player=player))
        assert [(s.pk, s.key) for s in held] == [(answers[seat].json()["id"], keys[seat])], held
        assert Result.objects.get(round=rnd, player=player).slip_id == held[0].pk
