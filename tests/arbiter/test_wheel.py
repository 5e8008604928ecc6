"""The installed arbiter, seen from outside: the wheel built from this checkout, installed into a fresh venv in a
folder outside it, and `arbiter run --lan` started as a club starts it: no DJANGO_SETTINGS_MODULE (nor any
other setting) in the environment, HOME a fresh folder, so the data goes to that user's data folder
(platformdirs: ~/.local/share/duplicate-arbiter on Linux).

It runs with the safe settings (arbiter/settings/__init__.py): a page not found is the plain page, not
Django's debug page listing every address; the secret key is made in the data folder, readable by its owner
only, and the next start keeps it (a console session opened on the first run is still open on the second);
that start, on this computer only, names the installed command for the club's phones, `arbiter run --lan`.

The wheel is built once per session (pip wheel: setuptools comes from the build's isolated environment, so
from pip's cache or its index). The venv holds the wheel alone; the libraries it needs are read from this
checkout's venv, through a path placed after the venv's own packages (no second install of Django, Celery,
Numba...). The venv's arbiter, tournaments and engine are the wheel's: the first check says so.
.ci/wheel-check installs the wheel with its dependencies and plays a round with it.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.tournaments.stack import free_port

ROOT = Path(__file__).resolve().parents[2]
# Not copied into the wheel's build folder: the build writes build/ and *.egg-info there, not in the checkout.
NOT_BUILT = shutil.ignore_patterns(".git", ".venv", "var", "node_modules", "build", "dist", "*.egg-info",
                                   "__pycache__", ".pytest_cache", "staticfiles", ".ruff_cache")
# pip's words when its index cannot be reached (the build's setuptools comes from there or from its cache).
OFFLINE = re.compile(r"NewConnectionError|Could not find a version that satisfies|No matching distribution|"
                     r"Temporary failure in name resolution|Network is unreachable|ConnectTimeout")
START_SECONDS = 180


@pytest.fixture(scope="session")
def installed_arbiter(tmp_path_factory) -> Path:
    """The venv's ``arbiter`` command, the wheel installed in a folder outside the checkout."""
    scratch = tmp_path_factory.mktemp("wheel")
    source = scratch / "source"
    shutil.copytree(ROOT, source, ignore=NOT_BUILT)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(scratch / "dist"),
                            str(source)], capture_output=True, text=True, timeout=600)
    if build.returncode and OFFLINE.search(build.stdout + build.stderr):
        pytest.skip("the wheel's build needs setuptools from pip's cache or index, neither reachable here")
    assert build.returncode == 0, build.stdout + build.stderr
    [wheel] = (scratch / "dist").glob("duplicate_arbiter-*.whl")

    venv = scratch / "club" / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                                "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip())
    (site / "checkout_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = subprocess.run([str(python), "-c", "import arbiter, engine, tournaments; "
                            "print(arbiter.__file__, engine.__file__, tournaments.__file__)"],
                           cwd=scratch, env=_clean_env(scratch), capture_output=True, text=True, timeout=60)
    assert where.returncode == 0, where.stderr
    assert all(Path(path).is_relative_to(site) for path in where.stdout.split()), where.stdout
    return venv / "bin" / "arbiter"


def _clean_env(home: Path) -> dict:
    """A newcomer's shell: a home of its own, the system's PATH, no setting of the arbiter's."""
    return {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


class Launcher:
    """``arbiter run ...`` in a process group of its own (Ctrl-C in a terminal reaches the whole group), its
    output read all along."""

    def __init__(self, command: list[str], cwd: Path, env: dict):
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, start_new_session=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(self.process.stdout.readline, "")),
                                       daemon=True)
        self.reader.start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_running(self) -> str:
        deadline = time.monotonic() + START_SECONDS
        while "running at" not in self.output and self.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "running at" in self.output, self.output
        return re.search(r"running at (http://\S+?)/? ", self.output).group(1)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise
        finally:
            self.reader.join(timeout=5)


def _get(opener, url: str, data: dict | None = None) -> tuple[int, str, str]:
    """(status, final URL, body)."""
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(url, data=body, timeout=20) as response:
            return response.status, response.url, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, url, error.read().decode()


def _worker_environment(launcher: int) -> dict:
    """The environment of the launcher's Celery worker (a child in its process group), read from /proc."""
    if not Path("/proc/self/environ").exists():
        pytest.skip("no /proc here to read the worker's environment")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for proc in Path("/proc").iterdir():
            try:
                if (proc.name.isdigit() and os.getpgid(int(proc.name)) == launcher
                        and b"celery" in (proc / "cmdline").read_bytes()):
                    pairs = (proc / "environ").read_bytes().split(b"\0")
                    return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)
            except (OSError, ProcessLookupError):
                continue
        time.sleep(0.2)
    raise AssertionError("no worker in the launcher's process group")


def _plain_404(opener, base: str) -> None:
    status, _, page = _get(opener, f"{base}/no-such-page/")
    assert status == 404
    assert "The requested resource was not found on this server." in page, page[:2000]
    assert "DEBUG = True" not in page and "URLconf" not in page and "console/" not in page, page[:2000]


@pytest.mark.worker
def test_the_installed_arbiter_serves_the_lan_with_debug_off_and_keeps_its_secret_key(installed_arbiter, tmp_path):
    home = tmp_path / "home"
    club = tmp_path / "club"
    home.mkdir()
    club.mkdir()
    env = _clean_env(home)
    data = home / ".local" / "share" / "duplicate-arbiter"
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    first = Launcher([str(installed_arbiter), "run", "--lan", "--port", str(free_port()), "--no-warm"], club, env)
    try:
        base = first.wait_running()
        _plain_404(opener, base)
        key = data / "secret.key"
        assert key.stat().st_mode & 0o777 == 0o600
        made = key.read_text()
        assert len(made.strip()) >= 32

        # The worker the launcher started runs the same settings, DEBUG off too.
        worker = _worker_environment(first.process.pid)
        assert worker.get("DJANGO_SETTINGS_MODULE") == "arbiter.settings.app" and worker.get("DEBUG") == "0", worker

        # The arbitrator signs in with the password printed on this first run.
        password = re.search(r"password '([^']+)'", first.output).group(1)
        status, _, login = _get(opener, f"{base}/console/login/")
        assert status == 200
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login).group(1)
        status, landed, _ = _get(opener, f"{base}/console/login/",
                                 {"csrfmiddlewaretoken": token, "username": "arbitre", "password": password})
        assert status == 200 and landed == f"{base}/console/", landed
    finally:
        first.stop()
    assert first.process.returncode == 0 and "Stopped." in first.output, first.output

    # The next start, on this computer only: the same key, so the session opened above is still open.
    second = Launcher([str(installed_arbiter), "run", "--port", str(free_port()), "--no-warm"], club, env)
    try:
        base = second.wait_running()
        assert key.read_text() == made and key.stat().st_mode & 0o777 == 0o600
        status, landed, _ = _get(opener, f"{base}/console/")
        assert (status, landed) == (200, f"{base}/console/"), "signed out: the key changed"
        _plain_404(opener, base)
        assert "For the club's phones: arbiter run --lan" in second.output, second.output
        assert "make run" not in first.output + second.output
    finally:
        second.stop()
    assert second.process.returncode == 0, second.output
