"""A second, different paper slip typed for a table, in real Chromium: the page asks with its own buttons
("Replace: typing correction", "Second slip, paid 0") and a way out (Esc, or Cancel) that records nothing;
no browser dialog is opened, and the banner says what was recorded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .support import console_login, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-second-slip-1"
RACK = "AEINRST"
# Where the screenshots of this test go (outside the repository), besides test-artifacts.
SHOTS = Path(os.environ.get("ARBITER_TEST_SHOTS", "test-artifacts/screenshots/second-slip"))


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def log_in(page):
    page.goto("/console/")
    console_login(page, PASSWORD)


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_a_second_slip_is_asked_with_buttons_and_esc_records_nothing(new_page, arbitrator):
    from tournaments import services
    from tournaments.models import LogEntry, Slip

    tournament = services.tournament_create(name="Club evening", round_seconds=900)
    game = services.game_create(tournament=tournament, seed=7)
    for table, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
        services.player_register(game=game, name=name, table=table)
    round = services.round_start(round=services.round_draw(game=game, rack=RACK))

    page = new_page(size="laptop")
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page)
    page.goto(f"/console/games/{game.pk}/slips/")
    page.wait_for_selector("#slip-form")
    status = page.locator("#slip-status")
    box = page.locator("#second-slip")

    def type_slip(table, word, ref, score):
        page.keyboard.type(str(table))
        page.keyboard.press("Tab")
        page.keyboard.type(word)
        page.keyboard.press("Tab")
        page.keyboard.type(ref)
        page.keyboard.press("Tab")
        page.keyboard.type(str(score))
        page.keyboard.press("Enter")

    def held(table):
        return (Slip.objects.filter(round=round, player__table=table, current=True)
                .values_list("word", "several").first())

    for table in (1, 2, 3):
        type_slip(table, "RETAINS", "H2", 70)
    wait_for(lambda: Slip.objects.filter(round=round).count() == 3)
    wait_for(lambda: page.locator("#slip-form").get_attribute("data-pending") == "0")
    assert box.is_hidden()

    # Esc: nothing recorded, the banner says so (not green), the entry comes back to be fixed.
    type_slip(1, "NASTIER", "H3", 68)
    wait_for(lambda: box.is_visible())
    assert "RETAINS" in page.locator("#second-slip-text").inner_text()
    assert page.get_by_role("button", name="Replace: typing correction").is_visible()
    assert page.get_by_role("button", name="Second slip, paid 0").is_visible()
    shot(page, "second-slip-asked")
    page.keyboard.press("Enter")  # the box has the focus, no button: a stray Enter records nothing
    page.keyboard.press("Escape")
    wait_for(lambda: box.is_hidden())
    wait_for(lambda: "nothing recorded" in status.inner_text())
    assert "Recorded" not in status.inner_text() and "is-ok" not in status.get_attribute("class")
    assert held(1) == ("RETAINS", False)
    assert Slip.objects.filter(round=round).count() == 3
    assert not LogEntry.objects.filter(action__in=["slip_several", "slip_replace"]).exists()
    assert page.locator("#id_word").input_value() == "NASTIER"  # back in the form, to fix or send again
    shot(page, "second-slip-cancelled")

    # The Cancel button does the same.
    for name in ("table", "word", "ref", "score"):
        page.locator(f"#id_{name}").fill("")
    page.locator("#id_table").focus()
    type_slip(2, "NASTIER", "H3", 68)
    wait_for(lambda: box.is_visible())
    page.locator("#second-slip-cancel").click()
    wait_for(lambda: "Table 2" in status.inner_text() and "nothing recorded" in status.inner_text())
    assert held(2) == ("RETAINS", False) and Slip.objects.filter(round=round).count() == 3
    for name in ("table", "word", "ref", "score"):
        page.locator(f"#id_{name}").fill("")
    page.locator("#id_table").focus()

    # A second slip, paid 0: said so in the banner, not "Recorded" in green.
    type_slip(2, "STAINER", "H4", 66)
    wait_for(lambda: box.is_visible())
    page.get_by_role("button", name="Second slip, paid 0").click()
    wait_for(lambda: held(2) == ("STAINER", True))
    wait_for(lambda: "Second slip: paid 0" in status.inner_text())
    assert "is-warning" in status.get_attribute("class") and "is-ok" not in status.get_attribute("class")
    assert LogEntry.objects.filter(action="slip_several").count() == 1
    shot(page, "second-slip-paid-0")

    # A typing correction: replaces the first, said so.
    type_slip(3, "NASTIER", "H3", 68)
    wait_for(lambda: box.is_visible())
    page.get_by_role("button", name="Replace: typing correction").click()
    wait_for(lambda: held(3) == ("NASTIER", False))
    wait_for(lambda: "replaces the earlier slip" in status.inner_text())
    assert "is-ok" in status.get_attribute("class")
    assert LogEntry.objects.filter(action="slip_replace").count() == 1
    assert page.evaluate("document.activeElement.id") == "id_table"
    shot(page, "second-slip-replaced")
    assert not dialogs, dialogs  # never the browser's OK/Cancel
    assert not page.errors, page.errors
