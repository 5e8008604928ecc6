"""Helpers shared by the browser tests."""

from __future__ import annotations

import time


def wait_for(predicate, timeout: float = 10.0, step: float = 0.05):
    """Poll ``predicate`` until it returns something true (returned), or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"condition not met within {timeout} s")
