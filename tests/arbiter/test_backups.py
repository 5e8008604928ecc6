"""Backups of the embedded database and bringing one back (arbiter/backups.py, manage.py backupdb and
restoredb, which `arbiter backup` and `arbiter restore FILE` run), and a PostgreSQL dump restored with the
docker/README.md commands.

The embedded tests run the commands in processes of their own on scratch data folders (SQLite, DATABASE_URL
unset), a game played there through the services (tests/arbiter/backup_game.py); the standings are read
back by another process.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "tests" / "arbiter" / "backup_game.py"


def _env(data_dir: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(data_dir), DJANGO_SETTINGS_MODULE="arbiter.settings.dev", DEBUG="1",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    env.update(extra)
    return env


def _run(args: list[str], env: dict, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
                          input=stdin)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def _standings(env: dict) -> dict:
    return json.loads(_run([str(GAME), "standings"], env).stdout.strip().splitlines()[-1])


def _backups(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "backups").glob("arbiter-*.sqlite3"))


def test_backupdb_then_restoredb_on_a_copy_gives_identical_standings(tmp_path):
    laptop, other = tmp_path / "laptop", tmp_path / "other"
    env = _env(laptop)
    _run([str(GAME), "play"], env)
    played = _standings(env)
    assert played and all(game["standings"] for game in played.values())

    done = _run(["manage.py", "backupdb"], env)
    [copy] = _backups(laptop)
    assert str(copy) in done.stdout
    with sqlite3.connect(copy) as check:  # one self-contained file: rollback journal, not WAL
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert not Path(f"{copy}-wal").exists()

    # Another laptop (an empty data folder) gets the copy back: the same games and standings.
    moved = tmp_path / "usb-stick.sqlite3"
    shutil.copy(copy, moved)
    _run(["manage.py", "restoredb", str(moved)], _env(other))
    assert _standings(_env(other)) == played

    # The laptop plays on, then goes back to the copy: the later game is gone, the standings are the copy's,
    # and the database replaced was kept as a backup of its own (a restore loses nothing either).
    _run([str(GAME), "play"], _env(laptop, TOURNAMENT="After the backup", ROUNDS="1"))
    later = _standings(env)
    assert later != played
    done = _run(["manage.py", "restoredb", str(copy)], env)
    assert _standings(env) == played
    kept = [path for path in _backups(laptop) if path != copy]
    assert len(kept) == 1 and str(kept[0]) in done.stdout
    shutil.copy(kept[0], tmp_path / "kept.sqlite3")
    _run(["manage.py", "restoredb", str(tmp_path / "kept.sqlite3")], _env(tmp_path / "third"))
    assert _standings(_env(tmp_path / "third")) == later


def _checked(env: dict, receipt: str) -> dict:
    return json.loads(_run([str(GAME), "check"], env, stdin=receipt).stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("settings_module", ["arbiter.settings.dev", "arbiter.settings.app"])
def test_a_restore_on_a_fresh_data_folder_keeps_the_receipts_sealed_before(tmp_path, settings_module):
    """The laptop dies: its backup (`arbiter backup`) is restored (`arbiter restore FILE`) on another
    computer's fresh data folder, in a checkout (the key kept in DATA_DIR/signing.key) and installed (the key
    derived from DATA_DIR/secret.key). A receipt sealed before still reads this server's, on record; the
    copy that carries the key is readable by its owner only. A data folder that already had a key of its own
    (the arbiter run once before the restore) trusts both."""
    extra = {"DJANGO_SETTINGS_MODULE": settings_module}
    if settings_module == "arbiter.settings.app":
        extra.update(DEBUG="0", ALLOWED_HOSTS="localhost")
    laptop = _env(tmp_path / "laptop", **extra)
    _run([str(GAME), "play"], laptop)
    receipt = _run([str(GAME), "receipt"], laptop).stdout.strip().splitlines()[-1]
    assert _checked(laptop, receipt) == {"valid": True, "signer": "this_server", "verdict": "on_record"}
    _run(["-m", "arbiter", "backup"], laptop)
    [copy] = _backups(tmp_path / "laptop")
    if os.name == "posix":
        assert copy.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "laptop" / "backups").stat().st_mode & 0o777 == 0o700
    moved = tmp_path / "usb-stick.sqlite3"
    shutil.copy(copy, moved)
    shutil.rmtree(tmp_path / "laptop")  # the laptop is gone

    fresh = _env(tmp_path / "fresh", **extra)
    done = _run(["-m", "arbiter", "restore", str(moved)], fresh)
    assert _checked(fresh, receipt) == {"valid": True, "signer": "this_server", "verdict": "on_record"}
    assert "signing key" in done.stdout and "brought back" in done.stdout, done.stdout
    key = tmp_path / "fresh" / "signing.key"
    if os.name == "posix":
        assert key.stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(tmp_path / "fresh" / "arbiter.sqlite3") as db:  # the key is not left in the database
        assert not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'arbiter_seal_key'").fetchone()

    # Another computer that ran the arbiter once (a key of its own, a receipt sealed with it) before the
    # restore: the restored key takes over, and the receipts of both keys are this server's.
    other = _env(tmp_path / "other", **extra)
    _run([str(GAME), "play"], _env(tmp_path / "other", TOURNAMENT="Before the restore", ROUNDS="1", **extra))
    own = _run([str(GAME), "receipt"], other).stdout.strip().splitlines()[-1]
    assert json.loads(own)["seal"]["key"] != json.loads(receipt)["seal"]["key"]
    _run(["-m", "arbiter", "restore", str(moved)], other)
    assert _checked(other, receipt) == {"valid": True, "signer": "this_server", "verdict": "on_record"}
    [kept] = _backups(tmp_path / "other")  # the database replaced, with its own key
    _run(["-m", "arbiter", "restore", str(kept)], other)
    assert _checked(other, own) == {"valid": True, "signer": "this_server", "verdict": "on_record"}
    assert _checked(other, receipt)["signer"] == "this_server"  # of a game no longer there: but this server's


def test_restoredb_refuses_a_bad_file_or_a_running_server_and_changes_nothing(tmp_path):
    laptop = tmp_path / "laptop"
    env = _env(laptop)
    _run([str(GAME), "play"], env)
    played = _standings(env)
    _run(["manage.py", "backupdb"], env)
    [copy] = _backups(laptop)

    damaged = tmp_path / "damaged.sqlite3"
    data = bytearray(copy.read_bytes())
    page = 4096
    for offset in range(3 * page, min(len(data), 40 * page), page):  # pages of tables and indexes overwritten
        data[offset + 8:offset + 200] = b"\xa5" * 192
    damaged.write_bytes(bytes(data))

    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text TEXT)")

    newer = tmp_path / "newer.sqlite3"
    shutil.copy(copy, newer)
    with sqlite3.connect(newer) as db:
        db.execute("INSERT INTO django_migrations (app, name, applied) VALUES ('tournaments', '9999_future', "
                   "'2030-01-01')")

    text = tmp_path / "notes.txt"
    text.write_text("not a database")

    cases = {
        damaged: "damaged",
        foreign: "not an arbiter database",
        newer: "newer version",
        text: "not an SQLite database",
        tmp_path / "missing.sqlite3": "no such file",
    }
    for path, reason in cases.items():
        done = _run(["manage.py", "restoredb", str(path)], env, check=False)
        assert done.returncode != 0, (path, done.stdout)
        assert reason in done.stderr, (path, done.stderr)
    assert _backups(laptop) == [copy], "a refused restore makes no backup either"
    assert _standings(env) == played

    # A web server running on the data folder: refused, with what to do.
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "arbiter.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "off"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and not list((laptop / "running").glob("*.lock")):
            assert server.poll() is None
            time.sleep(0.1)
        done = _run(["manage.py", "restoredb", str(copy)], env, check=False)
        assert done.returncode != 0
        assert "is running" in done.stderr and str(server.pid) in done.stderr and "stop it" in done.stderr
    finally:
        server.kill()
        server.wait(timeout=10)
    assert _backups(laptop) == [copy]
    # Stopped (here killed: the lock goes with the process), the same restore goes through.
    _run(["manage.py", "restoredb", str(copy)], env)
    assert _standings(env) == played


def test_only_the_newest_backups_are_kept(tmp_path, settings):
    from arbiter import backups

    settings.DATA_DIR = tmp_path
    settings.ARBITER_BACKUPS_KEPT = 20
    folder = tmp_path / "backups"
    folder.mkdir()
    names = [f"arbiter-20261125-{hour:02d}{minute:02d}00-000000.sqlite3" for hour in (9, 10) for minute in range(0, 60, 5)]
    for name in names:
        (folder / name).write_bytes(b"")
    (folder / "notes.txt").write_text("not a backup: left alone")
    removed = backups.prune()
    assert [path.name for path in removed] == sorted(names)[:len(names) - 20]
    assert [path.name for path in backups.backups()] == sorted(names)[-20:]
    assert (folder / "notes.txt").exists()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- PostgreSQL: pg_dump and pg_restore, as docker/README.md gives them ---------------------------------------


def _postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def test_a_postgresql_dump_restored_gives_the_same_standings(tmp_path):
    url = _postgres_url()
    if url is None:
        pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://... (the embedded default has backupdb)")
    missing = [name for name in ("pg_dump", "pg_restore") if shutil.which(name) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} not on the PATH in CI (apt install postgresql-client)")
        pytest.skip(f"{', '.join(missing)} not on the PATH (apt install postgresql-client)")
    import psycopg

    parts = urlsplit(url)
    suffix = uuid.uuid4().hex[:8]
    source, target = f"arbiter_dump_{suffix}", f"arbiter_restore_{suffix}"

    def db_url(name: str) -> str:
        return urlunsplit(parts._replace(path=f"/{name}"))

    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{source}"')
        conn.execute(f'CREATE DATABASE "{target}"')
    try:
        env = _env(tmp_path / "data", DATABASE_URL=db_url(source))
        _run([str(GAME), "play"], env)
        played = _standings(env)
        assert played and all(game["standings"] for game in played.values())
        dump = tmp_path / "arbiter.dump"
        # docker/README.md: pg_dump --format=custom, then pg_restore --no-owner into an empty database.
        subprocess.run(["pg_dump", "--format=custom", "--file", str(dump), db_url(source)], check=True, timeout=120)
        subprocess.run(["pg_restore", "--no-owner", "--dbname", db_url(target), str(dump)], check=True, timeout=120)
        assert _standings(_env(tmp_path / "data", DATABASE_URL=db_url(target))) == played
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in (source, target):
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


PRAGMAS = ("import django; django.setup(); from django.db import connection; c = connection.cursor(); "
           "print(c.execute('PRAGMA journal_mode').fetchone()[0], c.execute('PRAGMA synchronous').fetchone()[0])")


def test_the_embedded_database_runs_in_wal_mode_with_synchronous_full(tmp_path):
    """A receipt promises the slip is kept: each commit reaches the disk before its answer (FULL: 2), with a
    write-ahead log; NORMAL (1) on request only; any other value refused with what is expected."""
    (tmp_path / "data").mkdir()
    assert _run(["-c", PRAGMAS], _env(tmp_path / "data")).stdout.split() == ["wal", "2"]
    assert _run(["-c", PRAGMAS], _env(tmp_path / "data", SQLITE_SYNCHRONOUS="normal")).stdout.split() == ["wal", "1"]
    refused = _run(["-c", PRAGMAS], _env(tmp_path / "data", SQLITE_SYNCHRONOUS="OFF"), check=False)
    assert refused.returncode != 0 and "SQLITE_SYNCHRONOUS='OFF' is not valid: expected FULL or NORMAL" in refused.stderr


def test_the_lock_files_of_ended_processes_are_removed_when_a_process_starts_serving(tmp_path):
    """Three processes served the data folder and ended without a word (killed: nothing of theirs ran at the
    end), one still serves it. A new server process (the web server, as the launcher runs it) removes the
    three dead ones' files and keeps the living one's."""
    running = tmp_path / "running"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="arbiter.settings.dev")
    hold = ("import django, sys, time; django.setup(); from arbiter.running import hold; "
            "print(hold(), flush=True); time.sleep(float(sys.argv[1]))")

    def holder(seconds: float) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-c", hold, str(seconds)], cwd=ROOT, env=env,
                                   stdout=subprocess.PIPE, text=True)
        assert process.stdout.readline().strip().endswith(f"{process.pid}.lock")  # it holds its lock now
        return process

    # Four at once (each removes only the files of processes already ended), then three of them killed.
    living, *doomed = [holder(60) for _ in range(4)]
    dead = []
    for process in doomed:
        process.kill()
        process.wait(timeout=10)
        dead.append(f"{process.pid}.lock")
    try:
        assert sorted(path.name for path in running.glob("*.lock")) == sorted(dead + [f"{living.pid}.lock"])
        server = holder(0)
        server.wait(timeout=30)
        left = sorted(path.name for path in running.glob("*.lock"))
        assert f"{living.pid}.lock" in left and not set(dead) & set(left), left
    finally:
        living.kill()
        living.wait(timeout=10)
