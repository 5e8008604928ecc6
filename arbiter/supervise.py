"""A child process kept running by the launcher (``manage.py rundemo``, which ``make run`` uses): the Celery
worker.

The worker can die while the web server goes on (it did when Redis died in the middle of a round:
``Unrecoverable error: AttributeError(...'hostname')``); compose restarts its container, but ``make run``
and a bare install had nobody to. ``Supervised`` starts the command, and when it exits (other than when
the launcher stops it) logs the exit and starts it again after a pause that doubles from ``first_delay``
up to ``max_delay`` (1 s, 2 s, 4 s... 30 s: a worker that cannot start, Redis still down, is not restarted
in a tight loop), back to ``first_delay`` once a run lasted ``steady_after`` seconds. The launcher calls
``check()`` from its loop; nothing here blocks.
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Callable, Sequence

logger = logging.getLogger(__name__)


class Supervised:
    def __init__(self, command: Sequence[str], *, name: str = "worker", env: dict | None = None,
                 log: Callable[[str], None] | None = None, first_delay: float = 1.0, max_delay: float = 30.0,
                 steady_after: float = 60.0, popen: dict | None = None):
        self.command, self.name, self.env = list(command), name, env
        self.log = log or logger.warning
        self.first_delay, self.max_delay, self.steady_after = first_delay, max_delay, steady_after
        self.popen = dict(popen or {})
        self.delay = first_delay
        self.process: subprocess.Popen | None = None
        self.started_at = 0.0
        self.restart_at: float | None = None
        self.restarts = 0
        self.stopped = False
        self.terminated = False  # terminate() sent (once: celery takes a second signal for a harder stop)
        self.terminated_at = 0.0

    def start(self) -> subprocess.Popen:
        self.process = subprocess.Popen(self.command, env=self.env, **self.popen)
        self.started_at = time.monotonic()
        return self.process

    def check(self, now: float | None = None) -> None:
        """Restart the child if it exited and its pause is over; note an exit and plan the restart."""
        if self.stopped or self.process is None:
            return
        now = time.monotonic() if now is None else now
        if self.restart_at is not None:
            if now >= self.restart_at:
                self.restart_at = None
                self.restarts += 1
                self.start()
                self.log(f"the {self.name} is started again (pid {self.process.pid}, restart {self.restarts})")
            return
        code = self.process.poll()
        if code is None:
            return
        ran = now - self.started_at
        if ran >= self.steady_after:
            self.delay = self.first_delay
        self.log(f"the {self.name} stopped (exit code {code}) after {ran:.0f} s: starting it again in "
                 f"{self.delay:g} s")
        self.restart_at = now + self.delay
        self.delay = min(self.delay * 2, self.max_delay)

    def stop_soon(self) -> None:
        """Ask the child to stop (``terminate()``) without waiting, and restart it no more: what a signal
        handler may call. ``stop()`` then waits for it."""
        self.stopped = True
        process = self.process
        if process is not None and process.poll() is None and not self.terminated:
            self.terminated, self.terminated_at = True, time.monotonic()
            process.terminate()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the child (``terminate()``: SIGTERM on POSIX, TerminateProcess on Windows; ``kill()``
        ``timeout`` seconds after the terminate(), this call's or stop_soon()'s) and restart it no more."""
        self.stopped = True
        process = self.process
        if process is None or process.poll() is not None:
            return
        if not self.terminated:
            self.terminated, self.terminated_at = True, time.monotonic()
            process.terminate()
        try:
            process.wait(timeout=max(0.0, self.terminated_at + timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
