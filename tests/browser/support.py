"""Helpers shared by the browser tests."""

from __future__ import annotations

import re
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


def console_login(page, password: str, username: str = "arbitre") -> None:
    """Log in on the console's login page, open on ``page``, and wait for the console's home (the user of
    conftest.console_arbitrator by default)."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/console/")


def hand_in_training(page, word: str, ref: str, score: str) -> None:
    """Fill the training slip and hand it in."""
    page.fill("#slip-word", word)
    page.fill("#slip-ref", ref)
    page.fill("#slip-score", score)
    page.click("#train-judge")


def join_by_phone(page, code: str, name: str) -> None:
    """Join the game of ``code`` as ``name`` on the join page, and wait for the play page."""
    page.goto(f"/join/{code}")
    page.get_by_label(re.compile("name|nom", re.I)).fill(name)
    page.locator("#join-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/games/\d+/play$"))
