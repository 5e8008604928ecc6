"""In real Chromium, a page following a game hears its state from two places: the live stream, and a plain
request (/games/<id>/live) made as it opens, wakes up or hears nothing for a while. A request answered before
a change but arriving after the stream told of it must not take the page back: the projector and a phone
stay on the round just closed, its master marked on the board."""

from __future__ import annotations

import re

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

# What a page shows of the game, for a failure's message.
STATE = """() => ({phase: document.body.dataset.phase, round: document.getElementById('round-label')?.textContent,
  conn: document.getElementById('conn')?.textContent, visible: document.visibilityState})"""

MARKED = """() => Array.from(document.querySelectorAll('#board td.sq.fresh'))
  .map((td) => [Number(td.dataset.r), Number(td.dataset.c)])
  .sort((a, b) => a[0] - b[0] || a[1] - b[1])"""


def test_an_answer_older_than_the_stream_s_last_state_does_not_take_the_page_back(new_page, make_game,
                                                                                  make_player):
    from tournaments import services
    from tournaments.models import Round

    game = make_game(seed=11)
    _player, token = make_player(game, "Ann", table=1)
    projector = new_page("projector")
    phone = new_page("phone")
    pages = {"projector": projector, "phone": phone}
    said = {name: [] for name in pages}
    for name, page in pages.items():
        page.on("console", lambda message, name=name: said[name].append(f"{message.type}: {message.text}"))
        page.on("request", lambda request, name=name: said[name].append(f"> {request.url}"))

    # Each page's first plain request for the state is answered by the server at once, before the round,
    # and that answer is held back until the page has the close. Later ones go through: a page whose stream
    # broke under load falls back to asking every second, and must hear of the close that way.
    held = []

    def holding_the_first(page):
        def hold(route):
            if any(held_page is page for held_page, _route, _response in held):
                route.continue_()
            else:
                held.append((page, route, route.fetch()))
        return hold

    plain = re.compile(rf".*/games/{game.pk}/live$")
    for page in pages.values():
        page.route(plain, holding_the_first(page))
    projector.goto(f"/projector/{game.screen_key}")
    phone.goto(f"/games/{game.pk}/play#token={token}")
    # (Playwright runs the route handlers while the test waits in one of its calls, not in time.sleep.)
    wait_for(lambda: projector.wait_for_timeout(50) or len(held) == 2, timeout=20)

    round_ = services.round_start(round=services.round_draw(game=game))
    services.round_compute_tops(round=round_)
    services.round_close(round=round_)
    round_ = Round.objects.get(pk=round_.pk)
    assert round_.status == Round.Status.CLOSED
    expected = sorted([row, col] for row, col, *_ in round_.master["tiles"])
    for name, page in pages.items():
        try:
            wait_for(lambda page=page: page.evaluate(MARKED) == expected, timeout=20)
        except AssertionError:
            raise AssertionError(f"{name}: marked {page.evaluate(MARKED)}, expected {expected}; "
                                 f"{page.evaluate(STATE)}; held {len(held)}; console {said[name][-20:]}") from None

    # The old answers arrive now: the pages stay on the closed round.
    for _page, route, response in held:
        route.fulfill(response=response)
    for page in pages.values():
        page.unroute(plain)
        page.wait_for_timeout(1500)
    for name, page in pages.items():
        assert page.evaluate(MARKED) == expected, name
        assert not page.errors, page.errors


def test_the_phone_s_own_line_asked_first_and_answered_last_does_not_come_back(new_page, make_game, make_player):
    """After a close the phone asks for its player's own line; a correction makes it ask again. When the
    first answer arrives after the second, the phone keeps the corrected line."""
    from tournaments import services
    from tournaments.models import Slip

    game = make_game(seed=11)
    player, token = make_player(game, "Ann", table=1)
    phone = new_page("phone")
    held = []

    def hold_first(route):
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    own_line = re.compile(rf".*/games/{game.pk}/mine$")
    phone.route(own_line, hold_first)
    phone.goto(f"/games/{game.pk}/play#token={token}")
    phone.wait_for_selector("#board td.sq")

    round_ = services.round_start(round=services.round_draw(game=game, rack="AEINRST"))
    services.slip_submit(round=round_, player=player, word="SATIRE", ref="H8", score=0, key="phone-1")
    services.round_compute_tops(round=round_)
    services.round_close(round=round_)
    wait_for(lambda: phone.wait_for_timeout(50) or held, timeout=20)

    # The arbitrator corrects the slip (RETAINS was written): the phone asks again and shows 66.
    slip = Slip.objects.get(round=round_, player=player, current=True)
    services.slip_correct(slip=slip, reason="misread", actor=None, word="RETAINS", score=66)
    wait_for(lambda: "66" in phone.locator("#result-mine").inner_text(), timeout=20)

    # The first answer, with the line before the correction, arrives now: the phone keeps 66.
    route, response = held[0]
    route.fulfill(response=response)
    phone.unroute(own_line)
    phone.wait_for_timeout(1500)
    assert "66" in phone.locator("#result-mine").inner_text()
    assert not phone.errors, phone.errors
