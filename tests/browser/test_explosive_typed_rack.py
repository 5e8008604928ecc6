"""An explosive game's rack typed at the console from the real bag (docs/rules.md 7.7), in real Chromium: the
arbitrator types the rack with its blank; the console shows the rack with the letter the server chose for the
blank and tells the arbitrator to take that letter out of the bag and put the blank back, in the console's
language."""

from __future__ import annotations

import pytest

from .support import console_login, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-explosive-1"
TYPED = "aeirst?"


def test_the_console_says_which_letter_to_take_out_of_the_bag(new_page, screenshot, make_game, console_arbitrator):
    from tournaments.models import LogEntry, Round

    game = make_game(variant="explosive")
    page = new_page(size="laptop")
    page.goto("/console/")
    console_login(page, PASSWORD)
    page.goto(f"/console/games/{game.pk}/")

    page.get_by_label("Rack drawn from the bag").fill(TYPED)
    page.keyboard.press("Enter")
    page.wait_for_selector("#explosive-swap")
    round = Round.objects.get(game=game, number=1)
    letter = round.replaced
    assert letter and "?" not in round.rack and letter in round.rack
    entry = LogEntry.objects.filter(game=game, action="round_draw").order_by("-id").first()
    assert entry.after["replaced"] == letter
    swap = page.locator("#explosive-swap").inner_text()
    assert f"Take {letter} out of the bag and put the blank back in" in swap, swap
    wait_for(lambda: letter in page.locator("#rack").inner_text(), timeout=5)
    assert "?" not in page.locator("#rack").inner_text()
    screenshot(page, "console-explosive-typed-rack")
