"""docker/haproxy-hosts.cfg's cache of the public results: a real HAProxy on loopback in front of a web host
that counts what reaches it. Followers' polls within the answer's max-age are answered by the proxy (a
conditional one with 304), so the host sees one request per page and max-age; nothing else is cached."""

import http.client
import http.server
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HAPROXY = shutil.which("haproxy", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"]))
HOST = "127.0.0.1"

pytestmark = pytest.mark.skipif(HAPROXY is None, reason="needs the haproxy program (Debian: apt-get install haproxy)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Host(http.server.BaseHTTPRequestHandler):
    """Answers as the application's public feed does: a strong ETag, public max-age, Vary: Accept-Language."""

    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str | None]] = []
    max_age = 5
    slow = 0.0  # seconds a public answer takes
    at_once = peak = 0
    lock = threading.Lock()

    def do_GET(self):
        if self.path == "/healthz":
            body = b'{"database": {"up": true}}'
        else:
            type(self).seen.append((self.path, self.headers.get("If-None-Match")))
            body = b'{"standings": [], "path": "' + self.path.encode() + b'"}'
            if self.path.startswith("/api/public/") and self.slow:
                with self.lock:
                    Host.at_once += 1
                    Host.peak = max(Host.peak, Host.at_once)
                time.sleep(self.slow)
                with self.lock:
                    Host.at_once -= 1
        tag = f'"{len(body)}"'
        if self.headers.get("If-None-Match") == tag:
            self.send_response(304)
            body = b""
        else:
            self.send_response(200)
        self.send_header("ETag", tag)
        self.send_header("Cache-Control", f"public, max-age={self.max_age}")
        self.send_header("Vary", "Accept-Language")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture()
def proxy():
    Host.seen = []
    origin = http.server.ThreadingHTTPServer((HOST, free_port()), Host)
    thread = threading.Thread(target=origin.serve_forever, daemon=True)
    thread.start()
    port = free_port()
    env = {"PATH": os.environ.get("PATH", ""), "ARBITER_WEB1": f"{HOST}:{origin.server_address[1]}",
           "PROXY_BIND": f"{HOST}:{port}", "PROXY_CHECK_INTER": "30s"}
    process = subprocess.Popen([HAPROXY, "-db", "-f", str(ROOT / "docker" / "haproxy-hosts.cfg")], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):  # up to 10 s for the proxy to listen
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read().decode()
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(10)
        origin.shutdown()
        origin.server_close()


def get(port, path, tag=None, language="fr"):
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", path, headers={"Accept-Language": language, **({"If-None-Match": tag} if tag else {})})
        answer = connection.getresponse()
        return answer.status, answer.getheader("ETag"), answer.read()
    finally:
        connection.close()


def test_conditional_polls_within_max_age_reach_the_host_once(proxy):
    status, tag, body = get(proxy, "/api/public/abc123")
    assert status == 200 and tag and b"/api/public/abc123" in body
    polls = 20
    answers = [get(proxy, "/api/public/abc123", tag, language=("fr", "en", "de")[n % 3]) for n in range(polls)]
    assert [status for status, _, _ in answers] == [304] * polls
    assert all(answer_tag == tag for _, answer_tag, _ in answers)
    assert Host.seen == [("/api/public/abc123", None)]  # the first poll only: every later one from the cache
    # A page too, once; a whole answer to a follower without an ETag comes from the cache as well.
    assert get(proxy, "/results/abc123/")[0] == 200 and get(proxy, "/results/abc123/")[0] == 200
    assert [path for path, _ in Host.seen].count("/results/abc123/") == 1


def test_nothing_but_the_public_results_is_cached(proxy):
    for _ in range(3):
        assert get(proxy, "/api/games/1/live")[0] == 200
    assert [path for path, _ in Host.seen] == ["/api/games/1/live"] * 3


def test_the_cache_keeps_an_answer_no_longer_than_its_max_age(proxy):
    Host.max_age = 1
    try:
        _, tag, _ = get(proxy, "/api/public/short")
        get(proxy, "/api/public/short", tag)
        assert len(Host.seen) == 1
        time.sleep(2.2)
        # Expired: the conditional poll is passed on unconditionally (a 304 could not be stored), so that poll
        # gets the whole answer, stored again, and the next conditional polls get their 304 from the cache.
        assert get(proxy, "/api/public/short", tag)[:2] == (200, tag)
        assert get(proxy, "/api/public/short", tag)[0] == 304
        assert Host.seen == [("/api/public/short", None)] * 2
    finally:
        Host.max_age = 5


def test_followers_misses_take_a_bounded_share_of_a_host_and_the_hall_passes_them(proxy):
    """While an answer is on its way to be stored, every poll misses the cache: those misses reach a host at
    most PROXY_PUBLIC_PER_HOST (2) at once, the others wait in the proxy, and the hall's requests (another
    backend) do not wait behind them."""
    Host.slow, Host.peak = 0.3, 0
    try:
        answers: list[int] = []

        def follower():
            answers.append(get(proxy, "/api/public/busy")[0])

        followers = [threading.Thread(target=follower) for _ in range(12)]
        for thread in followers:
            thread.start()
        time.sleep(0.2)
        started = time.monotonic()
        assert get(proxy, "/api/games/1/live")[0] == 200
        hall = time.monotonic() - started
        for thread in followers:
            thread.join(30)
        assert answers == [200] * 12
        assert Host.peak == 2  # 12 misses at once, 2 at a time on the host
        assert hall < 0.3, hall  # not queued behind the followers (12 x 0.3 s / 2 would be 1.8 s)
    finally:
        Host.slow = 0.0
