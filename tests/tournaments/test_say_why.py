"""Say why: a round the arbitrator cancelled shows the reason they gave, not "no play possible"; round 1's
slip naming another placement with a wrong score is paid as the best placement and says so, with the
placement used, on the phone's verdict, the review and the console, in English and French."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from tournaments import services
from tournaments.models import Result, Round
from tournaments.web.views import reason_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

# BRAIN across from H4 puts the B on a double letter and the N on the centre's double word: (6+4)x2 = 20,
# the word's best placement; a slip writing it down from H8 (8H) with 22 names another placement.
RACK = "ABINRST"


def _round_one_with(game, make_player, slips):
    players = {}
    round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    for name, (word, ref, score) in slips.items():
        player, token = make_player(game, name=name)
        players[name] = (player, token)
        services.slip_submit(round=round, player=player, word=word, ref=ref, score=score, key=f"k-{name}")
    services.round_close(round=round)
    round.refresh_from_db()
    return round, players


def test_round_one_paid_as_the_best_placement_says_so_with_the_placement(make_game, make_player, console, client):
    game = make_game()
    round, players = _round_one_with(game, make_player, {
        "Alice": ("BRAIN", "8H", 22), "Bruno": ("BRAIN", "H4", 22), "Chloé": ("BRAIN", "8H", 20)})
    alice = Result.objects.get(round=round, player=players["Alice"][0])
    assert (alice.paid, alice.outcome, alice.reason, alice.placement) == (
        20, "warning", "first_round_best_wrong_score", "H4")
    assert alice.message.startswith("BRAIN H4 20: first round: paid the best placement of the word")
    # The placement written was the best one: only the score was wrong. The right score elsewhere: no warning.
    bruno = Result.objects.get(round=round, player=players["Bruno"][0])
    assert (bruno.paid, bruno.outcome, bruno.reason, bruno.placement) == (20, "warning", "wrong_score", "H4")
    chloe = Result.objects.get(round=round, player=players["Chloé"][0])
    assert (chloe.paid, chloe.outcome, chloe.reason) == (20, "ok", "first_round_best")

    # The phone's verdict: the player's own line carries the placement, and the page its text.
    token = players["Alice"][1]
    mine = client.get(f"/games/{game.pk}/mine", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert (mine["result"]["reason"], mine["result"]["placement"], mine["result"]["word"]) == (
        "first_round_best_wrong_score", "H4", "BRAIN")
    page = client.get(f"/games/{game.pk}/play", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "paid as %(word)s %(placement)s, the best placement of the word" in page
    with translation.override("en"):
        assert reason_text("first_round_best_wrong_score", "BRAIN", "H4") == (
            "First round: paid as BRAIN H4, the best placement of the word; the score written was not its "
            "score: a warning.")
    with translation.override("fr"):
        assert reason_text("first_round_best_wrong_score", "BRAIN", "H4") == (
            "Premier coup : payé comme BRAIN H4, la meilleure place du mot ; le score écrit n'était pas le "
            "sien : un avertissement.")

    # The review (once the next rack is drawn) gives the placement with the result.
    services.round_draw(game=game, rack="EEILOTU")
    review = client.get(f"/games/{game.pk}/review.json", {"round": 1}, HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert (review["round"]["result"]["reason"], review["round"]["result"]["placement"]) == (
        "first_round_best_wrong_score", "H4")

    # The console's round page says it with the placement, in the arbitrator's language.
    html = console.get(reverse("console-round", args=[game.pk, 1]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "First round: paid as BRAIN H4, the best placement of the word" in html
    html = console.get(reverse("console-round", args=[game.pk, 1]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert re.search(r"Premier coup(\s|&nbsp;): payé comme BRAIN H4, la meilleure place du mot", html)


def test_the_api_round_detail_gives_the_placement_paid(make_game, make_player, arbitrator_client):
    game = make_game()
    _round_one_with(game, make_player, {"Alice": ("BRAIN", "8H", 22)})
    body = arbitrator_client.get(f"/api/games/{game.pk}/rounds/1").json()
    assert [(r["reason"], r["placement"]) for r in body["results"]] == [("first_round_best_wrong_score", "H4")]


def test_a_cancelled_round_shows_the_arbitrators_reason(make_game, console):
    game = make_game()
    round = services.round_draw(game=game, rack=RACK)
    services.round_cancel(round=round, reason="wrong rack announced", actor=console.user)
    assert Round.objects.get(pk=round.pk).status == Round.Status.CANCELLED
    url = reverse("console-rounds", args=[game.pk])
    html = console.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Cancelled: wrong rack announced" in html and "no play possible" not in html
    html = console.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert re.search(r"Annulé(\s|&nbsp;|\u00a0): wrong rack announced", html) and "aucun coup possible" not in html


def test_a_round_cancelled_because_no_play_was_possible_still_says_so():
    from tournaments.web.console.texts import round_status_text

    with translation.override("en"):
        assert round_status_text("cancelled") == "Cancelled (no play possible)"
        assert round_status_text("cancelled", "the bag was dropped") == "Cancelled: the bag was dropped"
        assert round_status_text("closed", "ignored") == "Closed"
