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


def database_address() -> tuple[str, int]:
    db = connection.settings_dict
    return db["HOST"] or HOST, int(db["PORT"] or 5432)


def database_url(at: tuple[str, int] | None = None) -> str:
    """The pytest-django test database (this xdist worker's own), as DATABASE_URL; reached at ``at``
    (address, port: a forwarder to it) when given."""
    db = connection.settings_dict
    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    host, port = at or database_address()
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


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
    """A child process in its own process group, its output in a log file; in the network namespace
    ``netns`` when one is named (``ip netns exec`` becomes the process itself: the same pid and group)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str] | None, log: Path,
                 netns: str | None = None):
        self.name = name
        self.log_path = log
        if netns is not None:
            argv = [ip_program(), "netns", "exec", netns, *argv]
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

    def freeze(self) -> None:
        """SIGSTOP: the process holds its connections and answers nothing (a host hung, or about to die)."""
        self._signal_group(signal.SIGSTOP)

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
    """A redis-server of our own on a loopback port: nothing saved to disk, so a restart starts empty.
    ``also`` are more addresses it listens on (a namespace's link to this one, for its hosts)."""

    def __init__(self, folder: Path, port: int | None = None, also: tuple[str, ...] = ()):
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.port = port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(
            f"redis-{self.port}",
            # Protected mode refuses any address but loopback without a password: the others here are the
            # test's own namespace links, which nothing outside this machine reaches.
            [binary, "--port", str(self.port), "--bind", HOST, *also, *(["--protected-mode", "no"] if also else []),
             "--save", "", "--appendonly", "no",
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
    def start(cls, folder: Path, also: tuple[str, ...] = ()) -> RedisServer:
        """On a free port (another one if that port was taken meanwhile)."""
        return _on_a_free_port(lambda: cls(folder, also=also))

    @property
    def url(self) -> str:
        return self.url_at(HOST)

    def url_at(self, address: str) -> str:
        return f"redis://{address}:{self.port}/0"


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
            timeout: float = 15.0, headers: dict | None = None, host: str = HOST) -> Answer:
    sent = {"Host": f"{host}:{port}", "Accept": "application/json", **auth(token), **(headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        payload = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, payload,
                      time.monotonic() - started)
    finally:
        conn.close()


class WebServer(Process):
    """uvicorn serving arbiter.asgi:application, as in production: ``workers`` processes on one port, in
    the network namespace ``netns`` on its address ``host`` when given (a web host of several)."""

    def __init__(self, folder: Path, env: dict[str, str], name: str = "web", port: int | None = None,
                 *, host: str = HOST, netns: str | None = None, workers: int = 1):
        self.host = host
        self.port = port or free_port()  # a port given: the same server started again where it was
        more = ["--workers", str(workers)] if workers > 1 else []
        super().__init__(
            name,
            [sys.executable, "-m", "uvicorn", "arbiter.asgi:application", "--host", host, "--port",
             str(self.port), "--lifespan", "off", "--timeout-graceful-shutdown", "2", *more,
             "--http", "arbiter.server:GuardedHTTPProtocol", "--timeout-keep-alive", "5"],
            env, folder / f"{name}-{self.port}.log", netns=netns,
        )

        def answers():
            if not self.running:
                raise _failed(self, "uvicorn stopped")
            try:
                return request(self.port, "GET", "/healthz", timeout=5, host=host).status in (200, 503)
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
        return request(self.port, method, path, body=body, token=token, host=self.host, **options)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


class Worker(Process):
    """A Celery worker (threads pool) on the stack's Redis, ready once it consumes the queue."""

    def __init__(self, folder: Path, env: dict[str, str], name: str = "worker", netns: str | None = None):
        super().__init__(
            name,
            [sys.executable, "-m", "celery", "-A", "arbiter", "worker", "--purge", "--pool", "threads",
             "--concurrency", "2", "--loglevel", "info", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--hostname", f"{name}-{os.getpid()}@%h"],
            env, folder / f"{name}.log", netns=netns,
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
    host: str = HOST
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)  # of the answer, names in lower case
    events: list[tuple[float, dict]] = field(default_factory=list)
    error: BaseException | None = None

    def __post_init__(self) -> None:
        self._seen = threading.Condition()
        self._answered = threading.Event()
        self._conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        self._thread = threading.Thread(target=self._run, name=f"listener-{self.game_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._conn.request("GET", f"/games/{self.game_id}/events",
                               headers={"Host": f"{self.host}:{self.port}", "Accept": "text/event-stream"})
            response = self._conn.getresponse()
            self.headers = {k.lower(): v for k, v in response.getheaders()}
            self.status = response.status
            self._answered.set()
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
            self._answered.set()
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

    def answered(self, seconds: float) -> bool:
        """Whether the stream's answer (status and headers) came within ``seconds``."""
        return self._answered.wait(seconds) and self.status is not None

    def close(self) -> None:
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._conn.close()
        self._thread.join(timeout=5)


# ---- several web hosts on this machine: network namespaces, a forwarder, HAProxy ---------------------------

SUBNETS = "10.231"  # the hosts' links: 10.231.N.0/24, N free on this machine (a private range of its own)
HAPROXY_HOSTS = ROOT / "docker" / "haproxy-hosts.cfg"
SYSTEM_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/sbin", "/usr/sbin", "/sbin"])


def ip_program() -> str | None:
    return shutil.which("ip", path=SYSTEM_PATH)


def haproxy_program() -> str | None:
    return shutil.which("haproxy", path=SYSTEM_PATH)


def _ip(*args: str) -> str:
    argv = [ip_program() or "ip", *args]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def free_subnets(count: int) -> list[int]:
    """``count`` numbers N such that no address or route of this machine is in 10.231.N.0/24."""
    import random

    seen = _ip("-o", "-4", "addr", "show") + _ip("-4", "route", "show", "table", "all")
    free = [n for n in range(1, 255) if f"{SUBNETS}.{n}." not in seen]
    if len(free) < count:
        raise RuntimeError(f"no {count} free subnets in {SUBNETS}.0.0/16")
    return random.sample(free, count)


class Namespace:
    """A web host of its own on this machine: a network namespace linked to this one by a veth pair in
    10.231.N.0/24, ``outside`` (10.231.N.1) this namespace's end, ``inside`` (10.231.N.2) the host's.
    From inside, this machine's 127.0.0.1 cannot be seen: what the host needs here listens on ``outside``.
    ``delete`` takes the namespace away, its end of the link with it, whatever was left running there."""

    def __init__(self, name: str, subnet: int):
        self.name = name
        self.outside = f"{SUBNETS}.{subnet}.1"
        self.inside = f"{SUBNETS}.{subnet}.2"
        self.link = f"vh{os.getpid() % 10**6}n{subnet}"  # at most 15 characters, as Linux allows
        peer = f"{self.link}p"
        try:
            _ip("netns", "add", name)
            _ip("link", "add", self.link, "type", "veth", "peer", "name", peer)
            _ip("link", "set", peer, "netns", name)
            _ip("addr", "add", f"{self.outside}/24", "dev", self.link)
            _ip("link", "set", self.link, "up")
            _ip("-n", name, "addr", "add", f"{self.inside}/24", "dev", peer)
            _ip("-n", name, "link", "set", peer, "up")
            _ip("-n", name, "link", "set", "lo", "up")
        except BaseException:
            self.delete()
            raise

    def delete(self) -> None:
        for args in (("netns", "delete", self.name), ("link", "delete", self.link)):
            try:
                _ip(*args)
            except (RuntimeError, subprocess.TimeoutExpired):
                pass  # already gone (deleting the namespace deletes the pair)

    @property
    def exists(self) -> bool:
        return self.name in _ip("netns", "list").split()

    @staticmethod
    def sweep(prefix: str = "arbiter-") -> list[str]:
        """Delete the namespaces ``<prefix><pid>-...`` left by a test process that no longer exists (one
        killed before its finally ran); those of live processes are left alone. The names deleted."""
        import re

        gone = []
        for name in re.findall(rf"^({re.escape(prefix)}(\d+)-\S+)", _ip("netns", "list"), re.M):
            try:
                os.kill(int(name[1]), 0)
            except ProcessLookupError:
                try:
                    _ip("netns", "delete", name[0])
                    gone.append(name[0])
                except RuntimeError:
                    pass
            except PermissionError:
                pass  # a live process of another user
        return gone


class Proxy(Process):
    """The system's HAProxy with docker/haproxy-hosts.cfg, on a loopback port, in front of ``hosts``
    (address:port each, host1, host2, ... in that order); ready once every host is up with its last health
    check passed (HAProxy starts its hosts up before any check: one failed check, a process slow to its
    first answer, takes a host out until two pass).
    ``states()`` and ``stat()`` read its runtime socket."""

    def __init__(self, folder: Path, hosts: list[str], check_host: str = HOST, port: int | None = None):
        self.port = port or free_port()
        self.socket_path = folder / f"haproxy-{self.port}.sock"
        env = {"PATH": os.environ.get("PATH", ""), "PROXY_BIND": f"{HOST}:{self.port}",
               "ARBITER_CHECK_HOST": check_host, "PROXY_STATS_SOCKET": str(self.socket_path),
               **{f"ARBITER_WEB{n}": address for n, address in enumerate(hosts, 1)}}
        super().__init__(f"haproxy-{self.port}", [haproxy_program() or "haproxy", "-db", "-f", str(HAPROXY_HOSTS)],
                         env, folder / f"haproxy-{self.port}.log")
        names = {f"host{n}" for n in range(1, len(hosts) + 1)}

        def all_up():
            if not self.running:
                raise _failed(self, "haproxy stopped")
            try:
                rows = [self.stat(name) for name in sorted(names)]
            except (OSError, KeyError):
                return False
            return all(row["status"] == "UP" and row["check_status"] == "L7OK" for row in rows)

        try:
            if not wait_for(all_up, START_SECONDS, step=0.1):
                raise RuntimeError(f"haproxy's hosts did not all come up: {self._safe_states()} {self.log()}")
        except BaseException:
            self.stop()
            raise

    def _ask(self, command: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(self.socket_path))
            sock.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def states(self) -> dict[str, str]:
        """{server name: "UP" | "DOWN" | ...} of the backend, as its checks see them now."""
        named = {0: "DOWN", 1: "STARTING", 2: "UP", 3: "STOPPING"}
        states = {}
        for line in self._ask("show servers state web").splitlines():
            fields = line.split()
            if len(fields) > 5 and fields[0].isdigit():  # be_id be_name srv_id srv_name srv_addr srv_op_state
                states[fields[3]] = named.get(int(fields[5]), fields[5])
        return states

    def _safe_states(self):
        try:
            return self.states()
        except OSError as error:
            return repr(error)

    def stat(self, server: str) -> dict[str, str]:
        """The server's line of ``show stat`` (CSV): status, wretr (retries), wredis (sent elsewhere), ..."""
        lines = self._ask("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(","), strict=False))
            if row.get("pxname") == "web" and row.get("svname") == server:
                return row
        raise KeyError(server)


# ---- a TCP forwarder, which can be cut ---------------------------------------------------------------------------


class Forwarder:
    """Relays every TCP connection made to ``host``:``port`` (a free one by default) to ``target`` (host, port), a
    thread per direction: how a namespace's hosts reach this machine's PostgreSQL, which listens on 127.0.0.1
    only, and what a centre reaches its organiser through in a test. ``cut()`` closes its port and every
    connection through it (the centre's connections are then refused, as when the club's line drops);
    ``restore()`` listens again on the same port. Its threads are bounded by socket timeouts; ``stop()`` ends
    them."""

    def __init__(self, host: str, target: tuple[str, int], port: int = 0):
        self.host, self.target = host, target
        self.port = port
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._stopped = threading.Event()
        self.restore()

    def restore(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(16)
        listener.settimeout(0.2)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), name=f"forwarder-{self.port}", daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while not self._stopped.is_set() and self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed by cut()
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        source.settimeout(1.0)
        try:
            while not self._stopped.is_set():
                try:
                    data = source.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
                with self._lock:
                    self._sockets.discard(sock)

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            live = list(self._sockets)
        for sock in live:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def stop(self) -> None:
        self._stopped.set()
        self.cut()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"
