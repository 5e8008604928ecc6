"""In real Chromium: a player registered at the console moves to a phone with the personal link."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_phone_link_signs_the_phone_in_as_that_player(live_server, new_page, make_game, make_player):
    from tournaments.services import player_token_reissue, round_draw, round_start

    game = make_game(round_seconds=180)
    player, _old_token = make_player(game, name="Noé", table=7)
    round_start(round=round_draw(game=game, rack="AEINRS?"))
    token = player_token_reissue(game=game, player=player)

    page = new_page("phone")
    page.goto(f"/games/{game.pk}/play#token={token}")
    page.wait_for_function("document.querySelector('#who')?.textContent.includes('Noé')")
    assert "7" in page.locator("#who").inner_text()
    assert "token" not in page.url  # taken out of the address bar
    assert page.locator("#need-join").is_hidden()
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('arbiter.game.{game.pk}')).token")
    assert stored == token
    assert not page.errors
