"""In real Chromium: training counts the first verdict of each round. A weak first run of a past game, then
"Start again" and the tops handed in: each retry's verdict says "practice: not counted", the running total stays
the first run's, and the result (and its shared link) counts the first verdicts. Screenshots in
/tmp/h/shots/hb/."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import hand_in_training
from .test_training import past_game  # noqa: F401 (the fixture, a two-round game over)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/h/shots/hb")


def test_retries_after_starting_again_are_practice_and_the_result_counts_the_first_tries(new_page, past_game):  # noqa: F811
    game = past_game
    rounds = list(game.rounds.filter(status="closed").order_by("number"))
    tops = sum(r.top_score for r in rounds)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page("phone")
    page.goto(f"/games/{game.pk}/train")
    page.fill("#train-name", "Zoé")
    page.click("#train-go")
    # The first run: no slip in either round (paid 0).
    for r in rounds:
        page.wait_for_selector("#train-form:not([hidden])")
        page.click("#train-judge")
        page.wait_for_selector(f"#verdict[data-round='{r.number}']:not([hidden])", timeout=10000)
        assert page.get_attribute("#verdict", "data-counted") == "true"
        assert "practice" not in page.text_content("#verdict-title")
        page.click("#train-next")
    page.wait_for_selector("#train-end:not([hidden])", timeout=10000)
    assert page.text_content("#end-total").startswith(f"0 points of {tops}")

    # Start again, and hand in the tops: practice, not counted.
    page.click("#train-restart")
    page.click("#train-go")
    for r in rounds:
        page.wait_for_selector("#train-form:not([hidden])")
        hand_in_training(page, r.master["word"], r.master["ref"], str(r.master["score"]))
        page.wait_for_selector(f"#verdict[data-round='{r.number}']:not([hidden])", timeout=10000)
        assert page.get_attribute("#verdict", "data-counted") == "false"
        assert page.text_content("#verdict-title") == f"Top! {r.master['score']} points · practice: not counted"
        assert page.text_content("#total-mine") == "0"  # the first verdicts' total
        if r.number == 1:
            page.screenshot(path=str(SHOTS / "training-retry-practice.png"), full_page=True)
        page.click("#train-next")
    page.wait_for_selector("#train-end:not([hidden])", timeout=10000)
    assert page.text_content("#end-total").startswith(f"0 points of {tops}")
    page.screenshot(path=str(SHOTS / "training-retry-result.png"), full_page=True)
    shared = page.get_attribute("#end-share", "href")
    page.goto(shared)
    assert f"0 of {tops} points" in page.text_content("body")
