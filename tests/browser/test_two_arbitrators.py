"""Two arbitrators type paper slips for one round from their own laptops (real Chromium, two browser
contexts): each sees the other's entries appear on the paper-slip page without reloading it, and the
assistant, who enters slips, is refused the clock."""

from __future__ import annotations

import re

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-two-arbitrators-1"
RACK = "AEINRST"


def log_in(page, username: str):
    page.goto("/console/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")
    page.wait_for_url(re.compile(r"/console/$"))


def type_slip(page, table: int, word: str, ref: str):
    page.locator("#id_table").focus()
    page.keyboard.type(str(table))
    page.keyboard.press("Tab")
    page.keyboard.type(word)
    page.keyboard.press("Tab")
    page.keyboard.type(ref)
    page.keyboard.press("Enter")
    wait_for(lambda: page.locator("#slip-form").get_attribute("data-pending") == "0")


def recorded_tables(page) -> list[str]:
    return page.locator("#slip-log tbody tr[data-state=recorded] td.num:first-child").all_inner_texts()


def test_each_arbitrator_sees_the_others_entries_appear(new_page, django_user_model):
    from tournaments import services
    from tournaments.models import Slip

    head = django_user_model.objects.create_user(username="arbitre", password=PASSWORD, is_staff=True)
    django_user_model.objects.create_user(username="adjoint", password=PASSWORD, is_staff=True)
    tournament = services.tournament_create(name="Festival", round_seconds=900)
    game = services.game_create(tournament=tournament, seed=5)
    services.arbitrator_set(game=game, username="arbitre", role="head", actor=head)
    services.arbitrator_set(game=game, username="adjoint", role="assistant", actor=head)
    for table in range(1, 5):
        services.player_register(game=game, name=f"Table {table}", table=table)
    round = services.round_start(round=services.round_draw(game=game, rack=RACK))

    pages = {}
    for username in ("arbitre", "adjoint"):
        page = new_page(size="laptop")
        log_in(page, username)
        page.goto(f"/console/games/{game.pk}/slips/")
        page.wait_for_selector("#slip-form")
        page.evaluate("window.stillThisPage = true")  # a reload would drop the mark
        pages[username] = page

    type_slip(pages["arbitre"], 1, "RETAINS", "H8")
    type_slip(pages["adjoint"], 2, "NASTIER", "H8")
    type_slip(pages["adjoint"], 3, "STAINER", "8H")
    # Each page lists every entry of the round, its own and the other arbitrator's, without a reload.
    for page in pages.values():
        wait_for(lambda page=page: sorted(recorded_tables(page)) == ["1", "2", "3"], timeout=10)
        assert page.evaluate("window.stillThisPage") is True
    assert Slip.objects.filter(round=round, current=True).count() == 3
    assert set(Slip.objects.filter(round=round).values_list("entered_by__username", flat=True)) == {
        "arbitre", "adjoint"}

    # The assistant enters slips; the clock is the head arbitrator's.
    answer = pages["adjoint"].request.post(f"/api/games/{game.pk}/rounds/{round.number}/close",
                                           headers={"X-CSRFToken": csrf(pages["adjoint"]),
                                                    "Content-Type": "application/json"}, data="{}")
    assert answer.status == 403 and answer.json()["error"]["code"] == "head_only"


def csrf(page) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
