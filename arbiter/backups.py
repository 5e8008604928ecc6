"""Copies of the embedded database (SQLite), and bringing one back.

``backup()`` copies the live database with SQLite's online backup API (``sqlite3.Connection.backup``): a
consistent copy taken while the web server and the worker go on writing (in WAL mode the copy reads a
snapshot and blocks no writer). The copy is written to a hidden file, made a self-contained database
(rollback journal, no ``-wal`` beside it), flushed to the disk, then renamed into
``DATA_DIR/backups/arbiter-<UTC time>.sqlite3``; the last ``ARBITER_BACKUPS_KEPT`` are kept. The worker
takes one after every closed round (tournaments.tasks.backup_database), ``manage.py backupdb`` on demand.

``restore(file)`` brings one back: the file must pass SQLite's ``integrity_check``, be this project's
database (its ``django_migrations`` table, no migration this code does not know) and no server may be
running on the data folder (``arbiter.running``). The current database is first backed up itself (so a
restore loses nothing either), then the file is copied into it with the same backup API (which handles the
live database's write-ahead log), the migrations made since the copy are applied, and the cache (the pages'
snapshots of the old games) is cleared.

The server's signing key goes with its database: a backup carries the key that sealed its receipts (in a
table of the copy, ``arbiter_seal_key``), and the copy is readable by its owner only (0o600, in a folder of
the owner's only). A restore takes the table out of the restored database and brings the key back
(tournaments.seal.bring_back): after a restore onto a fresh data folder, as after a laptop dies, the
receipts sealed before still read ``this_server``.

On PostgreSQL none of this applies: docker/README.md gives the pg_dump and pg_restore commands.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connections

PREFIX, SUFFIX = "arbiter-", ".sqlite3"
KEY_TABLE = "arbiter_seal_key"  # in a backup only: the signing key's seed


class BackupError(Exception):
    """A backup or restore that cannot be made; the message says why. Nothing was changed."""


def embedded_database() -> Path | None:
    """The embedded database's file, or None when the database is not the embedded SQLite."""
    db = settings.DATABASES["default"]
    if not db["ENGINE"].endswith("sqlite3"):
        return None
    return Path(db["NAME"])


def backup_folder() -> Path:
    return Path(settings.DATA_DIR) / "backups"


def backups() -> list[Path]:
    """The backups kept, oldest first (their names sort by time)."""
    folder = backup_folder()
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith(PREFIX) and p.name.endswith(SUFFIX))


def _connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    if read_only:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=20)
    return sqlite3.connect(str(path), timeout=20)


def _fsync(path: Path) -> None:
    with open(path, "r+b") as f:  # writable: Windows flushes only a handle open for writing
        os.fsync(f.fileno())


def _fsync_folder(folder: Path) -> None:
    if os.name == "nt":  # folders cannot be opened on Windows; NTFS journals the rename itself
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def backup(now: datetime | None = None) -> Path:
    """Copy the embedded database into DATA_DIR/backups/ and keep the last ARBITER_BACKUPS_KEPT copies."""
    source = embedded_database()
    if source is None:
        raise BackupError("the database is PostgreSQL: back it up with pg_dump (docker/README.md)")
    if not source.exists():
        raise BackupError(f"no database at {source}: nothing to back up")
    from tournaments.seal import key_seed

    folder = backup_folder()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(folder, 0o700)
    now = now or datetime.now(UTC)
    name = f"{PREFIX}{now.astimezone(UTC):%Y%m%d-%H%M%S-%f}{SUFFIX}"
    target = folder / name
    partial = folder / f".{name}.partial"
    partial.unlink(missing_ok=True)
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # owner-only before a byte is in
    seed = key_seed()
    src = _connect(source)
    try:
        dst = sqlite3.connect(str(partial))
        try:
            src.backup(dst)  # every page in one step: one consistent snapshot
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
            with dst:
                dst.execute(f"DROP TABLE IF EXISTS {KEY_TABLE}")
                dst.execute(f"CREATE TABLE {KEY_TABLE} (seed TEXT NOT NULL)")
                dst.execute(f"INSERT INTO {KEY_TABLE} (seed) VALUES (?)", (seed,))
        finally:
            dst.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    _fsync(partial)
    os.replace(partial, target)
    _fsync_folder(folder)
    prune()
    return target


def _owner_only(path: Path, mode: int) -> None:
    """The folder closed to others where it can be (a folder of another owner, a mount, keeps its mode: the
    copies themselves are created owner-only)."""
    if os.name != "nt":  # Windows has no such bits: the user's profile folder is the user's already
        try:
            os.chmod(path, mode)
        except OSError:
            pass


def carried_key(path: Path) -> str | None:
    """The signing key's seed a backup carries (None: a backup made before backups carried it)."""
    conn = _connect(Path(path), read_only=True)
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (KEY_TABLE,)).fetchone():
            return None
        row = conn.execute(f"SELECT seed FROM {KEY_TABLE} LIMIT 1").fetchone()
        return row[0] if row else None
    finally:
        conn.close()


def prune(keep: int | None = None) -> list[Path]:
    """Remove all but the newest ``keep`` backups (ARBITER_BACKUPS_KEPT); return those removed."""
    keep = settings.ARBITER_BACKUPS_KEPT if keep is None else keep
    kept = backups()
    removed = kept[:-keep] if keep > 0 else kept
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def check(path: Path) -> list[tuple[str, str]]:
    """Refuse (BackupError) a file that is not a sound copy of this project's database; return its applied
    migrations, (app, name) pairs."""
    from django.db.migrations.loader import MigrationLoader

    path = Path(path)
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    with open(path, "rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise BackupError(f"{path}: not an SQLite database")
    try:
        conn = _connect(path, read_only=True)
        try:
            problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise BackupError(f"{path}: damaged ({'; '.join(problems[:5])})")
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "django_migrations" not in tables:
                raise BackupError(f"{path}: not an arbiter database (no django_migrations table)")
            applied = [tuple(row) for row in conn.execute("SELECT app, name FROM django_migrations")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path}: not a readable SQLite database ({exc})") from None
    if not any(app == "tournaments" for app, _ in applied):
        raise BackupError(f"{path}: not an arbiter database (no tournaments migration applied)")
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    unknown = sorted(f"{app}.{name}" for app, name in applied if (app, name) not in known)
    if unknown:
        raise BackupError(f"{path}: made by a newer version of the arbiter (unknown migrations: "
                          f"{', '.join(unknown[:5])}); install that version to restore it")
    return applied


def restore(path: Path) -> tuple[Path | None, str | None]:
    """Bring the backup ``path`` back as the embedded database and its signing key; return the backup made of
    the database it replaces (None when there was none) and what became of the key (None: the backup carried
    none). Refuses, changing nothing, a bad file or a running server."""
    from arbiter import running
    from tournaments.seal import bring_back

    target = embedded_database()
    if target is None:
        raise BackupError("the database is PostgreSQL: restore it with pg_restore (docker/README.md)")
    check(path)
    holders = running.holders()
    if holders:
        raise BackupError(f"the arbiter is running on {settings.DATA_DIR} (process {', '.join(map(str, holders))})"
                          ": stop it (Ctrl-C where it runs), then restore")
    seed = carried_key(path)
    connections.close_all()
    before = backup() if target.exists() and target.stat().st_size else None
    target.parent.mkdir(parents=True, exist_ok=True)
    src = _connect(Path(path), read_only=True)
    try:
        dst = _connect(target)
        try:
            dst.execute("PRAGMA journal_mode=WAL")
            src.backup(dst)
            with dst:
                dst.execute(f"DROP TABLE IF EXISTS {KEY_TABLE}")  # the key lives in DATA_DIR, not the database
            dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            dst.close()
    finally:
        src.close()
    return before, (bring_back(seed) if seed else None)
