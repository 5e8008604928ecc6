"""A 7 et 8 round in real Chromium: the phone shows a rack of 8 tiles, hands in a word placing all 8 and, after the
close, its result shows the pay with the bonus of 75 for a bingo of 8 tiles (docs/rules.md section 7)."""

from __future__ import annotations

import pytest

from .support import join_by_phone, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

RACK = "AEINORST"  # NOTARIES, SENORITA: eight tiles


@pytest.fixture
def seven_and_eight_game(db):
    from tournaments import services

    tournament = services.tournament_create(name="Soirée 7 et 8", variant="seven_and_eight", round_seconds=900)
    assert tournament.rules.rack_size == 8 and tournament.rules.max_placed == 8
    return services.game_create(tournament=tournament, seed=5)


def _eight_tile_top(round):
    from engine.board import Board
    from engine.movegen import generate_plays
    from engine.notation import format_ref
    from tournaments.lexicons import get_lexicon

    tournament = round.game.tournament
    plays = [play for play in generate_plays(Board.from_rows(round.board), round.rack,
                                             get_lexicon(tournament.lexicon), tournament.tiles, tournament.rules)
             if len(play.tiles) == 8]
    play = max(plays, key=lambda p: (p.score, -p.row, -p.col))
    return play.word, format_ref(play.row, play.col, play.horizontal, tournament.coordinates), play.score


def test_a_phone_plays_all_eight_tiles_and_its_result_shows_the_bonus_of_75(new_page, screenshot,
                                                                           seven_and_eight_game):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from tournaments import services
    from tournaments.models import Result, Round, Slip

    game = seven_and_eight_game
    phone = new_page(size="phone")
    messages = []
    phone.on("console", lambda message: messages.append(f"{message.type}: {message.text}"[:300]))
    join_by_phone(phone, game.join_code, "Ana")

    round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    round.refresh_from_db()
    wait_for(lambda: phone.locator("#rack li.rtile").count() == 8, timeout=15)
    tiles = phone.locator("#rack li.rtile").all_inner_texts()
    assert sorted(t.split()[0] for t in tiles) == sorted(RACK), tiles
    hall = new_page(size="laptop")
    hall.goto(f"/projector/{game.screen_key}")
    wait_for(lambda: hall.locator("#rack li").count() == 8, timeout=15)
    # The letter is the tile's own text; its value is a <sub> after it (innerText runs the two together or not,
    # as the projector's layout places the value).
    letters = hall.locator("#rack li").evaluate_all("tiles => tiles.map(t => t.firstChild.textContent)")
    assert sorted(letters) == sorted(RACK)
    screenshot(hall, "seven-and-eight-projector")
    word, ref, score = _eight_tile_top(round)
    assert score >= 75 + 8  # the bonus of 75 plus the tiles' points
    phone.locator("#slip-ref").fill(ref)
    phone.locator("#slip-word").fill(word)
    phone.locator("#slip-score").fill(str(score))
    screenshot(phone, "seven-and-eight-phone-slip", full_page=True)
    phone.locator("#slip-submit").click()
    # The slip's request went unsent when the full-page screenshot above had left the page's scroll to be put
    # back under the click (tests/browser/conftest.py _scroll_settled). 60 s covers the phone's retries (every
    # 4 s at most), and a failure says what it saw.
    try:
        phone.wait_for_selector("#receipt:not([hidden])", timeout=60000)
    except PlaywrightTimeout:
        screenshot(phone, "seven-and-eight-no-receipt", full_page=True)
        held = list(Slip.objects.filter(round=round).values_list("word", "ref", "claimed"))
        pytest.fail(f"no receipt on the phone: its status line {phone.locator('#slip-status').inner_text()!r}, "
                    f"the slips the server holds {held}, its console {messages}")

    services.round_close(round=round)
    round.refresh_from_db()
    assert round.status == Round.Status.CLOSED
    result = Result.objects.get(round=round, player__name="Ana")
    assert (result.outcome, result.paid) == ("ok", score), (result.outcome, result.paid, result.reason)
    assert round.top_score == score
    phone.wait_for_selector("#result-bonus", timeout=15000)
    mine = phone.locator("#result-mine").inner_text()
    assert str(score) in mine and "75" in phone.locator("#result-bonus").inner_text(), mine
    assert word in mine.replace(" ", "").upper() or word in mine, mine
    screenshot(phone, "seven-and-eight-phone-result", full_page=True)
