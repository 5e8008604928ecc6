"""The console's tournament page in real Chromium: a mistaken game deleted after the confirmation page, a
played one archived (gone from the home page, still on the console) and brought back, the settings edited.
Screenshots in test-artifacts/screenshots/ (and SHOTS_DIR when set)."""

from __future__ import annotations

import pytest

from .support import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-lifecycle-1"


def log_in(page):
    page.goto("/console/")
    console_login(page, PASSWORD)


def test_a_mistaken_game_is_deleted_a_played_one_archived_and_the_settings_edited(
        new_page, screenshot, console_arbitrator):
    from tournaments import services
    from tournaments.models import Game, Tournament

    tournament = services.tournament_create(name="Ten-second test", round_seconds=10, created_by=console_arbitrator)
    played = services.game_create(tournament=tournament, seed=1, actor=console_arbitrator)
    services.player_register(game=played, name="Ada", table=1, actor=console_arbitrator)
    services.round_draw(game=played, actor=console_arbitrator)
    services.round_cancel(round=played.rounds.get(number=1), reason="a test", actor=console_arbitrator)
    mistaken = services.game_create(tournament=tournament, seed=2, actor=console_arbitrator)

    home = new_page(size="laptop")
    home.goto("/")
    assert "Ten-second test" in home.locator("#home-games").inner_text()

    page = new_page(size="laptop")
    log_in(page)
    page.goto(f"/console/tournaments/{tournament.pk}/")
    screenshot(page, "lifecycle-tournament", full_page=True)

    # The game never started: Delete, a page that asks, then gone.
    page.locator(f"#game-row-{mistaken.number}").get_by_role("link", name="Delete").click()
    page.wait_for_selector("#delete-confirm")
    screenshot(page, "lifecycle-delete-confirm")
    assert Game.objects.filter(pk=mistaken.pk).exists()
    page.locator("#delete-confirm").click()
    page.wait_for_selector("text=Game 2 deleted.")
    assert not Game.objects.filter(pk=mistaken.pk).exists()

    # The played game: archived, gone from the home page, still on the console; then brought back.
    page.locator(f"#game-row-{played.number}").get_by_role("button", name="Archive").click()
    page.wait_for_selector("text=Game 1 archived")
    screenshot(page, "lifecycle-archived", full_page=True)
    assert "archived" in page.locator(f"#game-row-{played.number}").inner_text()
    home.goto("/")
    assert "Ten-second test" not in home.locator("main").inner_text()
    page.locator(f"#game-row-{played.number}").get_by_role("button", name="Bring back").click()
    page.wait_for_selector("text=Game 1 brought back")
    home.goto("/")
    assert "Ten-second test" in home.locator("#home-games").inner_text()

    # The settings: a round was drawn, so the name only.
    page.locator("#tournament-edit").click()
    page.wait_for_selector("#tournament-started")
    assert page.locator("#id_round_seconds").count() == 0
    page.locator("#id_name").fill("Club night (test)")
    screenshot(page, "lifecycle-edit")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Tournament “Club night (test)” saved.")
    assert Tournament.objects.get(pk=tournament.pk).name == "Club night (test)"
    assert page.errors == []
