"""The arbiter as an app (arbiter/app.py, arbiter/places.py, the launcher in rundemo): what the wheel lists,
where an installed arbiter keeps its data, the arbitrator's account without a fixed password, the worker
without fork, and the whole launcher run as on Windows: no fork, setsid or process groups in any of its
processes, one round played through the API, Ctrl-C to the launcher alone stopping both processes.

The wheel itself, installed in a fresh venv outside the checkout, is played against by .ci/wheel-check.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_for_the_wheel():
    """pyproject.toml lists the packages by hand (the bundle's folders are mapped into arbiter/bundle/): a
    package added without its line would be missing from the installed app."""
    from setuptools import find_packages

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = set(find_packages(str(ROOT), include=["arbiter*", "tournaments*", "engine*"]))
    assert found - listed == set()
    assert {"arbiter.bundle.templates", "arbiter.bundle.static", "arbiter.bundle.locale", "arbiter.bundle.docs"} <= listed


def test_a_checkout_keeps_its_files_at_the_top_and_an_installed_arbiter_in_the_users_data_folder(
        monkeypatch, tmp_path):
    from arbiter import places

    assert places.in_checkout()
    assert places.assets_dir() == ROOT
    assert places.default_data_dir() == ROOT / "var"

    # The package as a wheel installs it: no manage.py beside it.
    site = tmp_path / "site-packages"
    (site / "arbiter").mkdir(parents=True)
    monkeypatch.setattr(places, "PACKAGE_DIR", site / "arbiter")
    monkeypatch.setattr(places, "CHECKOUT_DIR", site)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert not places.in_checkout()
    assert places.assets_dir() == site / "arbiter" / "bundle"
    assert places.default_data_dir() == tmp_path / "share" / "duplicate-arbiter"


def test_the_installed_settings_make_a_secret_key_once_and_serve_the_packages_static_files(tmp_path):
    code = ("from django.conf import settings; import django; django.setup(); "
            "print(settings.SECRET_KEY); print(settings.DEBUG); print(settings.WHITENOISE_USE_FINDERS)")
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL",
                                                           "REQUIRE_SERVICES")}
    env.update(DJANGO_SETTINGS_MODULE="arbiter.settings.app", DATA_DIR=str(tmp_path / "data"))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    key, debug, finders = first.stdout.split()
    assert len(key) >= 32 and debug == "False" and finders == "True"
    assert second.stdout.split()[0] == key, "the key made on the first run is kept"
    assert (tmp_path / "data" / "secret.key").stat().st_mode & 0o077 == 0


@pytest.mark.django_db
def test_the_first_run_creates_the_arbitrators_account_with_a_password_of_its_own(django_user_model):
    from tournaments.demo import DEMO_PASSWORD, DEMO_USERNAME, ensure_arbitrator

    [line] = ensure_arbitrator(console_url="http://127.0.0.1:8000/console/")
    password = re.search(r"password '([^']+)'", line).group(1)
    user = django_user_model.objects.get(username=DEMO_USERNAME)
    assert user.is_staff and user.check_password(password) and password != DEMO_PASSWORD
    assert "http://127.0.0.1:8000/console/" in line

    # The next run prints how to sign in, not a password.
    [again] = ensure_arbitrator(console_url="http://127.0.0.1:8000/console/")
    assert "password '" not in again and DEMO_USERNAME in again
    assert django_user_model.objects.get(username=DEMO_USERNAME).check_password(password)


@pytest.mark.django_db
def test_the_demo_password_is_replaced_where_a_fixed_password_is_not_allowed(django_user_model):
    from tournaments.demo import DEMO_PASSWORD, DEMO_USERNAME, create_demo, ensure_arbitrator

    create_demo()
    assert django_user_model.objects.get(username=DEMO_USERNAME).check_password(DEMO_PASSWORD)
    # Allowed (a checkout on 127.0.0.1): kept.
    ensure_arbitrator(console_url="http://127.0.0.1:8000/console/", fixed_password_allowed=True)
    assert django_user_model.objects.get(username=DEMO_USERNAME).check_password(DEMO_PASSWORD)
    [line] = ensure_arbitrator(console_url="http://192.168.1.20:8000/console/")
    password = re.search(r"new password '([^']+)'", line).group(1)
    user = django_user_model.objects.get(username=DEMO_USERNAME)
    assert not user.check_password(DEMO_PASSWORD) and user.check_password(password)


def test_the_worker_runs_in_one_process_of_threads_with_the_beat_in_a_thread(settings):
    from tournaments.management.commands.rundemo import worker_command

    command = worker_command("python", "/data/celerybeat-schedule")
    assert command[command.index("--pool") + 1] == "threads"
    assert command[command.index("--concurrency") + 1] == str(settings.ARBITER_WORKER_THREADS)
    assert "--beat-thread" in command and "--beat" not in command and "-B" not in command


def test_no_posix_only_call_in_the_launcher():
    """The launcher's code (what Windows runs) names no POSIX-only call."""
    sources = [ROOT / "arbiter" / "app.py", ROOT / "arbiter" / "supervise.py",
               ROOT / "tournaments" / "management" / "commands" / "rundemo.py"]
    posix_only = re.compile(r"\b(os\.(setsid|setpgid|killpg|getpgid|fork|forkpty)|start_new_session|"
                            r"preexec_fn|SIGKILL|SIGHUP|SIGQUIT)\b")
    found = [f"{path.name}:{n}: {line.strip()}" for path in sources
             for n, line in enumerate(path.read_text().splitlines(), 1) if posix_only.search(line)]
    assert found == []


# What Windows lacks (fork, sessions and process groups, the resource module), taken away from every process
# of the launcher (the launcher, its migrations, the worker): a sitecustomize.py found first on PYTHONPATH.
# Each process that ran it leaves a file named by its id.
NO_FORK = '''
import os, pathlib, sys
for name in ("fork", "forkpty", "setsid", "setpgid", "killpg", "getpgid", "getsid"):
    if hasattr(os, name):
        delattr(os, name)
sys.modules["resource"] = None  # POSIX only: importing it raises ImportError, as on Windows
pathlib.Path(os.environ["NO_FORK_MARKS"], str(os.getpid())).touch()
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.worker
def test_the_launcher_runs_a_round_without_fork_or_process_groups_and_stops_on_ctrl_c(tmp_path):
    """`arbiter run --lan` (so: no demo password), every process without fork, setsid or process groups: a
    round through the API, then SIGINT to the launcher alone (as Windows' Ctrl-C reaches it): both the web
    server and the worker stop, exit code 0. Figures printed: start-up and stop times."""
    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "sitecustomize.py").write_text(NO_FORK)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "PUBLIC_URL")}
    env.update(DATA_DIR=str(tmp_path / "data"), NO_FORK_MARKS=str(marks),
               PYTHONPATH=os.pathsep.join(filter(None, [str(custom), os.environ.get("PYTHONPATH")])),
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    port = _free_port()
    started = time.monotonic()
    # Not a group of its own: the launcher alone gets the SIGINT below, and must stop its worker itself.
    launcher = subprocess.Popen([sys.executable, "-m", "arbiter", "run", "--lan", "--port", str(port), "--no-warm"],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    worker_pids: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while not any("running at" in line for line in lines) and time.monotonic() < deadline:
            line = launcher.stdout.readline()
            if not line:
                break
            lines.append(line)
        text = "".join(lines)
        assert "running at" in text, text
        up = time.monotonic() - started
        password = re.search(r"password '([^']+)'", text).group(1)
        assert password != "duplicate", "a server the network can reach has no fixed password"

        played = subprocess.run(
            [sys.executable, str(ROOT / ".ci" / "play_round.py"), "--url", f"http://127.0.0.1:{port}",
             "--username", "arbitre", "--password", password, "--lexicon-cache", env["LEXICON_CACHE_DIR"]],
            cwd=tmp_path, capture_output=True, text=True, timeout=240)
        assert played.returncode == 0, played.stdout + played.stderr
        assert "paid" in played.stdout

        marked = {int(p.name) for p in marks.iterdir()}
        assert launcher.pid in marked
        worker_pids = {pid for pid in marked if pid != launcher.pid and Path(f"/proc/{pid}").exists()
                       and b"celery" in Path(f"/proc/{pid}/cmdline").read_bytes()}
        assert len(worker_pids) == 1, "one worker process, itself without fork"
        [worker] = worker_pids
        assert b"threads" in Path(f"/proc/{worker}/cmdline").read_bytes()
        assert [child for child in Path(f"/proc/{worker}/task").iterdir()], "the worker runs"
    finally:
        stopping = time.monotonic()
        launcher.send_signal(signal.SIGINT)
        try:
            rest, _ = launcher.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            launcher.kill()
            for pid in worker_pids:
                os.kill(pid, signal.SIGKILL)
            raise
    stopped = time.monotonic() - stopping
    assert launcher.returncode == 0, "".join(lines) + rest
    assert rest.rstrip().endswith("Stopped.")
    assert all(not Path(f"/proc/{pid}").exists() for pid in worker_pids), "the worker stopped with the launcher"
    print(f"up in {up:.1f} s; {played.stdout.strip()}; stopped in {stopped:.1f} s")


def test_the_arbiter_command_hands_backup_restore_and_the_club_commands_to_django(tmp_path):
    """`arbiter migrate -v 0` (options passed whole), `arbiter backup`, `arbiter restore FILE`; a file that is
    not a database is refused with the reason and exit code 1, the database left as it was."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(tmp_path / "data"))

    def arbiter(*args):
        return subprocess.run([sys.executable, "-m", "arbiter", *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)

    assert arbiter("migrate", "-v", "0").returncode == 0
    database = tmp_path / "data" / "arbiter.sqlite3"
    assert database.exists(), "the data folder is made and the database in it"
    backed = arbiter("backup")
    assert backed.returncode == 0, backed.stderr
    [copy] = (tmp_path / "data" / "backups").iterdir()
    restored = arbiter("restore", str(copy))
    assert restored.returncode == 0, restored.stderr
    assert f"restored from {copy}" in restored.stdout
    before = database.read_bytes()
    junk = tmp_path / "junk.sqlite3"
    junk.write_text("not a database")
    refused = arbiter("restore", str(junk))
    assert refused.returncode == 1
    assert "not an SQLite database" in refused.stderr
    assert database.read_bytes() == before
    usage = arbiter("importlexicon", "--help")
    assert usage.returncode == 0 and "--name" in usage.stdout
