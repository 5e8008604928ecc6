"""The image's web server stops on SIGTERM within 5 s while phones hold their live streams, each told to
reconnect first (docs/operations.md, "Stopping the web server").

The server is started with the command of docker/Dockerfile itself (its CMD read from the file, so the two
cannot diverge), on a free loopback port instead of 0.0.0.0:8000, on the test database and a redis-server
of its own.
"""

from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from .stack import HOST, ROOT, Process, RedisServer, child_env, free_port, request, wait_for

pytestmark = [
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

PHONES = 20
EXIT_SECONDS = 5.0


def image_command(port: int) -> list[str]:
    """The web command of docker/Dockerfile (its CMD), on 127.0.0.1:``port``, run by this Python."""
    text = (ROOT / "docker" / "Dockerfile").read_text().replace("\\\n", " ")
    found = re.search(r"^CMD\s+(\[.*\])\s*$", text, re.MULTILINE)
    assert found, "docker/Dockerfile has no CMD in exec form"
    argv = json.loads(found.group(1))
    assert argv[0] == "uvicorn", argv
    argv = [sys.executable, "-m", *argv]
    argv[argv.index("--host") + 1] = HOST
    argv[argv.index("--port") + 1] = str(port)
    return argv


class Stream:
    """A phone on /games/<id>/events: every byte it was sent, and whether the server ended the stream."""

    def __init__(self, port: int, game_id: int) -> None:
        self.sock = socket.create_connection((HOST, port), timeout=30)
        self.sock.sendall(f"GET /games/{game_id}/events HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.received = b""
        self.ended = threading.Event()
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                with self.changed:
                    self.received += chunk
                    self.changed.notify_all()
        except OSError:
            pass
        finally:
            self.ended.set()
            with self.changed:
                self.changed.notify_all()

    def has(self, marker: bytes, seconds: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: marker in self.received or self.ended.is_set(), seconds) and (
                marker in self.received)

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(timeout=5)


def test_sigterm_tells_every_stream_to_reconnect_and_the_image_command_exits_within_5_s(
        tmp_path, make_game, isolated_cache):
    game = make_game()
    redis = RedisServer.start(tmp_path / "redis")
    port = free_port()
    web = Process("web", image_command(port), child_env(redis.url), tmp_path / "web.log")
    streams: list[Stream] = []
    try:
        def answers():
            assert web.running, web.log()
            try:
                return request(port, "GET", "/healthz", timeout=5).status in (200, 503)
            except OSError:
                return False

        assert wait_for(answers, 60, step=0.1), web.log()
        streams = [Stream(port, game.pk) for _ in range(PHONES)]
        for stream in streams:
            assert stream.has(b"event: state", 20), stream.received[:300]
            assert stream.received.startswith(b"HTTP/1.1 200"), stream.received[:300]

        stopped_at = time.monotonic()
        web.popen.send_signal(signal.SIGTERM)  # what `docker stop` sends: to the image's process 1 only
        try:
            web.popen.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {EXIT_SECONDS} s after SIGTERM: {web.log()[-3000:]}")
        took = time.monotonic() - stopped_at
        told = [stream for stream in streams if stream.has(b"event: reconnect", 1)]
        assert len(told) == PHONES, [s.received[-200:] for s in streams if s not in told][:2]
        assert all(stream.ended.wait(1) for stream in streams)
        assert web.popen.returncode == 0, (web.popen.returncode, web.log()[-3000:])
        print(f"exited {took:.2f} s after SIGTERM")
    finally:
        for stream in streams:
            stream.close()
        web.stop()
        redis.stop()


def test_streams_whose_phones_left_hold_nothing_and_the_server_stops_at_once(tmp_path, make_game, isolated_cache):
    """Phones gone without a word (their connections reset, as a 1,000-player bench's client leaves them):
    their streams' tasks end with them, so SIGTERM finds nothing running: no wait, nothing cancelled."""
    game = make_game()
    redis = RedisServer.start(tmp_path / "redis")
    port = free_port()
    web = Process("web", image_command(port), child_env(redis.url), tmp_path / "web.log")
    streams: list[Stream] = []
    try:
        def answers():
            assert web.running, web.log()
            try:
                return request(port, "GET", "/healthz", timeout=5).status in (200, 503)
            except OSError:
                return False

        assert wait_for(answers, 60, step=0.1), web.log()
        streams = [Stream(port, game.pk) for _ in range(PHONES)]
        for stream in streams:
            assert stream.has(b"event: state", 20), stream.received[:300]
        for stream in streams:  # reset, not a polite close: a phone out of the hall's Wi-Fi
            stream.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            stream.close()
        streams = []
        # The server's processes hold no connection to a phone any more (the kernel's view of its sockets).
        assert wait_for(lambda: not established(port), 10, step=0.05), established(port)

        web.popen.send_signal(signal.SIGTERM)
        try:
            web.popen.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {EXIT_SECONDS} s after SIGTERM: {web.log()[-3000:]}")
        log = web.log(tail=100_000)
        assert "Waiting for background tasks" not in log and "Cancel " not in log, log[-3000:]
    finally:
        for stream in streams:
            stream.close()
        web.stop()
        redis.stop()


def established(port: int) -> list[str]:
    """The established TCP connections on the server's side of ``port`` (from /proc/net/tcp)."""
    found = []
    for line in (Path("/proc/net/tcp").read_text().splitlines()[1:]):
        fields = line.split()
        local, state = fields[1], fields[3]
        if state == "01" and int(local.split(":")[1], 16) == port:
            found.append(line)
    return found


def test_a_slip_on_its_way_when_sigterm_comes_is_accepted_before_the_process_exits(
        tmp_path, make_game, make_player, isolated_cache):
    """Running requests finish: a slip whose body is still arriving when SIGTERM comes is answered 201 and
    kept, then the process exits."""
    from tournaments import services
    from tournaments.models import Slip

    game = make_game(round_seconds=120)
    player, token = make_player(game, "Player 1", table=1)
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"))
    redis = RedisServer.start(tmp_path / "redis")
    port = free_port()
    web = Process("web", image_command(port), child_env(redis.url), tmp_path / "web.log")
    sock = None
    try:
        def answers():
            assert web.running, web.log()
            try:
                return request(port, "GET", "/healthz", timeout=5).status in (200, 503)
            except OSError:
                return False

        assert wait_for(answers, 60, step=0.1), web.log()
        body = json.dumps({"word": "MELANIC", "ref": "H4", "score": 78, "key": "on-its-way"}).encode()
        sock = socket.create_connection((HOST, port), timeout=20)
        sock.sendall((f"POST /api/games/{game.pk}/rounds/{rnd.number}/slips HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                      f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
                      f"Content-Length: {len(body)}\r\n\r\n").encode() + body[:10])
        # The server has read the headers (its side of the connection holds nothing unread): the request is
        # running, its body awaited, when SIGTERM comes.
        client_port = sock.getsockname()[1]
        assert wait_for(lambda: unread(port, client_port) == 0, 10), unread(port, client_port)
        web.popen.send_signal(signal.SIGTERM)
        assert wait_for(lambda: "Shutting down" in web.log(tail=100_000), 5), web.log()[-2000:]
        sock.sendall(body[10:])
        response = http.client.HTTPResponse(sock)
        response.begin()
        answer = json.loads(response.read())
        assert response.status == 201, (response.status, answer)
        web.popen.wait(timeout=EXIT_SECONDS)
        assert [(s.pk, s.key) for s in Slip.objects.filter(round=rnd, player=player)] == [(answer["id"], "on-its-way")]
    finally:
        if sock is not None:
            sock.close()
        web.stop()
        redis.stop()


def unread(port: int, client_port: int) -> int | None:
    """The bytes the server has not read yet on its side of the connection from ``client_port``."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if int(local.split(":")[1], 16) == port and int(remote.split(":")[1], 16) == client_port:
            return int(fields[4].split(":")[1], 16)
    return None
