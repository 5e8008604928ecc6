"""Which settings a process runs (arbiter/settings/__init__.py): importing the project chooses nothing, the
entry points choose the safe settings unless DJANGO_SETTINGS_MODULE names others, and a server beyond
loopback never runs with DEBUG on. Each check runs a fresh Python without DJANGO_SETTINGS_MODULE, as an
installed arbiter, a worker started by hand or a server of arbiter.asgi would.

The installed wheel itself, `arbiter run --lan` from outside the checkout: test_wheel.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournaments.stack import free_port

ROOT = Path(__file__).resolve().parents[2]
# What the environment of a newcomer's shell does not hold.
NOT_SET = ("DJANGO_SETTINGS_MODULE", "DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES",
           "ALLOWED_HOSTS", "PUBLIC_URL", "PYTEST_XDIST_WORKER")


def _clean_env(tmp_path: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in NOT_SET}
    env.update(DATA_DIR=str(tmp_path / "data"), **extra)
    return env


def _python(code: str, env: dict, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_importing_the_project_and_its_celery_app_chooses_no_settings(tmp_path):
    done = _python("import os, arbiter, arbiter.celery, arbiter.app, arbiter.places; "
                   "print(os.environ.get('DJANGO_SETTINGS_MODULE'))", _clean_env(tmp_path))
    assert done.stdout.strip() == "None"


def test_the_asgi_application_without_a_settings_module_runs_the_safe_settings(tmp_path):
    """A production that forgets DJANGO_SETTINGS_MODULE: DEBUG off, the key made in the data folder."""
    done = _python("import json, arbiter.asgi; from django.conf import settings; "
                   "print(json.dumps([settings.SETTINGS_MODULE, settings.DEBUG, settings.SECRET_KEY]))",
                   _clean_env(tmp_path), cwd=tmp_path)
    module, debug, key = json.loads(done.stdout.strip().splitlines()[-1])
    assert (module, debug) == ("arbiter.settings.app", False)
    kept = tmp_path / "data" / "secret.key"
    assert kept.read_text().strip() == key and len(key) >= 32
    assert kept.stat().st_mode & 0o777 == 0o600


def test_a_worker_started_by_hand_reads_the_safe_settings_with_celerys_django_fixup(tmp_path):
    done = _python("import os; from arbiter.celery import app; from celery.fixups.django import DjangoFixup; "
                   "app.conf.broker_url; "
                   "print(os.environ['DJANGO_SETTINGS_MODULE'], any(isinstance(f, DjangoFixup) for f in app._fixups))",
                   _clean_env(tmp_path), cwd=tmp_path)
    assert done.stdout.split() == ["arbiter.settings.app", "True"]


def test_the_arbiter_command_runs_the_safe_settings_and_the_development_ones_only_when_named(tmp_path):
    code = ("import sys; from arbiter.app import setup; assert setup(host=sys.argv[1]); "
            "from django.conf import settings; import os; "
            "print(settings.SETTINGS_MODULE, settings.DEBUG, os.environ['DEBUG'] if 'DEBUG' in os.environ else '-')")

    def run(host: str, **extra: str) -> list[str]:
        env = _clean_env(tmp_path, **extra)
        done = subprocess.run([sys.executable, "-c", code, host], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.split()

    assert run("127.0.0.1") == ["arbiter.settings.app", "False", "-"]
    # `make run` names the development settings: DEBUG on this computer only.
    assert run("127.0.0.1", DJANGO_SETTINGS_MODULE="arbiter.settings.dev") == ["arbiter.settings.dev", "True", "1"]
    # `make run HOST=0.0.0.0`, even with DEBUG=1 asked: off, for the launcher and the worker it starts.
    assert run("0.0.0.0", DJANGO_SETTINGS_MODULE="arbiter.settings.dev", DEBUG="1") == [
        "arbiter.settings.dev", "False", "0"]
    assert run("192.168.1.20", DJANGO_SETTINGS_MODULE="arbiter.settings.test") == [
        "arbiter.settings.test", "False", "0"]
    assert (tmp_path / "data" / "secret.key").stat().st_mode & 0o777 == 0o600


def test_the_choice_in_one_place():
    from arbiter.settings import DEVELOPMENT, SAFE, choose

    assert SAFE == "arbiter.settings.app" and DEVELOPMENT == "arbiter.settings.dev"
    environ: dict = {}
    assert choose(environ=environ) == SAFE and environ == {"DJANGO_SETTINGS_MODULE": SAFE}
    assert choose(development=True, environ={}) == DEVELOPMENT
    assert choose(development=True, environ={"DJANGO_SETTINGS_MODULE": "arbiter.settings.base"}) == "arbiter.settings.base"
    for host, debug in (("127.0.0.1", "1"), ("localhost", "1"), ("::1", "1"), ("127.0.0.2", "1"),
                        ("0.0.0.0", "0"), ("", "0"), ("::", "0"), ("10.0.0.5", "0"), ("club.lan", "0")):
        environ = {"DEBUG": "1"}
        choose(host=host, environ=environ)
        assert environ["DEBUG"] == debug, host


@pytest.mark.parametrize("settings_module", ["arbiter.settings.dev", "arbiter.settings.test"])
def test_manage_rundemo_beyond_loopback_with_debug_on_is_refused_before_anything_is_set_up(tmp_path, settings_module):
    env = _clean_env(tmp_path, DJANGO_SETTINGS_MODULE=settings_module, DEBUG="1")
    # A group of its own: a launcher that served after all (the refusal missing) is stopped with its worker.
    process = subprocess.Popen([sys.executable, "manage.py", "rundemo", "--host", "0.0.0.0", "--port", str(free_port())],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError("the launcher served beyond loopback with DEBUG on") from None
    assert process.returncode != 0
    assert "never runs with DEBUG on" in err and "make run HOST=0.0.0.0" in err
    assert not (tmp_path / "data" / "arbiter.sqlite3").exists()


def test_a_checkouts_seal_stays_the_same_when_debug_goes_off(settings, tmp_path):
    """`make run` on this computer (the development key) seals with a key it keeps in DATA_DIR/signing.key;
    `make run HOST=0.0.0.0` on the same data folder has a real secret key (DATA_DIR/secret.key): the seal is
    the same, so receipts and the centre's registered key stay good. A data folder without one derives it."""
    from tournaments import seal

    settings.ARBITER_SIGNING_KEY = ""
    settings.DATA_DIR = tmp_path / "var"
    settings.SECRET_KEY = seal.DEVELOPMENT_SECRET
    on_this_computer = seal.public_key()
    assert (tmp_path / "var" / seal.KEY_FILE).exists()
    settings.SECRET_KEY = "k" * 48
    assert seal.public_key() == on_this_computer

    settings.DATA_DIR = tmp_path / "installed"
    derived = seal.public_key()
    assert derived != on_this_computer and not (tmp_path / "installed" / seal.KEY_FILE).exists()
