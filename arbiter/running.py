"""Which processes serve a data folder: each server process (the web server, the worker) holds a lock on a
file of its own, ``DATA_DIR/running/<pid>.lock``, for as long as it lives. The operating system drops the
lock when the process ends, however it ends (Ctrl-C, a crash, kill -9, a laptop switched off), so a lock
file that can be locked again is a dead process's, and is removed.

``manage.py restoredb`` refuses while a process holds one: a database replaced under a running server would
leave its clock and its pages on the old games. Locks: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on
Windows (both exclusive, released by the system with the process).
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

_held: dict[Path, object] = {}


def folder() -> Path:
    return Path(settings.DATA_DIR) / "running"


def _lock(f) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            f.seek(0)
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def hold() -> Path:
    """Mark this process as serving DATA_DIR until it ends (once per process). The lock files of processes
    that have ended (a crash, a worker killed at the stop, a laptop switched off) are removed first, so that
    they do not pile up from one evening to the next."""
    path = folder() / f"{os.getpid()}.lock"
    if path in _held:
        return path
    holders()
    path.parent.mkdir(parents=True, exist_ok=True)
    f = open(path, "a+b")  # noqa: SIM115 - held open for the life of the process
    if not _lock(f):
        f.close()
        raise RuntimeError(f"{path} is locked by another process")
    _held[path] = f
    return path


def holders() -> list[int]:
    """The ids of the live processes serving DATA_DIR (their lock files are locked); stale files removed."""
    found = []
    base = folder()
    if not base.is_dir():
        return found
    for path in sorted(base.glob("*.lock")):
        if path in _held:
            found.append(os.getpid())
            continue
        try:
            f = open(path, "r+b")  # noqa: SIM115
        except OSError:
            continue
        try:
            free = _lock(f)
        finally:
            f.close()  # closing drops our lock too
        if free:
            path.unlink(missing_ok=True)
        else:
            try:
                found.append(int(path.stem))
            except ValueError:
                found.append(-1)
    return found
