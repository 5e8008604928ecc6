"""The README's run command on the embedded default: web server and worker come up and work together.

Runs `manage.py rundemo` exactly as `make run` does, with DATABASE_URL and REDIS_URL unset and a fresh
DATA_DIR, so SQLite and the filesystem broker are used and nothing else needs to be running. The club's
network (`make run HOST=0.0.0.0`) is stood in for by 127.0.0.2, a second loopback address: no test sends
anything outside 127.0.0.0/8.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def embedded_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(tmp_path / "data"), DJANGO_SETTINGS_MODULE="arbiter.settings.dev", DEBUG="1",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    return env


@pytest.mark.worker
def test_run_command_serves_pages_health_and_runs_tasks(embedded_env):
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "rundemo", "--port", str(port)],
        cwd=ROOT, env=embedded_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    lines = []
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"running at (http://\S+)", line)
            if found:
                url = found.group(1)
        assert url == f"http://127.0.0.1:{port}/", "".join(lines)
        assert any("password" in line for line in lines), "the demo login is printed"

        status = None
        while time.monotonic() < deadline:
            try:
                status, body = _get(url + "healthz")
                break
            except OSError:
                time.sleep(0.3)
        assert status == 200, body
        health = json.loads(body)
        assert health["database"] == {"up": True, "detail": "sqlite"}
        assert health["broker"]["up"] is True

        ping = subprocess.run(
            [sys.executable, "manage.py", "pingworker", "--timeout", "60"],
            cwd=ROOT, env=embedded_env, capture_output=True, text=True, timeout=90,
        )
        assert ping.returncode == 0, ping.stdout + ping.stderr
        assert "worker answered ping" in ping.stdout

        login_status, login_page = _get(url + "console/login/")
        assert login_status == 200
        assert b"password" in login_page.lower()
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    assert process.returncode == 0


def _start(args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "rundemo", *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


def _read_until(process: subprocess.Popen, pattern: str, lines: list[str], timeout: float = 120) -> re.Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"no line matching {pattern!r} in:\n" + "".join(lines))


def _stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise


def _wait_answering(url: str, timeout: float = 60) -> tuple[int, bytes]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return _get(url)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists() or shutil.which("make") is None,
                    reason="`make run` needs make and the checkout's .venv (make install)")
def test_lan_mode_prints_the_phones_address_and_a_qr_code_and_serves_the_home_page(embedded_env):
    """`make run HOST=0.0.0.0 PORT=P` itself, with PUBLIC_URL given: the phones' address and its QR code are
    printed, this machine opens http://127.0.0.1:P/, and a request naming the phones' address is allowed.
    The network reaches it, so DEBUG is off: a page not found is the plain one (no list of every address), and
    the secret key is the one made in the data folder."""
    port = _free_port()
    public = f"http://127.0.0.2:{port}"
    env = {**embedded_env, "PUBLIC_URL": public}
    for name in ("ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE", "DEBUG", "SECRET_KEY"):
        env.pop(name, None)
    # -o: the checkout's venv taken as installed (a pyproject.toml newer than it does not reinstall it here).
    process = subprocess.Popen(
        ["make", "-o", ".venv/.installed", "run", "HOST=0.0.0.0", f"PORT={port}"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    lines: list[str] = []
    try:
        url = _read_until(process, r"running at (http://\S+)", lines).group(1)
        assert url == f"http://127.0.0.1:{port}/"
        _read_until(process, re.escape(f"Phones join at {public}/join"), lines, timeout=10)
        _read_until(process, r"[█▀▄]{20}", lines, timeout=10)  # the QR code, drawn in the terminal

        status, body = _wait_answering(url)
        assert status == 200, body[:500]
        assert b'id="home-join"' in body
        # The phones' address is an allowed host of the server (127.0.0.2 is this machine's loopback too).
        status, body = _get(f"{public}/join")
        assert status == 200, body[:500]
        assert b'id="join-form"' in body
        # Another name for the machine is not.
        request = urllib.request.Request(url, headers={"Host": "evil.example"})
        try:
            urllib.request.urlopen(request, timeout=5)
            refused = None
        except urllib.error.HTTPError as exc:
            refused = exc.code
        assert refused == 400

        status, body = _get(f"{url}no-such-page/")
        assert status == 404
        assert b"DEBUG = True" not in body and b"URLconf" not in body and b"console/" not in body, body[:2000]
        key = Path(env["DATA_DIR"]) / "secret.key"
        assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text().strip()) >= 32
    finally:
        _stop(process)
    lines.append(process.stdout.read())
    # make itself ends on the terminal's Ctrl-C (SIGINT to the group), once the launcher has stopped.
    assert process.returncode in (0, -signal.SIGINT) and "Stopped." in lines[-1], "".join(lines)
    assert "No directory at" not in "".join(lines), "no warning about a static folder the checkout does not use"


def test_a_port_in_use_is_refused_at_once_with_the_reason(embedded_env):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        answer = subprocess.run(
            [sys.executable, "manage.py", "rundemo", "--port", str(port), "--no-demo"],
            cwd=ROOT, env=embedded_env, capture_output=True, text=True, timeout=60,
        )
    assert answer.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in answer.stderr
    assert not (Path(embedded_env["DATA_DIR"]) / "arbiter.sqlite3").exists(), "nothing is set up first"


def test_the_network_plan_follows_the_host_and_leaves_the_users_settings_alone():
    from tournaments.management.commands.rundemo import network_plan

    local = network_plan("127.0.0.1", 8000, {}, "", None)
    assert local["local_url"] == "http://127.0.0.1:8000"
    assert local["public_url"] == ""
    assert local["env"] == {"ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"}

    lan = network_plan("0.0.0.0", 8013, {}, "", "192.168.1.20")
    assert lan["local_url"] == "http://127.0.0.1:8013"
    assert lan["public_url"] == "http://192.168.1.20:8013"
    assert lan["env"] == {"PUBLIC_URL": "http://192.168.1.20:8013",
                          "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1],192.168.1.20"}

    given = network_plan("0.0.0.0", 8013, {"PUBLIC_URL": "http://club.lan:80"}, "http://club.lan:80",
                         "192.168.1.20")
    assert given["public_url"] == "http://club.lan:80"
    assert given["env"] == {"ALLOWED_HOSTS": "localhost,127.0.0.1,[::1],192.168.1.20,club.lan"}

    mine = network_plan("0.0.0.0", 8013, {"ALLOWED_HOSTS": "*"}, "", "10.0.0.5")
    assert mine["env"] == {"PUBLIC_URL": "http://10.0.0.5:8013"}

    offline = network_plan("0.0.0.0", 8013, {}, "", None)
    assert offline["public_url"] == ""
    assert offline["env"] == {"ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"}

    one = network_plan("192.168.1.20", 8000, {}, "", None)
    assert one["local_url"] == one["public_url"] == "http://192.168.1.20:8000"


def test_the_lan_address_is_found_without_sending_anything(monkeypatch):
    """The address comes from the route a UDP socket would take (connect sends no packet); with no route,
    from the host name; loopback addresses are never offered to phones."""
    from tournaments.management.commands import rundemo

    sent = []

    class Probe:
        def __init__(self, family, kind):
            assert kind == socket.SOCK_DGRAM

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def connect(self, address):
            self.target = address

        def getsockname(self):
            return ("192.168.1.20", 40000)

        def send(self, data):  # pragma: no cover - would be a packet
            sent.append(data)

        sendto = send

    monkeypatch.setattr(rundemo.socket, "socket", Probe)
    assert rundemo.lan_address() == "192.168.1.20"
    assert not sent

    class NoRoute(Probe):
        def connect(self, address):
            raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(rundemo.socket, "socket", NoRoute)
    monkeypatch.setattr(rundemo.socket, "gethostbyname_ex", lambda name: (name, [], ["127.0.1.1", "10.1.2.3"]))
    assert rundemo.lan_address() == "10.1.2.3"
    monkeypatch.setattr(rundemo.socket, "gethostbyname_ex", lambda name: (name, [], ["127.0.1.1"]))
    assert rundemo.lan_address() is None
