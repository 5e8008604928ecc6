"""Who may call what: arbitrator tokens and sessions, player bearer tokens bound to their game."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory
from knox.models import AuthToken
from rest_framework.test import APIClient

from tournaments.models import Game, Round, Slip, Tournament
from tournaments.security import issue_api_token

from .api_support import assert_error, bearer_client, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def open_round(game) -> None:
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)


SLIP = {"word": "TARES", "ref": "H4", "score": 12, "key": "k1"}


def test_staff_get_a_token_others_do_not(django_user_model):
    django_user_model.objects.create_user(username="arb", password="pw-arb-123", is_staff=True)
    django_user_model.objects.create_user(username="joe", password="pw-joe-123", is_staff=False)
    client = APIClient()
    token = expect(client.post("/api/auth/token", {"username": "arb", "password": "pw-arb-123"}, format="json"),
                   200)["token"]
    stored = AuthToken.objects.get(user__username="arb")
    assert token not in (stored.digest, stored.token_key)  # a digest is stored, never the token
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    expect(client.post("/api/tournaments", {"name": "T"}, format="json"), 201)

    assert_error(APIClient().post("/api/auth/token", {"username": "joe", "password": "pw-joe-123"}, format="json"),
                 403, "not_arbitrator")
    assert_error(APIClient().post("/api/auth/token", {"username": "arb", "password": "wrong"}, format="json"),
                 400, "bad_credentials")
    assert_error(APIClient().post("/api/auth/token", {"username": "arb"}, format="json"), 400, "invalid")
    assert not AuthToken.objects.filter(user__username="joe").exists()


def test_arbitrator_paths_need_credentials():
    assert_error(APIClient().post("/api/tournaments", {"name": "T"}, format="json"), 401, "not_authenticated")
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef")
    assert_error(bad.post("/api/tournaments", {"name": "T"}, format="json"), 401, "authentication_failed")
    assert Tournament.objects.count() == 0


def test_a_non_staff_user_token_is_not_an_arbitrator(django_user_model):
    user = django_user_model.objects.create_user(username="joe", password="pw")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_api_token(user)[0]}")
    assert_error(client.post("/api/tournaments", {"name": "T"}, format="json"), 403, "arbitrator_only")
    assert Tournament.objects.count() == 0


def test_arbitrator_actions_with_a_player_token_are_forbidden(api_game):
    game = api_game(players=1)
    player = game.players[0].client
    assert_error(player.post(game.url("/rounds"), {}, format="json"), 403, "arbitrator_only")
    assert Round.objects.count() == 0
    open_round(game)
    for path in ("/close", "/master"):
        assert_error(player.post(game.round_url(1, path), {"word": "TARES", "ref": "H4"}, format="json"), 403)
    assert_error(player.get(game.url("/progress")), 403)
    assert_error(player.post(game.url("/players"), {"name": "Eve"}, format="json"), 403)
    assert Round.objects.get().status == "open"


def test_a_forged_player_token_is_refused(api_game):
    game = api_game(players=1)
    open_round(game)
    forged = bearer_client("x" * 43)
    assert_error(forged.get(game.url()), 401, "authentication_failed")
    assert_error(forged.post(game.round_url(1, "/slips"), SLIP, format="json"), 401)
    assert_error(bearer_client("").get(game.url()), 401)
    assert Slip.objects.count() == 0


def test_a_player_token_works_for_its_own_game_only(api_game):
    game = api_game(players=1)
    other = api_game(players=1, seed=8)
    open_round(game)
    open_round(other)
    stranger = other.players[0].client
    assert_error(stranger.get(game.url()), 403, "forbidden")
    assert_error(stranger.get(game.round_url(1)), 403)
    assert_error(stranger.post(game.round_url(1, "/slips"), SLIP, format="json"), 403)
    assert_error(stranger.get(game.url("/me")), 403)
    assert Slip.objects.count() == 0
    expect(stranger.post(other.round_url(1, "/slips"), SLIP, format="json"), 201)


def test_a_player_of_an_earlier_game_plays_the_later_games_of_the_tournament(api_game, arbitrator_client):
    game = api_game(players=1)
    later = expect(arbitrator_client.post(f"/api/tournaments/{game.tournament_id}/games", {"seed": 3},
                                          format="json"), 201)
    assert expect(game.players[0].client.get(f"/api/games/{later['id']}"), 200)["id"] == later["id"]
    newcomer = expect(arbitrator_client.post(f"/api/games/{later['id']}/players", {"name": "Late"}, format="json"),
                      201)
    assert_error(bearer_client(newcomer["token"]).get(game.url()), 403)


def test_a_player_hands_in_their_own_slip_only(api_game):
    game = api_game(players=2)
    a, b = game.players
    open_round(game)
    assert_error(a.client.post(game.round_url(1, "/slips"), {**SLIP, "player": b.id}, format="json"), 403,
                 "not_your_slip")
    assert Slip.objects.count() == 0
    assert expect(a.client.post(game.round_url(1, "/slips"), {**SLIP, "player": a.id}, format="json"),
                  201)["player"] == a.id


def test_the_console_session_works_with_csrf(arbitrator, api_game):
    game = api_game(players=0)
    client = Client(enforce_csrf_checks=True)
    client.force_login(arbitrator)
    body = {"rack": "EIRST?A"}
    assert_error(client.post(game.url("/rounds"), body, content_type="application/json"), 403)
    assert Round.objects.count() == 0
    # The console page would have set this cookie; the header repeats the token.
    request = RequestFactory().get("/console/")
    token = get_token(request)
    client.cookies[settings.CSRF_COOKIE_NAME] = request.META["CSRF_COOKIE"]
    response = client.post(game.url("/rounds"), body, content_type="application/json",
                           headers={"X-CSRFToken": token})
    assert expect(response, 201)["number"] == 1
    assert expect(client.get(game.url()), 200)["round"] == 1


def test_public_paths_need_nothing(api_game):
    game = api_game(players=1)
    anonymous = APIClient()
    expect(anonymous.get(game.url("/standings")), 200)
    expect(anonymous.get(game.url("/live")), 200)
    expect(anonymous.get(f"/api/tournaments/{game.tournament_id}/standings"), 200)
    assert_error(anonymous.get(game.url()), 401)
    assert Game.objects.count() == 1


def test_token_requests_are_rate_limited_per_address(django_user_model, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"slips": "30/min", "join": "30/min", "auth": "2/min"}}
    django_user_model.objects.create_user(username="arb", password="pw-arb-123", is_staff=True)
    client = APIClient()
    for _ in range(2):
        assert_error(client.post("/api/auth/token", {"username": "arb", "password": "guess"}, format="json"), 400)
    assert_error(client.post("/api/auth/token", {"username": "arb", "password": "pw-arb-123"}, format="json"),
                 429, "throttled")
    assert not AuthToken.objects.exists()
