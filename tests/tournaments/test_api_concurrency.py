"""Requests racing each other on PostgreSQL: separate clients in threads, each with its own connection."""

from __future__ import annotations

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tournaments.models import LogEntry, Result, Round, Slip
from tournaments.security import issue_api_token

from .api_support import bearer_client, expect
from .threads_support import race

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]


def arbitrator_clients(user, n: int) -> list[APIClient]:
    key = issue_api_token(user)[0]
    clients = []
    for _ in range(n):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        clients.append(client)
    return clients


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
def test_two_simultaneous_closes_give_one_set_of_results(api_game, arbitrator):
    game = api_game(players=3)
    arb = game.arbitrator
    expect(arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    for i, seat in enumerate(game.players[:2]):
        expect(seat.client.post(game.round_url(1, "/slips"),
                                {"word": "TARES", "ref": "H4", "score": 12 + i, "key": "k"}, format="json"), 201)
    url = game.round_url(1, "/close")
    clients = arbitrator_clients(arbitrator, 4)
    answers = race([lambda c=c: c.post(url, {}, format="json") for c in clients])
    assert all(not isinstance(a, Exception) for a in answers), answers
    assert [a.status_code for a in answers] == [200] * 4
    assert sorted(a.json()["closed"] for a in answers) == [False, False, False, True]
    round = Round.objects.get(game_id=game.id, number=1)
    assert round.status == "closed"
    assert Result.objects.filter(round=round).count() == 3
    assert LogEntry.objects.filter(round=round, action="round_close").count() == 1
    board = expect(arb.get(game.url()), 200)["board"]
    assert sum(ch != "." for row in board for ch in row) == len(round.master["tiles"])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
def test_the_same_slip_sent_at_once_from_two_connections_is_kept_once(api_game):
    game = api_game(players=1)
    arb = game.arbitrator
    expect(arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    token = game.players[0].token
    body = {"word": "TARES", "ref": "H4", "score": 12, "key": "phone-retry"}
    url = game.round_url(1, "/slips")
    answers = race([lambda: bearer_client(token).post(url, body, format="json") for _ in range(4)])
    assert all(not isinstance(a, Exception) for a in answers), answers
    assert sorted(a.status_code for a in answers) == [200, 200, 200, 201]
    assert len({a.json()["id"] for a in answers}) == 1
    assert Slip.objects.count() == 1
