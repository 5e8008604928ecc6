"""Bad input gets a 4xx in the error shape and changes nothing."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tournaments.models import Game, LogEntry, Player, Result, Round, Slip, Tournament

from .api_support import assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

MODELS = (Tournament, Game, Player, Round, Slip, Result, LogEntry)


def counts() -> dict:
    return {model.__name__: model.objects.count() for model in MODELS}


@pytest.fixture
def open_game(api_game):
    game = api_game(players=2)
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)
    return game


GOOD = {"word": "TARES", "ref": "H4", "score": 12, "key": "k1"}


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"ref": "Z99"}, "ref", "bad_ref"),
        ({"ref": "HH"}, "ref", "bad_ref"),
        ({"ref": "H16"}, "ref", "bad_ref"),
        ({"ref": "4-H"}, "ref", "bad_ref"),
        ({"word": "TAR3S"}, "word", "invalid"),
        ({"word": "TA RES"}, "word", "invalid"),
        ({"word": "É-É"}, "word", "invalid"),  # ÉÉÉ is EEE: the set folds its accents (docs/rules.md)
        ({"word": "A" * 16}, "word", "invalid"),
        ({"word": "A" * 10_240}, "word", "invalid"),
        ({"word": ""}, "word", "invalid"),
        ({"word": None}, "word", "invalid"),
        ({"score": -1}, "score", "invalid"),
        ({"score": "twelve"}, "score", "invalid"),
        ({"score": 1.5}, "score", "invalid"),
        ({"key": "k" * 65}, "key", "invalid"),
        ({"key": ""}, "key", "invalid"),
    ],
)
def test_a_bad_slip_is_refused_with_the_field_named(open_game, change, field, code):
    before = counts()
    response = open_game.players[0].client.post(open_game.round_url(1, "/slips"), {**GOOD, **change}, format="json")
    error = assert_error(response, 400, code)
    assert field in error["fields"], error
    assert counts() == before


def test_a_slip_without_key_from_a_phone_is_refused(open_game):
    before = counts()
    body = {k: v for k, v in GOOD.items() if k != "key"}
    error = assert_error(open_game.players[0].client.post(open_game.round_url(1, "/slips"), body, format="json"), 400)
    assert "key" in error["fields"]
    assert counts() == before


def test_unknown_game_round_and_path(open_game):
    arb = open_game.arbitrator
    before = counts()
    assert_error(arb.get("/api/games/999999"), 404, "not_found")
    assert_error(arb.post("/api/games/999999/rounds", {}, format="json"), 404)
    assert_error(arb.post("/api/tournaments/999999/games", {}, format="json"), 404)
    assert_error(arb.get(open_game.round_url(7)), 404)
    assert_error(arb.post(open_game.round_url(7, "/close"), {}, format="json"), 404)
    assert_error(arb.post(open_game.round_url(1, "/slips/999999/correct"), {"reason": "x"}, format="json"), 404)
    assert_error(APIClient().get("/api/games/999999/live"), 404)
    assert_error(APIClient().get("/api/no/such/path"), 404, "not_found")
    # A player token names its own game only: for any other (even one that does not exist) it is refused.
    assert_error(open_game.players[0].client.post("/api/games/999999/rounds/1/slips", GOOD, format="json"), 403)
    assert counts() == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/players", {"name": "N" * 61}, "name"),
        ("/players", {"name": ""}, "name"),
        ("/players", {"name": "Ann", "table": 0}, "table"),
        ("/players", {"name": "Ann", "table": -3}, "table"),
        ("/players", {"name": "Ann", "table": "one"}, "table"),
        ("/rounds", {"rack": "abc"}, "rack"),
        ("/rounds", {"rack": "ABCDEFGHIJKLMNOP"}, "rack"),  # beyond the largest rack (15)
        ("/rounds", {"rack": "AB1"}, "rack"),
    ],
)
def test_bad_set_up_input(api_game, path, body, field):
    game = api_game(players=0)
    before = counts()
    error = assert_error(game.arbitrator.post(game.url(path), body, format="json"), 400)
    assert field in error["fields"], error
    assert counts() == before


def test_a_typed_rack_the_bag_cannot_give(api_game):
    """Well-formed letters that this game's bag cannot give conflict with its state (409); letters that are
    not tiles are bad input (400)."""
    game = api_game(players=0)
    before = counts()
    error = assert_error(game.arbitrator.post(game.url("/rounds"), {"rack": "ZZZZZZZ"}, format="json"), 409)
    assert error["code"] == "not_in_bag" and error["message"]
    assert counts() == before


def test_bad_tournament_input(arbitrator_client):
    for body, field in [
        ({"name": "T", "tileset": "klingon"}, "tileset"),
        ({"name": "T", "ruleset": "chess"}, "ruleset"),
        ({"name": "T", "coordinates": "diagonal"}, "coordinates"),
        ({"name": "T", "round_seconds": 0}, "round_seconds"),
        ({"name": "T", "rules": {"no_such_rule": 1}}, "rules"),
        ({"name": "T", "rules": {"solo_bonus": "ten"}}, "rules"),
        ({"name": "T", "rules": {"round_seconds": 60}}, "rules"),
        ({"name": "T", "rules": ["solos"]}, "rules"),
        ({}, "name"),
    ]:
        error = assert_error(arbitrator_client.post("/api/tournaments", body, format="json"), 400)
        assert field in error["fields"], (body, error)
    error = assert_error(arbitrator_client.post("/api/tournaments", {"name": "T", "lexicon": "KLINGON"},
                                                format="json"), 400, "unknown_lexicon")
    assert Tournament.objects.count() == 0


def test_tournament_input_is_measured_as_sent_as_the_schema_does(arbitrator_client):
    """The schema's lexicon enum and name maxLength read the text as sent: a built-in name with a space around
    it is no lexicon, and a name one character too long is refused even when trimming would shorten it."""
    for lexicon in (" TWL06", "TWL06\n", "SOWPODS "):
        assert_error(arbitrator_client.post("/api/tournaments", {"name": "T", "lexicon": lexicon}, format="json"),
                     400, "unknown_lexicon")
    for name in ("a" * 200 + " ", " " + "a" * 200):
        error = assert_error(arbitrator_client.post("/api/tournaments", {"name": name}, format="json"), 400)
        assert "name" in error["fields"], error
    assert Tournament.objects.count() == 0
    expect(arbitrator_client.post("/api/tournaments", {"name": "a" * 200, "lexicon": "TWL06"}, format="json"), 201)


def test_bodies_that_are_not_json_objects(open_game):
    client = open_game.players[0].client
    url = open_game.round_url(1, "/slips")
    before = counts()
    assert_error(client.post(url, "{not json", content_type="application/json"), 400, "malformed")
    assert_error(client.post(url, json.dumps([GOOD]), content_type="application/json"), 400, "invalid")
    assert_error(client.post(url, "word=TARES", content_type="application/x-www-form-urlencoded"), 415)
    too_big = json.dumps({**GOOD, "padding": "x" * 100_000})
    assert_error(client.post(url, too_big, content_type="application/json"), 413, "too_large")
    assert counts() == before


def test_a_replayed_request_changes_nothing(open_game):
    client = open_game.players[0].client
    url = open_game.round_url(1, "/slips")
    first = expect(client.post(url, GOOD, format="json"), 201)
    before = counts()
    for _ in range(3):
        assert expect(client.post(url, GOOD, format="json"), 200)["id"] == first["id"]
    # The same key with another content is a mistake of the sender, refused.
    assert_error(client.post(url, {**GOOD, "score": 13}, format="json"), 409, "key_reused")
    assert counts() == before


def test_slips_are_rate_limited_per_player(open_game, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"slips": "3/min", "join": "3/min"}}
    a, b = open_game.players
    url = open_game.round_url(1, "/slips")
    for i in range(3):
        expect(a.client.post(url, {**GOOD, "key": f"a{i}"}, format="json"), 201)
    before = counts()
    error = assert_error(a.client.post(url, {**GOOD, "key": "a-more"}, format="json"), 429, "throttled")
    assert "second" in error["message"]
    assert counts() == before
    expect(b.client.post(url, {**GOOD, "key": "b0"}, format="json"), 201)  # another player is not limited
    # The arbitrator entering paper slips is not limited either.
    for i in range(4):
        expect(open_game.arbitrator.post(url, {**GOOD, "key": f"p{i}", "player": a.id}, format="json"), 201)


def test_ids_beyond_the_database_range_are_not_found(open_game):
    huge = 10**30
    arb = open_game.arbitrator
    assert_error(arb.get(f"/api/games/{huge}"), 404)
    assert_error(arb.get(open_game.round_url(huge)), 404)
    assert_error(arb.post(open_game.round_url(1, f"/slips/{huge}/correct"), {"reason": "x"}, format="json"), 404)
    assert_error(APIClient().get(f"/api/games/{huge}/live"), 404)
    assert_error(APIClient().get(f"/api/tournaments/{huge}/standings"), 404)
    assert_error(open_game.players[0].client.get(f"/api/games/{huge}"), 403)
    error = assert_error(arb.post(open_game.round_url(1, "/slips"), {**GOOD, "player": huge}, format="json"), 404)
    assert "player" in error["fields"]


def _join_rates(settings, **rates):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        "slips": "30/min", "join_failures": "3/min", **rates}}


def test_successful_joins_from_one_address_are_never_slowed(api_game, settings):
    # A hall behind one address (venue NAT): ten times the failure limit of joins all succeed.
    _join_rates(settings, join_failures="3/min")
    game = api_game(players=0)
    hall = APIClient()
    for i in range(30):
        expect(hall.post("/api/join", {"join_code": game.join_code, "name": f"P{i}"}, format="json"), 201)


def test_wrong_join_codes_slow_the_address_down(api_game, settings):
    _join_rates(settings, join_failures="3/min")
    game = api_game(players=0)
    guesser = APIClient()
    for code in ("AAAAAA", "BBBBBB", "CCCCCC"):
        assert_error(guesser.post("/api/join", {"join_code": code, "name": "G"}, format="json"), 404,
                     "unknown_join_code")
    before = counts()
    # Slowed: its next wrong code is answered 429, told to wait (a short code is not even looked up).
    error = assert_error(guesser.post("/api/join", {"join_code": "WXYZ234567", "name": "G"}, format="json"),
                         429, "throttled")
    assert "second" in error["message"]
    assert counts() == before
    # A forged X-Forwarded-For does not make a new address: no proxy is trusted by default.
    assert_error(guesser.post("/api/join", {"join_code": "DDDDDD", "name": "G"}, format="json",
                              HTTP_X_FORWARDED_FOR="203.0.113.9"), 429, "throttled")
    # The right code is never held up, from this address (a hall behind one address) or another.
    expect(guesser.post("/api/join", {"join_code": game.join_code, "name": "H"}, format="json"), 201)
    # Another address is not held up by this one.
    other = APIClient(REMOTE_ADDR="127.0.0.9")
    expect(other.post("/api/join", {"join_code": game.join_code, "name": "I"}, format="json"), 201)


def test_behind_a_trusted_proxy_the_forwarded_address_counts(api_game, settings):
    _join_rates(settings, join_failures="2/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    game = api_game(players=0)
    proxy = APIClient()  # every request reaches the server from the proxy's address
    for _ in range(2):
        assert_error(proxy.post("/api/join", {"join_code": "AAAAAA", "name": "G"}, format="json",
                                HTTP_X_FORWARDED_FOR="198.51.100.7"), 404)
    assert_error(proxy.post("/api/join", {"join_code": "AAAAAA", "name": "G"}, format="json",
                            HTTP_X_FORWARDED_FOR="198.51.100.7"), 429, "throttled")
    # A phone behind the same proxy with its own address joins.
    expect(proxy.post("/api/join", {"join_code": game.join_code, "name": "J"}, format="json",
                      HTTP_X_FORWARDED_FOR="198.51.100.8"), 201)


def test_wrong_codes_from_many_addresses_never_hold_up_another_address(api_game, settings):
    """No limit across all addresses (a spray would shut the hall out): tests/tournaments/test_join_guesses.py."""
    _join_rates(settings, join_failures="4/min")
    game = api_game(players=0)
    for i in range(8):
        assert_error(APIClient(REMOTE_ADDR=f"127.0.1.{i}").post(
            "/api/join", {"join_code": "AAAAAA", "name": "G"}, format="json"), 404)
    expect(APIClient(REMOTE_ADDR="127.0.1.99").post(
        "/api/join", {"join_code": game.join_code, "name": "G"}, format="json"), 201)


def test_server_errors_and_unknown_paths_under_api_are_json(rf):
    from tournaments.api.exceptions import handler404, handler500

    response = handler500(rf.get("/api/games/1"))
    assert response.status_code == 500
    assert json.loads(response.content)["error"]["code"] == "server_error"
    page = handler404(rf.get("/console/nothing"), Exception("no such page"))
    assert page.status_code == 404 and not page["Content-Type"].startswith("application/json")
    api = handler404(rf.get("/api/nothing"), Exception("no such path"))
    assert api.status_code == 404 and json.loads(api.content)["error"]["code"] == "not_found"
