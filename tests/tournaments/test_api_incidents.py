"""Incidents and arbitrators' roles through the API: pause, resume, extend, cancel, rack; who may do what."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tournaments.models import GameArbitrator, LogEntry, Round, Slip
from tournaments.security import issue_api_token

from .api_support import asgi_post, assert_error, expect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]


@pytest.fixture
def staff(django_user_model):
    """``staff(name)``: another arbitrator (a staff user) and an API client with their token."""

    def make(name: str):
        user = django_user_model.objects.create_user(username=name, password="secret-password", is_staff=True)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {issue_api_token(user)[0]}")
        client.user = user
        return client

    return make


def opened(game, rack: str = "EIRST?A") -> None:
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": rack}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)


def test_pause_refuses_slips_everywhere_and_resume_sets_a_new_deadline(api_game):
    game = api_game(players=2, round_seconds=120)
    opened(game)
    arb = game.arbitrator
    body = expect(arb.post(game.round_url(1, "/pause"), {"reason": "a player was taken ill"}, format="json"), 200)
    assert body["paused"] is True and body["status"] == "open" and 115 < body["time_left"] <= 120
    assert body["incidents"][-1]["action"] == "pause" and body["incidents"][-1]["reason"] == "a player was taken ill"
    assert body["incidents"][-1]["by"] == arb.user.username
    live = expect(arb.get(game.url("/live")), 200)
    assert live["paused"] is True and live["time_left"] == body["time_left"]

    slip = {"word": "TARES", "ref": "H4", "score": 12, "key": "k1"}
    # The phone's slip, through Django and through the ASGI fast path alike: 409 paused.
    assert_error(game.players[0].client.post(game.round_url(1, "/slips"), slip, format="json"), 409, "paused")
    status, _, answer = asgi_post(game.round_url(1, "/slips"), slip, authorization=f"Bearer {game.players[1].token}")
    assert (status, answer["error"]["code"]) == (409, "paused")
    # A paper slip too; and the arbitrator's close, until the clock runs again.
    assert_error(arb.post(game.round_url(1, "/slips"), {**slip, "table": 1}, format="json"), 409, "paused")
    assert_error(arb.post(game.round_url(1, "/close"), {}, format="json"), 409, "paused")
    assert_error(arb.post(game.round_url(1, "/pause"), {"reason": "again"}, format="json"), 409, "paused")
    assert not Slip.objects.exists()

    resumed = expect(arb.post(game.round_url(1, "/resume"), {}, format="json"), 200)
    assert resumed["paused"] is False and resumed["time_left"] is None
    assert resumed["deadline"] > body["deadline"]
    assert_error(arb.post(game.round_url(1, "/resume"), {}, format="json"), 409, "not_paused")
    expect(game.players[0].client.post(game.round_url(1, "/slips"), slip, format="json"), 201)
    assert expect(arb.get(game.url("/live")), 200)["paused"] is False


def test_extend_adds_seconds_and_refuses_bad_input(api_game, settings):
    game = api_game(players=1, round_seconds=60)
    opened(game)
    arb = game.arbitrator
    before = expect(arb.get(game.url("/live")), 200)["deadline"]
    body = expect(arb.post(game.round_url(1, "/extend"), {"extra_seconds": 30, "reason": "noise in the hall"},
                           format="json"), 200)
    assert body["extended_seconds"] == 30 and body["deadline"] > before
    assert expect(arb.get(game.url("/live")), 200)["deadline"] == body["deadline"]
    for bad in ({"extra_seconds": 0, "reason": "x"}, {"extra_seconds": "30", "reason": "x"}, {"extra_seconds": 30},
                {"extra_seconds": settings.ARBITER_MAX_EXTEND_SECONDS + 1, "reason": "x"},
                {"extra_seconds": 5, "reason": " "}, {"seconds": 5, "reason": "x"}):
        assert_error(arb.post(game.round_url(1, "/extend"), bad, format="json"), 400)
    assert Round.objects.get(game_id=game.id, number=1).extended_seconds == 30
    assert_error(arb.post(game.round_url(2, "/extend"), {"extra_seconds": 5, "reason": "x"}, format="json"), 404)


def test_cancel_then_draw_again_under_the_same_number(api_game):
    game = api_game(players=2)
    opened(game)
    arb = game.arbitrator
    expect(game.players[0].client.post(game.round_url(1, "/slips"),
                                       {"word": "TARES", "ref": "H4", "score": 12, "key": "k"}, format="json"), 201)
    assert_error(arb.post(game.round_url(1, "/cancel"), {}, format="json"), 400)
    body = expect(arb.post(game.round_url(1, "/cancel"), {"reason": "the wrong rack was announced"},
                           format="json"), 200)
    assert (body["status"], body["cancel_reason"], body["next_number"]) == (
        "cancelled", "the wrong rack was announced", 1)
    assert body["bag_count"] == 100  # every letter back
    assert Slip.objects.filter(round__game_id=game.id).count() == 1  # kept, void
    assert_error(arb.post(game.round_url(1, "/cancel"), {"reason": "again"}, format="json"), 404)
    redrawn = expect(arb.post(game.url("/rounds"), {}, format="json"), 201)
    assert redrawn["number"] == 1
    state = expect(arb.get(game.url()), 200)
    assert state["round"] == 1 and state["round_status"] == "drawn"


def test_rack_fix_replaces_a_mistyped_rack_before_the_start(api_game):
    game = api_game(players=1)
    arb = game.arbitrator
    expect(arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    body = expect(arb.post(game.round_url(1, "/rack"), {"rack": "EIRSTSA", "reason": "a S typed as a blank"},
                           format="json"), 200)
    assert sorted(body["rack"]) == sorted("EIRSTSA")
    assert body["incidents"][-1]["before"] == "AEIRST?" and body["incidents"][-1]["after"] == body["rack"]
    assert expect(arb.get(game.url()), 200)["bag_count"] == 93
    error = assert_error(arb.post(game.round_url(1, "/rack"), {"rack": "EIRSTZZ", "reason": "x"}, format="json"),
                         409, "not_in_bag")
    assert "rack" in error["fields"]
    assert_error(arb.post(game.round_url(1, "/rack"), {"rack": "eirst", "reason": "x"}, format="json"), 400)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    assert_error(arb.post(game.round_url(1, "/rack"), {"rack": "EIRST?A", "reason": "x"}, format="json"),
                 409, "round_not_drawn")


def test_roles_the_head_runs_the_game_assistants_enter_slips(api_game, staff):
    game = api_game(players=2)
    head = game.arbitrator
    assistant = staff("assistant1")
    outsider = staff("outsider1")
    # The game's creator is its head; an arbitrator with no role in it neither reads its roles nor names
    # themself.
    assert expect(head.get(game.url("/arbitrators")), 200) == {
        "arbitrators": [{"user": head.user.username, "role": "head"}], "you": "head"}
    assert_error(outsider.get(game.url("/arbitrators")), 403, "not_game_arbitrator")
    assert_error(outsider.post(game.url("/arbitrators"), {"user": "outsider1", "role": "head"}, format="json"),
                 403, "head_only")

    listed = expect(head.post(game.url("/arbitrators"), {"user": "assistant1", "role": "assistant"},
                              format="json"), 200)
    assert listed == {"arbitrators": [{"user": head.user.username, "role": "head"},
                                      {"user": "assistant1", "role": "assistant"}], "you": "head"}
    assert LogEntry.objects.filter(game_id=game.id, action="arbitrator_role").count() == 1
    assert expect(assistant.get(game.url("/arbitrators")), 200)["you"] == "assistant"
    # An arbitrator with no role in the game does not read its roles either.
    assert_error(outsider.get(game.url("/arbitrators")), 403, "not_game_arbitrator")

    # The clock, the racks, incidents and roles are the head's.
    assert_error(assistant.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 403, "head_only")
    opened(game)
    for path, body in (("/start", {}), ("/close", {}), ("/pause", {"reason": "x"}),
                       ("/extend", {"extra_seconds": 5, "reason": "x"}), ("/cancel", {"reason": "x"})):
        assert_error(assistant.post(game.round_url(1, path), body, format="json"), 403, "head_only")
    assert_error(assistant.post(game.url("/arbitrators"), {"user": "assistant1", "role": "head"}, format="json"),
                 403, "head_only")
    assert_error(assistant.post(game.url("/end"), {}, format="json"), 403, "head_only")
    # Assistants enter and correct slips; an arbitrator without a role in the game does nothing.
    slip = expect(assistant.post(game.round_url(1, "/slips"), {"table": 1, "word": "TARES", "ref": "H4",
                                                               "score": 12}, format="json"), 201)
    assert slip["entered_by"] == "assistant1"
    assert_error(outsider.post(game.round_url(1, "/slips"), {"table": 2, "word": "TARES", "ref": "H4"},
                               format="json"), 403, "forbidden")
    expect(head.post(game.round_url(1, "/close"), {}, format="json"), 200)
    expect(assistant.post(game.round_url(1, f"/slips/{slip['id']}/correct"), {"score": 13, "reason": "misread"},
                          format="json"), 200)
    assert_error(outsider.post(game.round_url(1, f"/slips/{slip['id']}/correct"),
                               {"score": 14, "reason": "x"}, format="json"), 403, "not_game_arbitrator")
    assert_error(assistant.post(game.round_url(1, "/master"), {"word": "TARES", "ref": "H4"}, format="json"),
                 403, "head_only")

    # The last head stays; unknown users and roles are refused; none takes a role away.
    assert_error(head.post(game.url("/arbitrators"), {"user": head.user.username, "role": "assistant"},
                           format="json"), 409, "last_head")
    assert_error(head.post(game.url("/arbitrators"), {"user": "nobody", "role": "assistant"}, format="json"),
                 404, "unknown_arbitrator")
    assert_error(head.post(game.url("/arbitrators"), {"user": "assistant1", "role": "boss"}, format="json"), 400)
    expect(head.post(game.url("/arbitrators"), {"user": "assistant1", "role": "head"}, format="json"), 200)
    listed = expect(head.post(game.url("/arbitrators"), {"user": head.user.username, "role": "none"},
                              format="json"), 200)
    assert listed == {"arbitrators": [{"user": "assistant1", "role": "head"}], "you": None}
    assert list(GameArbitrator.objects.filter(game_id=game.id).values_list("user__username", "role")) == [
        ("assistant1", "head")]
    assert_error(head.post(game.url("/rounds"), {}, format="json"), 403, "head_only")
    expect(assistant.post(game.url("/rounds"), {}, format="json"), 201)
