"""A topping round in real Chromium on two phones (docs/rules.md 7.5): the round lasts 60 s; Ana's phone shows
her running time and she hands in the top when it reads 40 s, and her phone then says the top was found in
40 s (never what it is to others); Ben only hands in a wrong try and never finds the top. The projector shows
during the round that Ana has found the top, without the word. The arbitrator closes the round early: Ana's
result is her 40 s, Ben's the round's 60 s plus the penalty of 60, in the API's standings and on the projector.

The find is at a real 40 s on the server's clock: the test takes about a minute."""

from __future__ import annotations

import re

import pytest

from .support import join_by_phone, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

RACK = "AEINRST"  # tops: a bingo (RETAINS, NASTIER, ...)
ROUND_SECONDS = 60
FIND_AT = 40


@pytest.fixture
def topping_game(db):
    from tournaments import services

    tournament = services.tournament_create(name="Soirée topping", variant="topping", round_seconds=ROUND_SECONDS)
    assert tournament.rules.topping and tournament.rules.round_seconds == ROUND_SECONDS
    return services.game_create(tournament=tournament, seed=5)


def _hand_in(page, word, ref, score):
    page.locator("#slip-ref").fill(ref)
    page.locator("#slip-word").fill(word)
    page.locator("#slip-score").fill(str(score))
    page.locator("#slip-submit").click()


def _running(page) -> int | None:
    found = re.search(r"(\d+) s", page.locator("#topping-time").inner_text())
    return int(found.group(1)) if found else None


def test_a_topping_round_on_two_phones(new_page, screenshot, topping_game):
    from engine.board import Board
    from engine.notation import format_ref
    from engine.search import find_tops
    from tournaments import services
    from tournaments.lexicons import get_lexicon
    from tournaments.models import Round, Slip
    from tournaments.selectors import game_standings

    game = topping_game
    tournament = game.tournament
    ana, ben = new_page(size="phone"), new_page(size="phone")
    join_by_phone(ana, game.join_code, "Ana")
    join_by_phone(ben, game.join_code, "Ben")
    hall = new_page(size="laptop")
    hall.goto(f"/projector/{game.screen_key}")

    round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    round.refresh_from_db()
    tops = find_tops(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon), tournament.tiles,
                     tournament.rules)
    top = tops.plays[0]
    ref = format_ref(top.row, top.col, top.horizontal, tournament.coordinates)
    wait_for(lambda: ana.locator("#rack li.rtile").count() == 7, timeout=15)
    wait_for(lambda: (_running(ana) or 0) >= 1, timeout=15)

    _hand_in(ben, "QZXJV", ref, 20)  # a wrong try: no such word
    wait_for(lambda: "try again" in ben.locator("#slip-status").inner_text(), timeout=10)
    screenshot(ben, "topping-phone-wrong-try", full_page=True)

    wait_for(lambda: (_running(ana) or 0) >= FIND_AT, timeout=FIND_AT + 10, step=0.2)
    screenshot(ana, "topping-phone-running")
    _hand_in(ana, top.word, ref, top.score)
    wait_for(lambda: "Top found in" in ana.locator("#slip-status").inner_text(), timeout=10)
    found = Slip.objects.get(round=round, player__name="Ana")
    seconds = int((found.received_at - round.started_at).total_seconds())
    assert FIND_AT <= seconds <= FIND_AT + 2, seconds
    assert f"Top found in {seconds} s" in ana.locator("#slip-status").inner_text()
    wait_for(lambda: f"Top found in {seconds} s" in ana.locator("#topping-time").inner_text(), timeout=5)
    screenshot(ana, "topping-phone-found", full_page=True)
    ana.reload()  # a reloaded phone shows the found time again, not a running one
    wait_for(lambda: f"Top found in {seconds} s" in ana.locator("#topping-time").inner_text(), timeout=10)

    wait_for(lambda: "Ana" in hall.locator("#finders").inner_text(), timeout=15)
    finders = hall.locator("#finders").inner_text()
    assert "Ben" not in finders and top.word not in finders.upper(), finders
    screenshot(hall, "topping-projector-finders")

    # A try after the top is refused, and says so.
    _hand_in(ana, "QZXJV", ref, 20)
    wait_for(lambda: "no more tries" in ana.locator("#slip-status").inner_text(), timeout=10)
    assert Slip.objects.filter(round=round, player__name="Ana").count() == 1

    services.round_close(round=round)
    round.refresh_from_db()
    assert round.status == Round.Status.CLOSED
    times = {row["name"]: row["seconds"] for row in game_standings(game=game)}
    assert times == {"Ana": seconds, "Ben": ROUND_SECONDS + tournament.rules.topping_penalty}
    wait_for(lambda: "120 s" in hall.locator("#standings").inner_text(), timeout=15)
    board = hall.locator("#standings").inner_text()
    assert board.index("Ana") < board.index("Ben"), board
    assert f"{seconds} s" in board
    screenshot(hall, "topping-projector-standings")
