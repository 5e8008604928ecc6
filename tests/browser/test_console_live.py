"""The console follows the game on its live stream, as the phones and the projector do: the paper-slips page
reloads when a round opens and when it closes, its count moves with each slip, and it does not ask the
server's time every second."""

from __future__ import annotations

import re

import pytest

from .support import console_login, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-console-live"
RACK = "AEINRST"


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def log_in(page):
    page.goto("/console/")
    console_login(page, PASSWORD)


def test_the_slips_page_follows_the_round(new_page, arbitrator, live_server):
    from tournaments import services

    tournament = services.tournament_create(name="Live console", round_seconds=300)
    game = services.game_create(tournament=tournament, seed=7)
    ada = services.player_register(game=game, name="Ada", table=1)[0]
    page = new_page(size="laptop")
    log_in(page)
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    followed = re.compile(rf".*/games/{game.pk}/live$")

    # No open round: no form. The page has the game's state once it asked for it (after the clock).
    with page.expect_response(lambda response: followed.match(response.url)):
        page.goto(f"/console/games/{game.pk}/slips/")
    assert page.locator("#slip-form").count() == 0
    page.wait_for_timeout(300)

    # The round starts: the page reloads by itself, with the form.
    with page.expect_response(lambda response: followed.match(response.url), timeout=10000):
        round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    page.wait_for_selector("#slip-form")
    assert page.locator("#progress-count").inner_text() == "0 / 1"
    page.wait_for_timeout(300)

    # A slip handed in from a phone moves the count.
    services.slip_submit(round=round, player=ada, word="RETAINS", ref="H8", score=66, key="phone-1")
    wait_for(lambda: page.locator("#progress-count").inner_text() == "1 / 1")

    # The round closes: the page says so in place, without a reload that would lose what the arbitrator is
    # typing (slips handed in before the end call may still be entered, each answered with its verdict).
    assert not page.locator("text=The round is closed.").is_visible()
    services.round_close(round=round)
    page.wait_for_selector("text=The round is closed.", state="visible", timeout=10000)

    # One stream each time, slip counts included; the server's time is asked as a page opens, not every second.
    clock = re.compile(rf".*/games/{game.pk}/live\?clock=1$")
    loads = [url for url in asked if url.endswith(f"/console/games/{game.pk}/slips/")]
    streams = [url for url in asked if re.search(rf"/games/{game.pk}/events\?progress=1$", url)]
    assert len(loads) == 2 and len(streams) >= 2  # opened, then reloaded once when the round opened
    before = len([url for url in asked if clock.match(url)])
    page.wait_for_timeout(2500)
    assert len([url for url in asked if clock.match(url)]) == before
    assert not page.errors, page.errors


@pytest.mark.parametrize("screen", ["game", "slips"])
def test_a_slip_handed_in_between_the_page_and_its_stream_is_counted(new_page, arbitrator, live_server, screen):
    """The stream's first state is compared with the one the page was drawn at: a slip handed in while the
    stream was on its way moves the count, on the game screen and on the paper-slips page alike."""
    from tournaments import services

    tournament = services.tournament_create(name="Drawn mark", round_seconds=300)
    game = services.game_create(tournament=tournament, seed=7)
    ada = services.player_register(game=game, name="Ada", table=1)[0]
    services.player_register(game=game, name="Ben", table=2)
    round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    page = new_page(size="laptop")
    log_in(page)

    # The page is drawn; its stream is held up until a slip has come in.
    held = []
    page.route(re.compile(rf".*/games/{game.pk}/events.*"), lambda route: held.append(route))
    page.goto(f"/console/games/{game.pk}/" if screen == "game" else f"/console/games/{game.pk}/slips/")
    assert page.locator("#progress-count").inner_text().endswith("0 / 2")
    wait_for(lambda: held)
    services.slip_submit(round=round, player=ada, word="RETAINS", ref="H8", score=66, key="phone-1")
    for route in held:
        route.continue_()
    page.unroute(re.compile(rf".*/games/{game.pk}/events.*"))
    wait_for(lambda: page.locator("#progress-count").inner_text().endswith("1 / 2"))
    assert not page.errors, page.errors
