"""A paper slip handed in after the end call, typed on the paper-slip page of the closed round with the time it
was handed in, in real Chromium: kept on record, late by counted from that time; a time in the future is
refused in words and records nothing."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest

from .support import console_login, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-late-paper-1"
SHOTS = Path(os.environ.get("ARBITER_TEST_SHOTS", "test-artifacts/screenshots/late-paper"))


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def test_a_late_paper_slip_is_typed_with_the_time_it_was_handed_in(new_page, arbitrator):
    from django.utils import timezone

    from tournaments import services
    from tournaments.models import LateSlip

    tournament = services.tournament_create(name="Club evening", round_seconds=60)
    game = services.game_create(tournament=tournament, seed=7)
    for table, name in ((1, "Ann"), (2, "Bob")):
        services.player_register(game=game, name=name, table=table)
    started = timezone.now().replace(microsecond=0) - timedelta(seconds=100)
    round = services.round_start(round=services.round_draw(game=game, rack="AEINRST"), now=started)
    services.round_close(round=round)
    round.refresh_from_db()

    page = new_page(size="laptop")
    page.goto("/console/")
    console_login(page, PASSWORD)
    page.goto(f"/console/games/{game.pk}/slips/")
    form = page.locator("#late-paper-form")
    form.wait_for()
    assert page.locator("#late-paper").is_visible()

    # In the future: refused, said why, nothing recorded.
    future = timezone.localtime(timezone.now() + timedelta(minutes=2)).strftime("%H:%M:%S")
    if future > timezone.localtime(timezone.now()).strftime("%H:%M:%S"):  # not across midnight
        page.locator("#late-table").fill("2")
        page.locator("#late-word").fill("RETAINS")
        page.locator("#late-received-at").fill(future)
        page.get_by_role("button", name="Record as late").click()
        wait_for(lambda: "in the future" in page.locator("main").inner_text())
        assert not LateSlip.objects.exists()

    handed = timezone.localtime(round.deadline + timedelta(seconds=12)).strftime("%H:%M:%S")
    page.locator("#late-table").fill("2")
    page.locator("#late-word").fill("RETAINS")
    page.locator("#late-ref").fill("H2")
    page.locator("#late-score").fill("70")
    page.locator("#late-received-at").fill(handed)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "late-paper-typed.png"))
    page.get_by_role("button", name="Record as late").click()
    wait_for(lambda: "late by 12.0 s" in page.locator("main").inner_text())
    late = LateSlip.objects.get(round=round)
    assert (late.player.name, late.late_by) == ("Bob", 12.0)
    page.screenshot(path=str(SHOTS / "late-paper-recorded.png"))
    assert not page.errors, page.errors
