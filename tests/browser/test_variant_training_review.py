"""In real Chromium: training on a 7 et 8 game (the rack's 8 tiles shown, NOTARIES placing all 8 judged the top at
129 = 54 + 75) and the review of a topping game (the player's time in the round and over the game).
Screenshots in /tmp/h/shots/trn/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from .support import hand_in_training

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/h/shots/trn")


def _played(django_user_model, variant: str, racks, slips):
    """A game of ``variant``, over and open to training: each round's rack (None: drawn), Ann's slip in it
    (a dict, or "master"), 5 s after the round's start. Returns (game, Ann's token)."""
    from tournaments import services

    arbitrator = django_user_model.objects.create_user(username="arbitre", password="pw-arbitre-1", is_staff=True)
    tournament = services.tournament_create(name=f"{variant} night", variant=variant)
    game = services.game_create(tournament=tournament, seed=11)
    ann, token = services.player_register(game=game, name="Ann", table=1)
    services.player_register(game=game, name="Bob", table=2)
    start = timezone.now() - timedelta(hours=1)
    for number, (rack, slip) in enumerate(zip(racks, slips, strict=True), start=1):
        round = services.round_draw(game=game, rack=rack, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        if slip == "master":
            slip = {"word": round.master["word"], "ref": round.master["ref"], "score": round.master["score"]}
        if slip:
            services.slip_submit(round=round, player=ann, key=f"a{number}", now=opened + timedelta(seconds=5), **slip)
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=tournament.round_seconds))
    services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    services.training_set(game=game, value="everyone", actor=arbitrator)
    return game, token


def test_training_on_a_seven_and_eight_game_shows_8_tiles_and_pays_75_for_all_8(new_page, django_user_model,
                                                                              live_server):
    game, _ = _played(django_user_model, "seven_and_eight", ["AEINORST", None],
                      [{"word": "NOTARIES", "ref": "H1", "score": 129}, None])
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page("phone")
    page.goto(f"/games/{game.pk}/train")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.locator("#rack .rtile").count() == 8
    second = game.rounds.get(number=2)
    hand_in_training(page, "NOTARIES", "H1", "129")
    page.wait_for_selector("#verdict[data-round='1']:not([hidden])", timeout=10000)
    assert page.text_content("#verdict-title") == "Top! 129 points"
    assert page.text_content("#total-mine") == "129"
    page.screenshot(path=str(SHOTS / "seven-and-eight-training.png"), full_page=True)
    page.click("#train-next")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.locator("#rack .rtile").count() == len(second.rack) == 8
    assert page.errors == []


def test_the_review_of_a_topping_game_shows_the_player_s_times(new_page, django_user_model, live_server):
    from tournaments.models import Round

    game, token = _played(django_user_model, "topping", ["AEINRST", None], ["master", None])
    rules = game.tournament.rules
    never = rules.round_seconds + rules.topping_penalty
    assert Round.objects.get(game=game, number=1).results.get(player__name="Ann").paid > 0
    page = new_page("phone")
    page.goto(f"/games/{game.pk}/play#token={token}")
    page.locator("#review-link a").wait_for(state="visible")
    page.goto(f"/games/{game.pk}/review?round=1")
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '1'")
    assert page.text_content("#review-time") == "Top found in 5 s: 5 s"
    assert page.text_content("#review-times") == f"{5 + never} s in all; top found in 1 of 2 rounds"
    page.screenshot(path=str(SHOTS / "topping-review-1.png"), full_page=True)
    page.click("#review-next")
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '2'")
    assert page.text_content("#review-time") == f"Top not found: {never} s"
    assert page.errors == []
