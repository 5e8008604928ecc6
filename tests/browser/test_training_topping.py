"""In real Chromium: training on a topping game (docs/rules.md 7.5, 7.7). The page is always timed; a wrong try
says so and leaves the slip form open, the clock running; the top then shows the seconds it was found in; a
round left to run out costs the round's time plus the penalty; the end gives the total time and the tops found.
Screenshots in /tmp/h/shots/trn/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from .support import hand_in_training

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/h/shots/trn")
ROUND_SECONDS = 12  # short, so that round 2 runs out within the test


@pytest.fixture
def topping_game(django_user_model):
    """A two-round topping game, over: Ann hands in each round's master 20 s after its start."""
    from tournaments import services

    arbitrator = django_user_model.objects.create_user(username="arbitre", password="pw-arbitre-1", is_staff=True)
    tournament = services.tournament_create(name="Topping night", variant="topping", round_seconds=ROUND_SECONDS)
    game = services.game_create(tournament=tournament, seed=11)
    ann, _ = services.player_register(game=game, name="Ann", table=1)
    services.player_register(game=game, name="Bob", table=2)
    start = timezone.now() - timedelta(hours=1)
    for number in (1, 2):
        round = services.round_draw(game=game, rack="AEINRST" if number == 1 else None, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        master = round.master
        services.slip_submit(round=round, player=ann, word=master["word"], ref=master["ref"],
                             score=master["score"], key=f"a{number}", now=opened + timedelta(seconds=5))
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=ROUND_SECONDS + 1))
    services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    services.training_set(game=game, value="everyone", actor=arbitrator)
    return game


def test_training_on_a_topping_game_is_timed_by_the_tries(new_page, topping_game, live_server):
    game = topping_game
    rules = game.tournament.rules
    first = game.rounds.get(number=1)
    top = first.master
    SHOTS.mkdir(parents=True, exist_ok=True)

    page = new_page("phone")
    page.goto(f"/games/{game.pk}/train")
    assert page.locator("#train-clock").count() == 0  # topping is always timed
    assert "Your time is your score" in page.text_content("#train-topping")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    page.wait_for_function("document.getElementById('countdown').textContent !== '–:––'")

    # A wrong try: said so, the form stays open, the clock runs on.
    hand_in_training(page, "QXZWK", top["ref"], "50")
    page.wait_for_function("document.getElementById('train-status').textContent.includes('try again')")
    assert page.is_visible("#train-form") and page.is_hidden("#verdict")
    page.screenshot(path=str(SHOTS / "topping-1-wrong-try.png"), full_page=True)

    # The top: found, in the seconds since the round's start on the server's clock.
    hand_in_training(page, top["word"], top["ref"], str(top["score"]))
    page.wait_for_selector("#verdict[data-round='1']:not([hidden])", timeout=10000)
    title = page.text_content("#verdict-title")
    assert title.startswith("Top found in ") and title.endswith(" s")
    found_after = int(title.removeprefix("Top found in ").removesuffix(" s"))
    assert 0 <= found_after <= ROUND_SECONDS
    assert page.text_content("#total-mine") == f"{found_after} s"  # no cost for a wrong try by default
    assert page.text_content("#total-top") == "1"
    page.screenshot(path=str(SHOTS / "topping-2-found.png"), full_page=True)

    # Round 2 runs out: the round's time plus the penalty.
    page.click("#train-next")
    page.wait_for_selector("#verdict[data-round='2']:not([hidden])", timeout=(ROUND_SECONDS + 10) * 1000)
    never = ROUND_SECONDS + rules.topping_penalty
    assert page.text_content("#verdict-title") == f"Top not found: {never} s"
    page.click("#train-next")
    page.wait_for_selector("#train-end:not([hidden])", timeout=10000)
    total = found_after + never
    assert page.text_content("#end-total") == f"{total} s; top found in 1 of 2 rounds"
    page.screenshot(path=str(SHOTS / "topping-3-end.png"), full_page=True)
    shared = new_page("phone")
    shared.goto(page.get_attribute("#end-share", "href"))
    assert shared.text_content("#shared-time") == f"{total} s; top found in 1 of 2 rounds"
    assert page.errors == [] and shared.errors == []
