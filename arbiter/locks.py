"""An exclusive lock on a file, held across processes (the web server and the worker share the data folder)
on POSIX and on Windows alike: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` of the file's first byte on
Windows. Either is released by the system when the process ends, however it ends.

    with exclusive(path):          # waits for the lock (at most ``wait`` seconds, then TimeoutError)
        ...
    handle = attempt(path)         # the lock at once, or None when another process holds it
    release(handle)

Imports nothing of Django: the cache and the launcher use it alike.
"""

from __future__ import annotations

import contextlib
import os
import time

if os.name == "nt":
    import msvcrt
else:
    import fcntl

# A count of the embedded cache holds the lock for a few milliseconds: a wait this long means a process
# stopped while holding it (the system releases it when that process ends).
WAIT_SECONDS = 30.0


def _take(handle) -> bool:
    try:
        if os.name == "nt":
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def release(handle) -> None:
    """Release a lock taken by ``attempt`` and close its file."""
    try:
        if os.name == "nt":
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        handle.close()


def attempt(path):
    """The lock on ``path`` (created if missing) if no other process holds it, else None. The handle goes
    to ``release``."""
    handle = open(path, "a+b")  # noqa: SIM115 - held until release()
    if _take(handle):
        return handle
    handle.close()
    return None


@contextlib.contextmanager
def exclusive(path, wait: float = WAIT_SECONDS):
    """Hold the lock on ``path`` for the block, waiting for another process to release it (polled every few
    milliseconds: neither system waits with a deadline); TimeoutError after ``wait`` seconds."""
    handle = open(path, "a+b")  # noqa: SIM115 - closed by release()
    deadline = time.monotonic() + wait
    pause = 0.001
    while not _take(handle):
        if time.monotonic() >= deadline:
            handle.close()
            raise TimeoutError(f"{path}: locked by another process for more than {wait:.0f} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    try:
        yield
    finally:
        release(handle)
