"""In real Chromium: a 60-character name without a space (the longest a name may be) wraps inside the
console's tables, the phone's standings and the projector's, instead of pushing them wider than their
container or the page wider than the screen."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from .support import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-long-names-1"
LONG = "Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewis"[:60]
TOURNAMENT = "Festival" + "international" * 8  # an unbroken tournament name, 112 characters

# The element's own width and that of its container, and the page's against the window: all in pixels.
MEASURE = """(selector) => {
  const element = document.querySelector(selector);
  const box = element.parentElement;
  return {
    element: element.getBoundingClientRect().width,
    scroll: element.scrollWidth,
    container: box.clientWidth,
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
  };
}"""


def assert_fits(page, selector: str) -> None:
    size = page.evaluate(MEASURE, selector)
    assert size["element"] <= size["container"] + 1, (selector, size)  # + 1: sub-pixel rounding
    assert size["scroll"] <= size["element"] + 1, (selector, size)
    assert size["page"] <= size["window"], (selector, size)


def _play_one_round(game, player, arbitrator):
    from tournaments import services

    round = services.round_draw(game=game, rack="AEINRST", actor=arbitrator)
    opened = timezone.now() - timedelta(minutes=10)
    round = services.round_start(round=round, actor=arbitrator, now=opened)
    round = services.round_compute_tops(round=round)
    services.slip_submit(round=round, player=player, word="RETAINS", ref="H2", score=59, key="k1",
                         now=opened + timedelta(seconds=20))
    services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=200))


def test_a_60_character_name_wraps_in_the_console_phone_and_projector(
    new_page, screenshot, live_server, django_user_model, make_tournament
):
    from tournaments import services
    from tournaments.models import Player

    arbitrator = django_user_model.objects.create_user(username="arbitre", password=PASSWORD, is_staff=True)
    tournament = make_tournament(name=TOURNAMENT, round_seconds=180, created_by=arbitrator)
    game = services.game_create(tournament=tournament, seed=3)
    for table, name in ((1, "Ada"), (2, "Ben Okafor")):
        services.player_register(game=game, name=name, table=table)

    console = new_page(size="laptop")
    console.goto("/console/")
    console_login(console, PASSWORD)

    # The name is registered with the console's form, as an arbitrator would type it.
    console.goto(f"/console/games/{game.pk}/players/")
    console.locator("#id_name").fill(LONG)
    console.locator("#id_table").fill("3")
    console.keyboard.press("Enter")
    console.wait_for_selector(f"text={LONG} registered at table 3.")
    player = Player.objects.get(first_game=game, table=3)
    assert player.name == LONG and len(LONG) == 60
    assert_fits(console, ".grid-players table.data")
    assert_fits(console, ".game-head h1")
    screenshot(console, "long-name-console-players")

    _play_one_round(game, player, arbitrator)
    console.goto(f"/console/games/{game.pk}/standings/")
    console.wait_for_selector(f"td.name >> text={LONG}")
    assert_fits(console, ".grid-standings table.data")
    screenshot(console, "long-name-console-standings")
    console.goto(f"/console/tournaments/{tournament.pk}/")
    assert_fits(console, "h1")

    token = services.player_token_reissue(game=game, player=player)
    phone = new_page(size="phone")
    phone.goto(f"/games/{game.pk}/play#token={token}")
    phone.wait_for_selector("#standings:not([hidden])")
    phone.wait_for_function(f"document.querySelector('#standings-body')?.textContent.includes({LONG!r})")
    assert_fits(phone, "#standings table")
    assert_fits(phone, ".phone-status")
    screenshot(phone, "long-name-phone")

    projector = new_page(size="laptop")
    projector.goto(f"/projector/{game.screen_key}")
    projector.wait_for_selector("#standings:not([hidden])")
    projector.wait_for_function(f"document.querySelector('#standings-body')?.textContent.includes({LONG!r})")
    assert_fits(projector, "#standings table")
    screenshot(projector, "long-name-projector")
    for page in (console, phone, projector):
        assert not page.errors
