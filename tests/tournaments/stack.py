"""Real processes for the fault tests: a redis-server, a uvicorn web server and a Celery worker on the
pytest-django test database, spoken to over HTTP on 127.0.0.1 only.

Each stack has a redis-server of its own on a free loopback port (Celery broker and cache), so test runs
in parallel (pytest -n, CI jobs sharing a Redis) never consume each other's tasks or read each other's
keys. Every process runs in a process group of its own and is killed with its group when stopped; every
wait is bounded.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
START_SECONDS = 60.0  # a loaded CI machine can be slow to import Django and Celery


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def wait_for(predicate, seconds: float, step: float = 0.02):
    """The predicate's first true value within ``seconds`` (its last value otherwise)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def timestamp(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def sleep_until(moment: float) -> None:
    left = moment - time.time()
    if left > 0:
        time.sleep(left)


def database_url() -> str:
    """The pytest-django test database (this xdist worker's own), as DATABASE_URL."""
    db = connection.settings_dict
    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{user}{password}@{db['HOST'] or HOST}:{db['PORT'] or 5432}/{db['NAME']}"


def child_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a server or worker: production-like (DEBUG off) on the test database."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="arbiter.settings.test",
        DATABASE_URL=database_url(),
        REDIS_URL=redis_url,
        LEXICON_CACHE_DIR=str(settings.LEXICON_CACHE_DIR),
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(48),
        ALLOWED_HOSTS=HOST,
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class Process:
    """A child process in its own process group, its output in a log file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str] | None, log: Path):
        self.name = name
        self.log_path = log
        with open(log, "ab") as out:
            self.popen = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, start_new_session=True)

    @property
    def running(self) -> bool:
        return self.popen.poll() is None

    def log(self, tail: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except FileNotFoundError:
            return ""

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.popen.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: no chance to clean up."""
        self._signal_group(signal.SIGKILL)
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def stop(self) -> None:
        if self.running:
            self._signal_group(signal.SIGTERM)
            try:
                self.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.kill()  # whatever is left of the group


class PortTaken(RuntimeError):
    """The free port found was taken by another process before ours could listen on it."""


def _failed(process: Process, what: str) -> RuntimeError:
    log = process.log()
    error = PortTaken if "already in use" in log.lower() else RuntimeError
    return error(f"{what}: {log}")


def _on_a_free_port(start, attempts: int = 3):
    for attempt in range(attempts):
        try:
            return start()
        except PortTaken:
            if attempt == attempts - 1:
                raise


class RedisServer(Process):
    """A redis-server of our own on a loopback port: nothing saved to disk, so a restart starts empty."""

    def __init__(self, folder: Path, port: int | None = None):
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.port = port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(
            f"redis-{self.port}",
            [binary, "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly", "no",
             "--dir", str(folder), "--databases", "1"],
            None, folder / f"redis-{self.port}.log",
        )
        import redis

        client = redis.Redis(host=HOST, port=self.port, socket_connect_timeout=0.5, socket_timeout=1)

        def answers():
            if not self.running:
                raise _failed(self, "redis-server stopped")
            try:
                return client.ping()
            except redis.RedisError:
                return False

        try:
            if not wait_for(answers, 10, step=0.05):
                raise RuntimeError(f"redis-server did not answer on port {self.port}: {self.log()}")
        except BaseException:
            self.stop()
            raise
        finally:
            client.close()

    @classmethod
    def start(cls, folder: Path) -> RedisServer:
        """On a free port (another one if that port was taken meanwhile)."""
        return _on_a_free_port(lambda: cls(folder))

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"


# ---- HTTP ------------------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float  # from sending to the whole answer

    def json(self):
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"Answer({self.status}, {self.body[:600]!r}, {self.seconds:.2f}s)"


def auth(token: str | None) -> dict[str, str]:
    """``Token <token>`` (an arbitrator's API token) or ``Bearer <token>`` (a player's)."""
    if token is None:
        return {}
    return {"Authorization": token if " " in token else f"Bearer {token}"}


def request(port: int, method: str, path: str, body=None, token: str | None = None,
            timeout: float = 15.0, headers: dict | None = None) -> Answer:
    sent = {"Host": f"{HOST}:{port}", "Accept": "application/json", **auth(token), **(headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    started = time.monotonic()
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        payload = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, payload,
                      time.monotonic() - started)
    finally:
        conn.close()


class WebServer(Process):
    """uvicorn serving arbiter.asgi:application, as in production."""

    def __init__(self, folder: Path, env: dict[str, str], name: str = "web", port: int | None = None):
        self.port = port or free_port()  # a port given: the same server started again where it was
        super().__init__(
            name,
            [sys.executable, "-m", "uvicorn", "arbiter.asgi:application", "--host", HOST, "--port",
             str(self.port), "--lifespan", "off", "--timeout-graceful-shutdown", "2",
             "--http", "arbiter.server:GuardedHTTPProtocol", "--timeout-keep-alive", "5"],
            env, folder / f"{name}-{self.port}.log",
        )

        def answers():
            if not self.running:
                raise _failed(self, "uvicorn stopped")
            try:
                return request(self.port, "GET", "/healthz", timeout=5).status in (200, 503)
            except OSError:
                return False

        try:
            if not wait_for(answers, START_SECONDS, step=0.1):
                raise RuntimeError(f"uvicorn did not answer: {self.log()}")
        except BaseException:
            self.stop()
            raise

    @classmethod
    def start(cls, folder: Path, env: dict[str, str], name: str = "web") -> WebServer:
        """On a free port (another one if that port was taken meanwhile)."""
        return _on_a_free_port(lambda: cls(folder, env, name))

    def __call__(self, method: str, path: str, body=None, token: str | None = None, **options) -> Answer:
        return request(self.port, method, path, body=body, token=token, **options)


class Worker(Process):
    """A Celery worker (threads pool) on the stack's Redis, ready once it consumes the queue."""

    def __init__(self, folder: Path, env: dict[str, str], name: str = "worker"):
        super().__init__(
            name,
            [sys.executable, "-m", "celery", "-A", "arbiter", "worker", "--purge", "--pool", "threads",
             "--concurrency", "2", "--loglevel", "info", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--hostname", f"{name}-{os.getpid()}@%h"],
            env, folder / f"{name}.log",
        )

        def ready():
            if not self.running:
                raise RuntimeError(f"the worker stopped: {self.log()}")
            return " ready." in self.log(tail=100_000)

        try:
            if not wait_for(ready, START_SECONDS, step=0.1):
                raise RuntimeError(f"the worker did not start: {self.log()}")
        except BaseException:
            self.stop()
            raise


# ---- a phone on the live stream ---------------------------------------------------------------------------


@dataclass
class Listener:
    """A phone on /games/<id>/events (server-sent events): every state it was told, with when."""

    port: int
    game_id: int
    status: int | None = None
    events: list[tuple[float, dict]] = field(default_factory=list)
    error: BaseException | None = None

    def __post_init__(self) -> None:
        self._seen = threading.Condition()
        self._conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
        self._thread = threading.Thread(target=self._run, name=f"listener-{self.game_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._conn.request("GET", f"/games/{self.game_id}/events",
                               headers={"Host": f"{HOST}:{self.port}", "Accept": "text/event-stream"})
            response = self._conn.getresponse()
            self.status = response.status
            data: list[str] = []
            while True:
                line = response.readline()
                if not line:
                    break
                text = line.decode().rstrip("\r\n")
                if text.startswith("data:"):
                    data.append(text[5:].strip())
                elif not text and data:
                    event = json.loads("\n".join(data))
                    data = []
                    with self._seen:
                        self.events.append((time.time(), event))
                        self._seen.notify_all()
        except Exception as error:  # the test closed the connection, or the stream broke: the test checks
            self.error = error
        finally:
            with self._seen:
                self._seen.notify_all()

    def first(self, predicate, seconds: float) -> tuple[float, dict] | None:
        """The first event (time received, state) that satisfies the predicate, waiting up to ``seconds``."""
        end = time.monotonic() + seconds
        with self._seen:
            while True:
                for moment, event in self.events:
                    if predicate(event):
                        return moment, event
                left = end - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    return None
                self._seen.wait(min(left, 0.2))

    def close(self) -> None:
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._conn.close()
        self._thread.join(timeout=5)
