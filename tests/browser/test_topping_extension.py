"""A topping phone's running time through the arbitrator's extension and pause (docs/rules.md 7.5), in real
Chromium: the time counts from the round's start on the server's clock, pauses included, as the server charges
a top; an extension moves the round's end (the countdown), never the running time. Before, the phone took the
start as the deadline minus the round's time, so an extension of 30 s took 30 s off its running time."""

from __future__ import annotations

import re
import time

import pytest

from .support import join_by_phone, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

ROUND_SECONDS = 60
EXTRA = 30


@pytest.fixture
def topping_game(db):
    from tournaments import services

    tournament = services.tournament_create(name="Soirée topping", variant="topping", round_seconds=ROUND_SECONDS)
    return services.game_create(tournament=tournament, seed=5)


def _running(page) -> int | None:
    found = re.search(r"(\d+) s", page.locator("#topping-time").inner_text())
    return int(found.group(1)) if found else None


def _left(page) -> int | None:
    """The countdown's seconds left (m:ss)."""
    found = re.search(r"(\d+):(\d\d)", page.locator("#countdown").inner_text())
    return int(found.group(1)) * 60 + int(found.group(2)) if found else None


def _elapsed(round) -> float:
    from django.utils import timezone

    return (timezone.now() - round.started_at).total_seconds()


def test_the_running_time_follows_the_extension_and_the_pause(new_page, screenshot, topping_game):
    from tournaments import services

    game = topping_game
    phone = new_page(size="phone")
    join_by_phone(phone, game.join_code, "Ana")

    round = services.round_start(round=services.round_draw(game=game, rack="AEINRST"))
    round.refresh_from_db()
    wait_for(lambda: (_running(phone) or 0) >= 3, timeout=20)

    services.round_extend(round=round, seconds=EXTRA, reason="noise in the hall")
    # The countdown takes the extension: about 90 s less the time gone.
    wait_for(lambda: (_left(phone) or 0) > ROUND_SECONDS, timeout=10)
    assert abs(_left(phone) - (ROUND_SECONDS + EXTRA - _elapsed(round))) <= 2
    # The running time goes on from the round's start: nothing taken off.
    time.sleep(1.2)
    shown = _running(phone)
    assert shown is not None and abs(shown - _elapsed(round)) <= 2, (shown, _elapsed(round))
    screenshot(phone, "topping-phone-extended")

    round = services.round_pause(round=round, reason="a player unwell")
    time.sleep(3.2)
    during = _running(phone)
    assert during is not None and abs(during - _elapsed(round)) <= 2, (during, _elapsed(round))
    screenshot(phone, "topping-phone-paused")
    round = services.round_resume(round=round)
    time.sleep(1.2)
    after = _running(phone)
    assert after is not None and after >= during and abs(after - _elapsed(round)) <= 2, (after, _elapsed(round))
