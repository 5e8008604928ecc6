"""Who reads what of the standings: `GET /api/games/{id}/standings` and `/api/tournaments/{id}/standings` are
readable by anyone (game ids are sequential), so an anonymous answer carries what the public results page
shows: no table number, no licence number (null; the contract lists `table`). The game's arbitrators see
every row whole, a player (their bearer token) their own row."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments import public
from tournaments.models import GameArbitrator
from tournaments.security import issue_api_token

from .api_support import bearer_client, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

LICENCE = "FR-0421337"


@pytest.fixture
def club(api_game):
    game = api_game(players=2)
    eve = expect(game.arbitrator.post(game.url("/players"), {"name": "Ève Martin", "table": 9, "licence": LICENCE},
                                      format="json"), 201)
    return game, eve


def _urls(game) -> list[str]:
    return [game.url("/standings"), f"/api/tournaments/{game.tournament_id}/standings"]


def _rows(client, url) -> dict[str, dict]:
    return {row["name"]: row for row in expect(client.get(url), 200)}


def test_an_anonymous_reader_gets_what_the_public_page_shows(club):
    game, eve = club
    for url in _urls(game):
        for client in (APIClient(), bearer_client("not-a-token"), _token_client("no-such-token")):
            rows = _rows(client, url)
            assert set(rows) == {"Player A", "Player B", "Ève Martin"}, url
            for row in rows.values():
                assert "table" in row and "licence" in row  # the contract's fields stay, null
                assert (row["table"], row["licence"]) == (None, None), (url, row)
                # Everything the public results page shows of a player is there.
                assert set(public.ROW_FIELDS) <= set(row), url
            assert LICENCE not in str(rows)


def test_the_games_arbitrators_see_every_row_whole_and_a_player_their_own(club):
    game, eve = club
    for url in _urls(game):
        rows = _rows(game.arbitrator, url)
        assert (rows["Ève Martin"]["table"], rows["Ève Martin"]["licence"]) == (9, LICENCE), url
        assert (rows["Player A"]["table"], rows["Player B"]["table"]) == (1, 2), url

        rows = _rows(bearer_client(eve["token"]), url)
        assert (rows["Ève Martin"]["table"], rows["Ève Martin"]["licence"]) == (9, LICENCE), url
        assert rows["Player A"]["table"] is None and rows["Player B"]["table"] is None, url

        rows = _rows(game.players[0].client, url)
        assert rows["Player A"]["table"] == 1 and rows["Ève Martin"]["table"] is None, url
        assert LICENCE not in str(rows)


def test_an_arbitrator_without_a_role_in_the_game_reads_as_the_public(club, arbitrator, client):
    game, eve = club
    GameArbitrator.objects.get_or_create(game_id=game.id, user=arbitrator, defaults={"role": GameArbitrator.Role.HEAD})
    other = get_user_model().objects.create_user("visiting", password="x" * 12, is_staff=True)
    for url in _urls(game):
        rows = _rows(_token_client(issue_api_token(other)[0]), url)
        assert (rows["Ève Martin"]["table"], rows["Ève Martin"]["licence"]) == (None, None), url
        client.force_login(other)  # the console's session
        assert _rows(client, url)["Ève Martin"]["table"] is None, url
        client.force_login(arbitrator)
        assert _rows(client, url)["Ève Martin"]["licence"] == LICENCE, url


def test_the_public_page_shows_no_private_field():
    assert not set(public.PRIVATE_FIELDS) & set(public.ROW_FIELDS)
    rows = [{"player": 1, "name": "A", "table": 3, "licence": "X"}, {"player": 2, "name": "B", "table": 4, "licence": "Y"}]
    assert public.for_reader(rows, arbitrator=False, player_id=2) == [
        {"player": 1, "name": "A", "table": None, "licence": None}, rows[1]]


def _token_client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client
