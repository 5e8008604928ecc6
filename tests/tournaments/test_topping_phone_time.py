"""What a topping phone is sent to show its running time (docs/rules.md 7.5): the round's start and the
arbitrator's extensions, in the live state every page polls (/games/{id}/live) and is pushed. The phone counts
from the start (pauses included, as the server charges) up to the round's time with its extensions; before,
it took the start as the deadline minus the round's time, which an extension or a pause moved."""

from __future__ import annotations

from datetime import datetime

import pytest

from tournaments.models import Round, Tournament
from tournaments.topping_selectors import round_time

from .api_support import expect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]

ROUND_SECONDS = 60


def _live(client, game) -> dict:
    response = client.get(f"/games/{game.id}/live")
    assert response.status_code == 200
    return response.json()


def test_the_phone_s_state_carries_the_round_s_start_and_its_extensions(api_game, client):
    game = api_game(players=1, variant="topping", lexicon="TWL06", round_seconds=ROUND_SECONDS)
    arb = game.arbitrator
    expect(arb.post(game.url("/rounds"), {"rack": "AEINRST"}, format="json"), 201)
    drawn = _live(client, game)
    assert drawn["started_at"] is None and drawn["extended_seconds"] == 0
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    round = Round.objects.get(game_id=game.id, number=1)
    opened = _live(client, game)
    assert opened["round_status"] == "open"
    assert datetime.fromisoformat(opened["started_at"]) == round.started_at
    assert datetime.fromisoformat(opened["deadline"]) == round.deadline
    assert (round.deadline - round.started_at).total_seconds() == ROUND_SECONDS

    expect(arb.post(game.round_url(1, "/extend"), {"extra_seconds": 30, "reason": "noise"}, format="json"), 200)
    extended = _live(client, game)
    # The deadline moved, the start did not: the running time no longer loses the extension's 30 s.
    assert datetime.fromisoformat(extended["started_at"]) == round.started_at
    assert extended["extended_seconds"] == 30
    moved = datetime.fromisoformat(extended["deadline"]) - datetime.fromisoformat(opened["deadline"])
    assert moved.total_seconds() == 30

    expect(arb.post(game.round_url(1, "/pause"), {"reason": "a player unwell"}, format="json"), 200)
    paused = _live(client, game)
    assert paused["paused"] is True and paused["started_at"] == extended["started_at"]
    expect(arb.post(game.round_url(1, "/resume"), {}, format="json"), 200)
    resumed = _live(client, game)
    assert resumed["started_at"] == extended["started_at"] and resumed["extended_seconds"] == 30
    assert resumed["deadline"] > extended["deadline"]  # the pause moved the deadline again

    # The most the phone counts is the round's time with the extension: what the server charges for a top
    # found at the end; a player who never finds it pays the penalty on top of it.
    tournament = Tournament.objects.get(pk=game.tournament_id)
    round.refresh_from_db()
    most = ROUND_SECONDS + resumed["extended_seconds"]
    assert round_time(tournament, round, found_after=most + 100, wrong_tries=0) == most
    assert round_time(tournament, round, found_after=None, wrong_tries=0) == most + tournament.rules.topping_penalty
