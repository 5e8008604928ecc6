"""In real Chromium: a player reviews a finished 5-round game on the phone, stepping through the rounds with
the keyboard, and an arbitrator opens the same review from the console's player page on a laptop."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from tournaments.lexicons import get_lexicon
from tournaments.models import Result, Round
from tournaments.services import judge, setting_of

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/shots/13a")
RACK_JS = ("Array.from(document.querySelectorAll('#review-rack li.rtile'))"
           ".map((li) => li.classList.contains('joker') ? '?' : li.firstChild.textContent).join('')")
BEST_JS = ("Array.from(document.querySelectorAll('#review-best tr:not(.tied-more)'))"
           ".map((tr) => [tr.querySelector('.slip-word').dataset.word, tr.cells[2].textContent,"
           " Number(tr.cells[3].textContent), tr.classList.contains('mine')])")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _expected(round: Round, player) -> dict:
    """What the page must show for the round, from the engine's full list of plays."""
    setting = setting_of(round.game.tournament)
    plays = sorted(generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(round.game.tournament.lexicon),
                                  setting.tileset, setting.rules), key=lambda p: -p.score)
    ordered = sorted(plays, key=lambda p: (-p.score, p.row, p.col, not p.horizontal, p.word))
    best = [(p.word, format_ref(p.row, p.col, p.horizontal, setting.labelling), p.score) for p in ordered[:10]]
    result = Result.objects.select_related("slip").get(round=round, player=player)
    judged = judge(setting, round, result.slip).play if result.slip else None
    if judged is None:
        rank = (f"No slip: {len(plays)} legal plays." if result.slip is None
                else f"Your slip is not among the {len(plays)} legal plays.")
    else:
        rank = f"Your play ranks {_ordinal(1 + sum(p.score > judged.score for p in plays))} of {len(plays)} plays."
    return {"best": best, "rank": rank, "paid": result.paid, "top": round.top_score}


def test_a_player_reviews_a_five_round_game_with_the_keyboard(live_server, new_page, make_tournament, arbitrator,
                                                             screenshot, django_user_model):
    from tests.tournaments.sheets_support import LUKASZ, play_game

    tournament = make_tournament(name="Club night review", solo_min_players=3, created_by=arbitrator)
    played = play_game(tournament, arbitrator, rounds=5, end=True)
    game, player = played.game, played.players[LUKASZ]
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    assert len(rounds) == 5

    page = new_page("phone")
    page.goto(f"/games/{game.pk}/play#token={played.tokens[LUKASZ]}")
    page.locator("#review-link a").wait_for(state="visible")  # the game is over: the review is linked
    page.locator("#review-link a").click()
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '1'")
    assert page.locator("#review-who").inner_text().startswith(LUKASZ)

    for index, r in enumerate(rounds):
        page.wait_for_function(f"document.querySelector('#review-round')?.dataset.round === '{r.number}'")
        expected = _expected(r, player)
        assert page.locator("#review-round").inner_text() == f"Round {r.number}"
        assert page.evaluate(RACK_JS) == r.rack
        shown = page.evaluate(BEST_JS)
        assert [(w, ref, s) for w, ref, s, _mine in shown] == expected["best"]
        assert page.locator("#review-rank").inner_text() == expected["rank"]
        assert f"paid {expected['paid']}" in page.locator("#review-result").inner_text()
        assert page.locator("#review-master .slip-word").get_attribute("data-word") == r.master["word"]
        assert r.master["ref"] in page.locator("#review-master").inner_text()
        found = Result.objects.filter(round=r, paid=r.top_score).count()
        players = Result.objects.filter(round=r).exclude(reason="absent").count()
        assert page.locator("#review-found").inner_text() == (f"1 player of {players} found the top" if found == 1
                                                              else f"{found} of {players} players found the top")
        if index == 2:
            SHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(screenshot(page, "review-phone-round3", full_page=True), SHOTS / "review-phone-round3.png")
        if index < len(rounds) - 1:
            page.keyboard.press("ArrowRight")
    # At the last round the right arrow goes nowhere; the left arrow steps back.
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    assert page.locator("#review-round").get_attribute("data-round") == "5"
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '4'")

    # The summary: the rounds lost most against the top, and the tops missed.
    results = {res.round_id: res.paid for res in Result.objects.filter(player=player, round__in=rounds)}
    losses = sorted(((r.top_score - results[r.pk], r.number) for r in rounds if r.top_score > results[r.pk]),
                    key=lambda x: (-x[0], x[1]))[:5]
    shown_losses = page.locator("#review-losses li").all_inner_texts()
    assert len(shown_losses) == len(losses)
    for text, (loss, number) in zip(shown_losses, losses, strict=True):
        assert text.startswith(f"Round {number}:") and text.endswith(f"(−{loss})")
    missed = [r for r in rounds if results[r.pk] != r.top_score]
    assert len(page.locator("#review-missed li").all_inner_texts()) == len(missed)
    total, top_total = sum(results.values()), sum(r.top_score for r in rounds)
    assert page.locator("#review-total").inner_text().startswith(f"{total} of {top_total} points")
    assert not page.errors

    # On a laptop, the arbitrator opens the same player's review from the console.
    laptop = new_page("laptop")
    laptop.goto("/console/login/")
    arbitrator.set_password("review-secret-1")
    arbitrator.save()
    laptop.fill("#id_username", arbitrator.username)
    laptop.fill("#id_password", "review-secret-1")
    laptop.locator("form [type=submit]").last.click()
    laptop.wait_for_url(lambda url: "/login" not in url)
    laptop.goto(f"/console/games/{game.pk}/players/{player.pk}/")
    laptop.locator("#player-review-link").click()
    laptop.wait_for_function("document.querySelector('#review-round')?.dataset.round === '1'")
    assert laptop.evaluate(RACK_JS) == rounds[0].rack
    laptop.keyboard.press("ArrowRight")
    laptop.wait_for_function("document.querySelector('#review-round')?.dataset.round === '2'")
    shutil.copy(screenshot(laptop, "review-laptop-round2", full_page=True), SHOTS / "review-laptop-round2.png")
    assert not laptop.errors
    wait_for(lambda: (SHOTS / "review-laptop-round2.png").exists())


SWIPE_JS = """(dx) => {
  const el = document.querySelector('.review-grid');
  const box = el.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + 80;
  const touch = (at) => new Touch({identifier: 1, target: el, clientX: at, clientY: y});
  el.dispatchEvent(new TouchEvent('touchstart', {touches: [touch(x)], changedTouches: [touch(x)], bubbles: true}));
  el.dispatchEvent(new TouchEvent('touchend', {touches: [], changedTouches: [touch(x + dx)], bubbles: true}));
}"""


def test_a_french_tournaments_review_speaks_french_with_its_typography(live_server, chromium, make_tournament,
                                                                      arbitrator, screenshot):
    from tests.tournaments.sheets_support import ANNA, play_game

    tournament = make_tournament(name="Tournoi de Vichy", solo_min_players=3, created_by=arbitrator, language="fr")
    played = play_game(tournament, arbitrator, rounds=2, end=True)
    game = played.game
    r2 = game.rounds.get(number=2)
    count = len(generate_plays(Board.from_rows(r2.board), r2.rack, get_lexicon(tournament.lexicon),
                               tournament.tiles, tournament.rules))
    # A touch phone; the tournament's language wins over the browser's.
    context = chromium.new_context(viewport={"width": 390, "height": 844}, locale="en-GB", has_touch=True,
                                   is_mobile=True, base_url=live_server.url)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/games/{game.pk}/play#token={played.tokens[ANNA]}")
    page.locator("#review-link a").wait_for(state="visible")
    assert page.locator("#review-link a").inner_text() == "Revoir ma partie"
    page.goto(f"/games/{game.pk}/review?round=2")
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '2'")
    assert page.locator("#review-round").inner_text() == "Coup 2"
    # Anna handed in no slip in round 2: said with French typography (a no-break space before the colon).
    assert page.locator("#review-rank").text_content() == f"Pas de bulletin\u00a0: {count} coups possibles."
    assert page.locator("#review-slip").inner_text() == "Aucun bulletin rendu."
    found = Result.objects.filter(round=r2, paid=r2.top_score).count()
    players = Result.objects.filter(round=r2).exclude(reason="absent").count()
    assert page.locator("#review-found").inner_text() == (f"{found} joueur sur {players} a trouvé le top" if found <= 1
                                                          else f"{found} joueurs sur {players} ont trouvé le top")
    first = page.locator("#review-best tr").first.locator("td").first.inner_text()
    assert first == "1er"
    assert "%" in page.locator("#review-total").text_content()
    assert "\u00a0%" in page.locator("#review-total").text_content()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(screenshot(page, "review-phone-fr", full_page=True), SHOTS / "review-phone-fr.png")
    # A swipe to the right goes back a round, to the left forward; a short or upright one does nothing.
    page.evaluate(SWIPE_JS, 200)
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '1'")
    assert page.locator("#review-round").inner_text() == "Coup 1"
    page.evaluate(SWIPE_JS, 20)
    page.wait_for_timeout(300)
    assert page.locator("#review-round").get_attribute("data-round") == "1"
    page.evaluate(SWIPE_JS, -200)
    page.wait_for_function("document.querySelector('#review-round')?.dataset.round === '2'")
    assert not errors
    context.close()
