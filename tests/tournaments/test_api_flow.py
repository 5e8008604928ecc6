"""The contract's paths one by one: status codes and the fields of each answer."""

from __future__ import annotations

from datetime import datetime

import pytest
from rest_framework.test import APIClient

from tournaments.models import Player, Result, Round, Slip

from .api_support import assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def test_tournament_game_and_player_creation(api_game):
    game = api_game(players=2, lexicon="TWL06", round_seconds=120, coordinates="rows-numbers")
    state = expect(game.arbitrator.get(game.url()), 200)
    assert state["id"] == game.id
    assert state["status"] == "ready"
    assert state["round"] is None
    assert state["board"] == ["." * 15] * 15
    assert state["bag_count"] == 100
    assert state["coordinates"] == "rows-numbers"
    assert len(game.join_code) >= 4
    for seat in game.players:
        assert seat.token and len(seat.token) >= 20
        me = expect(seat.client.get(game.url("/me")), 200)
        assert (me["id"], me["name"], me["table"], me["slip"]) == (seat.id, seat.name, seat.table, None)


def test_create_answers_carry_the_contract_fields(arbitrator_client):
    body = {"name": "Open de Paris", "lexicon": "SOWPODS", "tileset": "french", "ruleset": "classic",
            "round_seconds": 150, "coordinates": "rows-letters"}
    t = expect(arbitrator_client.post("/api/tournaments", body, format="json"), 201)
    assert {k: t[k] for k in body} == body and isinstance(t["id"], int)
    g = expect(arbitrator_client.post(f"/api/tournaments/{t['id']}/games", {}, format="json"), 201)
    assert {"id", "join_code"} <= set(g) and g["tournament"] == t["id"]
    p = expect(arbitrator_client.post(f"/api/games/{g['id']}/players", {"name": "Ana"}, format="json"), 201)
    assert {"id", "name", "table", "token"} <= set(p) and (p["name"], p["table"]) == ("Ana", None)
    assert Player.objects.get(pk=p["id"]).token_hash != p["token"]  # only a hash of the token is stored


def test_join_with_the_code_gives_a_working_token(api_game):
    game = api_game(players=0)
    joined = expect(APIClient().post("/api/join", {"join_code": game.join_code.lower(), "name": "Zoé"},
                                     format="json"), 201)
    assert {"id", "game", "token"} <= set(joined) and joined["game"] == game.id
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {joined['token']}")
    assert expect(client.get(game.url("/me")), 200)["name"] == "Zoé"
    assert_error(APIClient().post("/api/join", {"join_code": "NOPE99", "name": "X"}, format="json"), 404)


def test_a_round_from_draw_to_results(api_game):
    game = api_game(players=2)
    a, b = game.players
    arb = game.arbitrator

    drawn = expect(arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    assert {"number", "rack", "kept", "drawn", "rejected", "status"} <= set(drawn)
    assert (drawn["number"], drawn["status"], drawn["rejected"]) == (1, "drawn", [])
    assert sorted(drawn["rack"]) == sorted("EIRST?A") and drawn["rack"].endswith("?")
    # A second draw while this round is in play: 409.
    assert_error(arb.post(game.url("/rounds"), {}, format="json"), 409, "round_open")
    # No slip before the start.
    assert_error(a.client.post(game.round_url(1, "/slips"), {"word": "TARES", "ref": "H4", "score": 1,
                                                             "key": "k"}, format="json"), 409)

    started = expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    assert started["status"] == "open"
    deadline = datetime.fromisoformat(started["deadline"].replace("Z", "+00:00"))
    assert deadline.tzinfo is not None
    live = expect(APIClient().get(game.url("/live")), 200)
    assert {"version", "status", "round", "round_status", "deadline", "server_time"} <= set(live)
    assert (live["round"], live["round_status"]) == (1, "open")

    slip = expect(a.client.post(game.round_url(1, "/slips"),
                                {"word": "TARES", "ref": "h 4", "score": 12, "key": "a-1"}, format="json"), 201)
    assert {"id", "received_at"} <= set(slip)
    assert (slip["word"], slip["ref"], slip["score"], slip["player"]) == ("TARES", "H4", 12, a.id)
    progress = expect(arb.get(game.url("/progress")), 200)
    assert (progress["received"], progress["players"]) == (1, 2)
    assert progress["missing"] == [{"id": b.id, "name": b.name, "table": b.table}]
    assert "word" not in str(progress) and "TARES" not in str(progress)

    # Before the close a player sees their own slip and nothing of the others or of the tops.
    own = expect(a.client.get(game.round_url(1)), 200)
    assert own["slip"]["id"] == slip["id"] and own["tops"] is None and own["results"] is None
    other = expect(b.client.get(game.round_url(1)), 200)
    assert other["slip"] is None and "TARES" not in str(other)
    assert expect(a.client.get(game.url("/me")), 200)["slip"]["id"] == slip["id"]

    closed = expect(arb.post(game.round_url(1, "/close"), {}, format="json"), 200)
    assert (closed["status"], closed["closed"]) == ("closed", True)
    again = expect(arb.post(game.round_url(1, "/close"), {}, format="json"), 200)
    assert again["closed"] is False
    detail = expect(b.client.get(game.round_url(1)), 200)
    assert {"number", "status", "rack", "deadline", "top_score", "tops", "master", "results"} <= set(detail)
    assert detail["top_score"] == 64 and len(detail["tops"]) > 1
    assert set(detail["master"]) >= {"word", "ref", "score"} and detail["master"]["score"] == 64
    rows = {row["player"]: row for row in detail["results"]}
    for row in rows.values():
        assert {"player", "name", "word", "ref", "claimed", "paid", "outcome", "reason"} <= set(row)
    assert (rows[b.id]["outcome"], rows[b.id]["reason"], rows[b.id]["paid"]) == ("zero", "no_slip", 0)
    assert rows[a.id]["word"] == "TARES" and rows[a.id]["claimed"] == 12

    standings = expect(APIClient().get(game.url("/standings")), 200)
    assert [set(row) >= {"rank", "player", "name", "table", "total", "diff", "percent", "tops", "solos",
                         "warnings", "penalties"} for row in standings] == [True, True]
    assert standings[0]["player"] == a.id and standings[0]["total"] == rows[a.id]["paid"]
    tournament = expect(APIClient().get(f"/api/tournaments/{game.tournament_id}/standings"), 200)
    assert [row["player"] for row in tournament] == [row["player"] for row in standings]


def test_slip_replay_and_replacement(api_game):
    game = api_game(players=1)
    (a,) = game.players
    game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json")
    game.arbitrator.post(game.round_url(1, "/start"), {}, format="json")
    url = game.round_url(1, "/slips")
    first = expect(a.client.post(url, {"word": "TARES", "ref": "H4", "score": 12, "key": "k1"}, format="json"), 201)
    same = expect(a.client.post(url, {"word": "TARES", "ref": "H4", "score": 12, "key": "k1"}, format="json"), 200)
    assert same == {**first, "replayed": True}
    assert Slip.objects.count() == 1
    newer = expect(a.client.post(url, {"word": "STARE", "ref": "H8", "score": 6, "key": "k2"}, format="json"), 201)
    assert newer["id"] != first["id"]
    assert list(Slip.objects.filter(current=True).values_list("word", flat=True)) == ["STARE"]


def test_slip_after_the_deadline_is_refused(api_game):
    game = api_game(players=1)
    (a,) = game.players
    game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json")
    game.arbitrator.post(game.round_url(1, "/start"), {}, format="json")
    round = Round.objects.get(game_id=game.id, number=1)
    # The clock has run out but the close has not run yet: the server's time decides.
    Round.objects.filter(pk=round.pk).update(deadline=round.started_at)
    response = a.client.post(game.round_url(1, "/slips"), {"word": "TARES", "ref": "H4", "score": 12, "key": "late"},
                             format="json")
    assert_error(response, 409, "round_closed")
    assert Slip.objects.count() == 0


def test_arbitrator_enters_a_paper_slip_by_table(api_game):
    game = api_game(players=2)
    a, b = game.players
    arb = game.arbitrator
    arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json")
    arb.post(game.round_url(1, "/start"), {}, format="json")
    url = game.round_url(1, "/slips")
    slip = expect(arb.post(url, {"word": "TARES", "ref": "H4", "score": 12, "table": b.table}, format="json"), 201)
    assert slip["player"] == b.id and slip["entered_by"] == arb.user.username
    by_id = expect(arb.post(url, {"word": "STARE", "ref": "H8", "score": 6, "player": a.id, "key": "p1"},
                            format="json"), 201)
    assert by_id["player"] == a.id
    assert Slip.objects.get(pk=by_id["id"]).entered_by == arb.user
    assert_error(arb.post(url, {"word": "STARE", "ref": "H8", "score": 6}, format="json"), 400, "player_required")
    assert_error(arb.post(url, {"word": "STARE", "ref": "H8", "score": 6, "table": 99}, format="json"), 404)


def test_master_choice_and_correction(api_game):
    game = api_game(players=1)
    (a,) = game.players
    arb = game.arbitrator
    arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json")
    arb.post(game.round_url(1, "/start"), {}, format="json")
    slip = expect(a.client.post(game.round_url(1, "/slips"), {"word": "TARES", "ref": "H4", "score": 99, "key": "k"},
                                format="json"), 201)
    # Not before the close.
    assert_error(arb.post(game.round_url(1, "/master"), {"word": "TARES", "ref": "H4"}, format="json"), 409)
    arb.post(game.round_url(1, "/close"), {}, format="json")
    detail = expect(arb.get(game.round_url(1)), 200)
    other = next(t for t in detail["tops"] if (t["word"], t["ref"]) != (detail["master"]["word"],
                                                                       detail["master"]["ref"]))
    chosen = expect(arb.post(game.round_url(1, "/master"), {"word": other["word"], "ref": other["ref"].lower()},
                             format="json"), 200)
    assert (chosen["master"]["word"], chosen["master"]["ref"]) == (other["word"], other["ref"])
    assert_error(arb.post(game.round_url(1, "/master"), {"word": "TARES", "ref": "H4"}, format="json"), 409,
                 "not_a_top")
    before = Result.objects.get(player_id=a.id)
    assert (before.outcome, before.reason) == ("warning", "wrong_score")
    fixed = expect(arb.post(game.round_url(1, f"/slips/{slip['id']}/correct"),
                            {"score": before.paid, "reason": "score misread"}, format="json"), 200)
    row = fixed["results"][0]
    assert (row["outcome"], row["paid"], row["claimed"]) == ("ok", before.paid, before.paid)
    assert_error(arb.post(game.round_url(1, f"/slips/{slip['id']}/correct"), {"score": 3}, format="json"), 400,
                 "invalid")


def test_draw_after_the_game_is_over(api_game):
    game = api_game(players=1)
    expect(game.arbitrator.post(game.url("/end"), {}, format="json"), 200)
    assert_error(game.arbitrator.post(game.url("/rounds"), {}, format="json"), 409, "game_over")


def test_references_follow_the_tournament_labelling(api_game):
    game = api_game(players=1, coordinates="rows-numbers")
    (a,) = game.players
    arb = game.arbitrator
    arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json")
    arb.post(game.round_url(1, "/start"), {}, format="json")
    url = game.round_url(1, "/slips")
    slip = expect(a.client.post(url, {"word": "TARES", "ref": " 8d ", "score": 12, "key": "k"}, format="json"), 201)
    assert slip["ref"] == "8D"
    assert_error(a.client.post(url, {"word": "TARES", "ref": "H16", "score": 12, "key": "k2"}, format="json"),
                 400, "bad_ref")
    arb.post(game.round_url(1, "/close"), {}, format="json")
    detail = expect(arb.get(game.round_url(1)), 200)
    assert all(top["ref"][0].isdigit() for top in detail["tops"])  # horizontal: the row's number first
    row = detail["results"][0]
    # 8D in rows-numbers is row 8 from column D: TARES across the centre, 12 with the double letter on D8.
    assert (row["ref"], row["outcome"], row["paid"]) == ("8D", "ok", 12)
