"""In real Chromium: a full training run of a past game, clock off. Two rounds: the top handed in for the first
(judged at once: the top), a wrong slip for the second (judged at once: 0, with its reason); the running totals
beside the tops after each; then the percentage of the top, the rank in the real game, and the shared link's
page; a game open to the club's members, trained on the phone of a player of the club; and a run with the
clock on, to time up. Screenshots in /tmp/shots/13c/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from .support import hand_in_training

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/shots/13c")


@pytest.fixture
def past_game(django_user_model):
    """A two-round game, over: Ann hands in each round's master, Bob a lower play in round 1 and nothing in 2."""
    from engine.board import Board
    from engine.movegen import generate_plays
    from tournaments import services
    from tournaments.lexicons import get_lexicon

    arbitrator = django_user_model.objects.create_user(username="arbitre", password="pw-arbitre-1", is_staff=True)
    tournament = services.tournament_create(name="Club night", round_seconds=120)
    game = services.game_create(tournament=tournament, seed=11)
    ann, _ = services.player_register(game=game, name="Ann", table=1)
    bob, _ = services.player_register(game=game, name="Bob", table=2)
    start = timezone.now() - timedelta(hours=1)
    for number in (1, 2):
        round = services.round_draw(game=game, rack="AEINRST" if number == 1 else None, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        master = round.master
        services.slip_submit(round=round, player=ann, word=master["word"], ref=master["ref"],
                             score=master["score"], key=f"a{number}", now=opened + timedelta(seconds=20))
        if number == 1:
            plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon),
                                   tournament.tiles, tournament.rules)
            lower = max((p for p in plays if p.score < master["score"] and p.horizontal and p.row == 7),
                        key=lambda p: p.score)
            from engine.notation import format_ref

            services.slip_submit(round=round, player=bob, word=lower.word,
                                 ref=format_ref(lower.row, lower.col, True, tournament.coordinates),
                                 score=lower.score, key="b1", now=opened + timedelta(seconds=25))
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=150))
    services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    from tournaments import services

    services.training_set(game=game, value="everyone", actor=arbitrator)
    return game


def test_full_training_run_clock_off(new_page, past_game, live_server):
    from tournaments import selectors

    game = past_game
    rounds = list(game.rounds.filter(status="closed").order_by("number"))
    master1, master2 = rounds[0].master, rounds[1].master
    standings = {row["name"]: row["total"] for row in selectors.game_standings(game=game)}
    SHOTS.mkdir(parents=True, exist_ok=True)

    page = new_page("laptop")
    page.goto(f"/games/{game.pk}/train")
    page.fill("#train-name", "Zoé")
    assert not page.is_checked("#train-clock")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.text_content("#round-label") == "Round 1 of 2"
    assert page.text_content("#countdown") == "–:––"  # clock off
    assert "".join(page.locator("#rack .rtile").all_inner_texts()).replace("\n", "").startswith(rounds[0].rack[0])

    # Round 1: the top, judged at once.
    hand_in_training(page, master1["word"], master1["ref"], str(master1["score"]))
    page.wait_for_selector("#verdict:not([hidden])", timeout=10000)
    assert page.get_attribute("#verdict", "data-outcome") == "ok"
    assert page.text_content("#verdict-title") == f"Top! {master1['score']} points"
    assert page.text_content("#total-mine") == str(master1["score"])
    assert page.text_content("#total-top") == str(rounds[0].top_score)
    page.screenshot(path=str(SHOTS / "1-round1-top.png"), full_page=True)

    # Round 2: a wrong slip (letters not on the rack), judged at once: 0.
    page.click("#train-next")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.text_content("#round-label") == "Round 2 of 2"
    hand_in_training(page, "QXZWK", master2["ref"], "50")
    page.wait_for_selector("#verdict[data-round='2']:not([hidden])", timeout=10000)
    assert page.get_attribute("#verdict", "data-outcome") == "zero"
    assert page.text_content("#verdict-title") == f"Paid 0, the top was {rounds[1].top_score}"
    assert "paid 0" in page.text_content("#verdict-mine")
    assert master2["word"].upper() in page.text_content("#verdict-master").upper()
    assert page.text_content("#total-mine") == str(master1["score"])
    tops = rounds[0].top_score + rounds[1].top_score
    assert page.text_content("#total-top") == str(tops)
    page.screenshot(path=str(SHOTS / "2-round2-wrong.png"), full_page=True)

    # The end: percentage of the top and the rank among the real totals (Ann had both tops).
    page.click("#train-next")
    page.wait_for_selector("#train-end:not([hidden])", timeout=10000)
    percent = f"{100 * master1['score'] / tops:.1f}%"
    assert page.text_content("#end-total") == f"{master1['score']} points of {tops}: {percent} of the top"
    rank = 1 + sum(1 for total in standings.values() if total > master1["score"])
    assert page.text_content("#end-rank") == f"Rank in the real game: {rank} of {len(standings) + 1}"
    page.screenshot(path=str(SHOTS / "3-end.png"), full_page=True)

    # The progress is kept in the browser: a reload shows the same result.
    page.reload()
    page.wait_for_selector("#train-end:not([hidden])")
    assert page.text_content("#end-rank") == f"Rank in the real game: {rank} of {len(standings) + 1}"

    # The shared link's page.
    share = page.get_attribute("#end-share", "href")
    shared = new_page("phone")
    shared.goto(share)
    assert shared.text_content("#shared-name") == "Zoé"
    assert shared.text_content("#shared-total") == f"{master1['score']} of {tops} points"
    assert shared.text_content("#shared-percent") == percent
    assert shared.text_content("#shared-rank") == f"{rank} of {len(standings) + 1}"
    shared.screenshot(path=str(SHOTS / "4-shared.png"), full_page=True)
    assert page.errors == [] and shared.errors == []


def test_a_game_open_to_members_trains_a_player_of_the_club_by_the_phones_token(new_page, past_game):
    """Open to the club's members: a phone that never joined the club's games is told so and shown no rack;
    the phone of a player of another evening of the club (its token kept since joining) trains."""
    from tournaments import services

    game = services.training_set(game=past_game, value="members")
    later = services.game_create(tournament=game.tournament, seed=12)
    _, token = services.player_register(game=later, name="Cleo", table=1)
    round1 = game.rounds.get(number=1)
    master = round1.master

    page = new_page("phone")
    page.goto(f"/games/{game.pk}/train")
    page.wait_for_selector("#train-members")
    assert page.is_visible("#train-members") and not page.is_visible("#train-start")
    assert "open to the club's players" in page.text_content("#train-members")
    assert page.locator("#rack .rtile").count() == 0

    # The phone of a player who joined a later game of the club: the token the join left on the device.
    page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                  [f"arbiter.tournament.{game.tournament_id}", f'{{"token": "{token}", "name": "Cleo"}}'])
    page.reload()
    page.wait_for_selector("#train-start:not([hidden])")
    assert not page.is_visible("#train-members")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.text_content("#round-label") == "Round 1 of 2"
    hand_in_training(page, master["word"], master["ref"], str(master["score"]))
    page.wait_for_selector("#verdict:not([hidden])", timeout=10000)
    assert page.get_attribute("#verdict", "data-outcome") == "ok"
    assert page.text_content("#verdict-title") == f"Top! {master['score']} points"
    # The first rack ties many tops: five are listed, the others counted.
    assert len(round1.tops) > 6
    tops = page.text_content("#verdict-tops")
    assert tops.count(" points") == 5 and tops.endswith(f"…and {len(round1.tops) - 5} more tops")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "5-member.png"), full_page=True)
    assert page.errors == []


def test_with_the_clock_on_the_round_ends_at_time_up_and_is_judged_as_no_slip(new_page, past_game):
    """Clock on: the tournament's round time counts down (the page's clock run forward by Playwright); a
    slip handed in before time is judged; at 0:00 a round with nothing handed in is judged at once as no
    slip, and the next round starts with a full clock."""
    game = past_game
    seconds = game.tournament.round_seconds
    round1 = game.rounds.get(number=1)
    page = new_page("phone")
    page.clock.install()
    page.goto(f"/games/{game.pk}/train")
    page.check("#train-clock")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.text_content("#countdown") == f"{seconds // 60}:{seconds % 60:02d}"
    page.clock.run_for(30_000)
    left = seconds - 30
    assert page.text_content("#countdown") == f"{left // 60}:{left % 60:02d}"

    # Round 1: the master, in time.
    master = round1.master
    hand_in_training(page, master["word"], master["ref"], str(master["score"]))
    page.wait_for_selector("#verdict:not([hidden])", timeout=10000)
    assert page.get_attribute("#verdict", "data-outcome") == "ok"

    # Round 2: a full clock again, then nothing handed in before 0:00.
    page.click("#train-next")
    page.wait_for_selector("#verdict", state="hidden")
    assert page.text_content("#countdown") == f"{seconds // 60}:{seconds % 60:02d}"
    page.fill("#slip-word", "UNSENT")
    page.clock.run_for((seconds + 1) * 1000)
    page.wait_for_selector("#verdict[data-round='2']:not([hidden])", timeout=10000)
    assert page.get_attribute("#verdict", "data-outcome") == "zero"
    assert page.text_content("#countdown") == "0:00"
    assert "No slip" in page.text_content("#verdict-mine")
    assert page.text_content("#total-mine") == str(master["score"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "6-time-up.png"), full_page=True)
    assert page.errors == []
