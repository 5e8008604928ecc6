"""A mixed room: phones and paper slips in one game.

Players who join by phone get a table (the one they ask for when free, else the next free one); the
arbitrator may seat them elsewhere. Paper slips are typed with ``?`` before a blank's letter, case never
making a blank, and the page lists every slip typed with its verdict. While paper slips of the last closed
round are still being entered its standings are provisional on every body, until the arbitrator marks the
round's slips complete.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments import selectors, services
from tournaments.errors import Conflict, Forbidden, ServiceError
from tournaments.live import snapshot as live_snapshot
from tournaments.models import GameArbitrator, LogEntry, Player, Result, Round, Slip

from .api_support import assert_error, bearer_client, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

RACK = "AEINRST"


def open_round(game, rack=RACK):
    return services.round_start(round=services.round_draw(game=game, rack=rack))


def top_of(round) -> dict:
    services.round_compute_tops(round=round)
    round.refresh_from_db()
    return round.tops[0]


def enter(console, game, round_number=1, **fields):
    data = {"round": str(round_number), **{k: str(v) for k, v in fields.items()}}
    return console.post(reverse("console-slip-enter", args=[game.pk]), data, HTTP_ACCEPT="application/json",
                        HTTP_ACCEPT_LANGUAGE="en")


# --------------------------------------------------------------------------------------------------
# Tables for players who join by phone


def test_phones_get_the_next_free_table_or_the_one_they_ask_for(game, make_player, api_client):
    make_player(game, name="Paper", table=4)
    first, _ = services.player_join(join_code=game.join_code, name="Ada")
    second, _ = services.player_join(join_code=game.join_code.lower(), name="Ben")
    chosen, _ = services.player_join(join_code=game.join_code, name="Chloé", table=2)
    after, _ = services.player_join(join_code=game.join_code, name="Dan")
    assert [p.table for p in (first, second, chosen, after)] == [5, 6, 2, 7]
    assert all(p.joined_by_phone for p in (first, second, chosen, after))
    assert not Player.objects.get(name="Paper").joined_by_phone

    # By the API: an optional table, a taken one refused with its code, and nothing written.
    body = expect(api_client.post("/api/join", {"join_code": game.join_code, "name": "Eve", "table": 12},
                                  format="json"), 201)
    assert body["table"] == 12
    count = Player.objects.count()
    error = assert_error(api_client.post("/api/join", {"join_code": game.join_code, "name": "Fay", "table": 12},
                                         format="json"), 409, "table_taken")
    assert error["fields"] == {"table": ["taken"]}
    assert_error(api_client.post("/api/join", {"join_code": game.join_code, "name": "Gus", "table": 0},
                                 format="json"), 400)
    assert Player.objects.count() == count
    body = expect(api_client.post("/api/join", {"join_code": game.join_code, "name": "Hal"}, format="json"), 201)
    assert body["table"] == 13 and Player.objects.get(pk=body["id"]).joined_by_phone


def test_tables_are_of_the_tournament_and_the_arbitrator_registers_as_before(make_game, make_player):
    game = make_game()
    later = services.game_create(tournament=game.tournament, seed=2)
    services.player_join(join_code=game.join_code, name="Ada")
    joined, _ = services.player_join(join_code=later.join_code, name="Ben")
    assert joined.table == 2  # table 1 is taken in the tournament's first game
    with pytest.raises(Conflict) as taken:
        services.player_join(join_code=later.join_code, name="Chloé", table=1)
    assert (taken.value.code, taken.value.params) == ("table_taken", {"table": 1})
    registered, _ = make_player(game, name="Dan")  # the arbitrator's registration: no table unless given
    assert registered.table is None and not registered.joined_by_phone


def test_the_arbitrator_changes_a_table_logged_and_a_taken_one_refused(game, make_player, console, arbitrator):
    ada, _ = make_player(game, name="Ada", table=1)
    ben, _ = services.player_join(join_code=game.join_code, name="Ben")
    moved = services.player_table_change(game=game, player=ben, table=9, actor=arbitrator)
    assert moved.table == 9
    entry = LogEntry.objects.get(action="player_table")
    assert (entry.before, entry.after, entry.actor, entry.player) == ({"table": 2}, {"table": 9}, arbitrator, ben)
    with pytest.raises(Conflict) as taken:
        services.player_table_change(game=game, player=ben, table=1, actor=arbitrator)
    assert taken.value.params == {"table": 1, "name": "Ada"}
    with pytest.raises(ServiceError) as bad:
        services.player_table_change(game=game, player=ben, table=0, actor=arbitrator)
    assert bad.value.code == "bad_table"
    ben.refresh_from_db()
    assert ben.table == 9 and LogEntry.objects.filter(action="player_table").count() == 1

    # From the player's page in the console, in French.
    url = reverse("console-player-table", args=[game.pk, ben.pk])
    page = console.post(url, {"table": "1"}, HTTP_ACCEPT_LANGUAGE="fr", follow=True)
    assert "Ada occupe déjà la table 1" in page.content.decode()
    page = console.post(url, {"table": "3"}, HTTP_ACCEPT_LANGUAGE="fr", follow=True)
    assert "Ben est maintenant à la table 3." in page.content.decode()
    ben.refresh_from_db()
    assert ben.table == 3
    sheet = console.get(reverse("console-player", args=[game.pk, ben.pk])).content.decode()
    assert 'id="id_player_table"' in sheet and 'value="3"' in sheet


# --------------------------------------------------------------------------------------------------
# Paper slips: blanks marked with ?, verdicts listed


def test_case_never_makes_a_blank_on_the_console_and_a_question_mark_does(game, make_player, console):
    ada, _ = make_player(game, name="Ada", table=1)
    ben, _ = make_player(game, name="Ben", table=2)
    round = open_round(game, rack="AEINRS?")
    assert enter(console, game, table=1, word="retains", ref="h8", score=66).status_code == 201
    assert enter(console, game, table=2, word="RE?TAINS", ref="H8", score=66).status_code == 201
    held = {s.player_id: s.word for s in Slip.objects.filter(round=round, current=True)}
    assert held == {ada.pk: "RETAINS", ben.pk: "REtAINS"}
    refused = enter(console, game, table=1, word="RETAINS?", ref="H8")
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "bad_blank_mark" and "word" in error["fields"]
    assert "? marks the one letter after it" in error["message"]
    assert Slip.objects.filter(round=round).count() == 2
    # The API keeps its own convention: lowercase is a blank there.
    services.slip_enter_paper(round=round, table=1, word="REtAINS", ref="H8", score=66, actor=console.user,
                              choice=None)
    assert Slip.objects.get(round=round, player=ada, current=True).word == "REtAINS"


def test_each_slip_typed_is_listed_newest_first_with_its_verdict_after_the_close(game, make_player, console):
    ada, _ = make_player(game, name="Ada", table=1)
    ben, _ = make_player(game, name="Ben", table=2)
    chloe, _ = make_player(game, name="Chloé", table=3)
    round = open_round(game)
    top = top_of(round)
    first = enter(console, game, table=1, word=top["word"], ref=top["ref"], score=top["score"]).json()
    assert first["entry"]["paid"] is None and first["entry"]["name"] == "Ada"
    enter(console, game, table=2, word="ZZZ", ref="H8", score=10)
    state = console.get(reverse("console-slips-entered", args=[game.pk])).json()
    assert [row["name"] for row in state["rows"]] == ["Ben", "Ada"]
    assert state["status"] == "open" and state["rack"] == RACK and state["tables"] == {
        "1": "Ada", "2": "Ben", "3": "Chloé"}

    services.round_close(round=round)
    state = console.get(reverse("console-slips-entered", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="en").json()
    results = {r.player_id: r for r in Result.objects.filter(round=round)}
    for row, player in zip(state["rows"], (ben, ada), strict=True):
        result = results[player.pk]
        assert (row["paid"], row["outcome"], row["reason"]) == (result.paid, result.outcome, result.reason)
        assert row["reason_text"] and row["outcome_text"]
    assert state["rows"][1]["paid"] == top["score"] and state["rows"][0]["outcome"] == "zero"

    # Typed after the close: judged at once, the verdict in the answer.
    late = enter(console, game, table=3, word=top["word"], ref=top["ref"], score=top["score"] + 1)
    assert late.status_code == 201
    entry = late.json()["entry"]
    result = Result.objects.get(round=round, player=chloe)
    assert (entry["paid"], entry["outcome"], entry["reason"]) == (result.paid, result.outcome, result.reason)
    assert entry["outcome"] == "warning" and entry["reason"] == "wrong_score"
    state = console.get(reverse("console-slips-entered", args=[game.pk])).json()
    assert [row["name"] for row in state["rows"]] == ["Chloé", "Ben", "Ada"]


# --------------------------------------------------------------------------------------------------
# Provisional standings in a mixed room


def _close_with_phone_and_paper(game, make_player):
    paper, _ = make_player(game, name="Paper", table=1)
    phone, token = services.player_join(join_code=game.join_code, name="Phone")
    round = open_round(game)
    top = top_of(round)
    services.slip_submit(round=round, player=phone, word=top["word"], ref=top["ref"], score=top["score"], key="p")
    services.round_close(round=round)
    round.refresh_from_db()
    return round, paper, phone, token


def test_a_mixed_game_is_provisional_until_the_slips_are_marked_complete(game, make_player, arbitrator_client,
                                                                         arbitrator,
                                                                         django_capture_on_commit_callbacks):
    round, paper, phone, token = _close_with_phone_and_paper(game, make_player)
    assert round.slips_complete is False
    assert selectors.standings_provisional(game)
    rows = expect(arbitrator_client.get(f"/api/games/{game.pk}/standings"), 200)
    assert rows and all(row["provisional"] is True for row in rows)
    assert live_snapshot.game_snapshot(game.pk)["provisional"] is True
    me = expect(bearer_client(token).get(f"/api/games/{game.pk}/me"), 200)
    assert me["provisional"] is True and me["table"] == phone.table == 2
    # The top and the master are announced at the close all the same.
    snapshot = live_snapshot.game_snapshot(game.pk)
    assert snapshot["last"]["master"] and snapshot["last"]["top_score"] == round.top_score

    with django_capture_on_commit_callbacks(execute=True):  # the game's version moves when the mark commits
        done = expect(arbitrator_client.post(f"/api/games/{game.pk}/rounds/1/complete", {}, format="json"), 200)
    assert done == {"number": 1, "status": "closed", "slips_complete": True, "provisional": False}
    assert not selectors.standings_provisional(game)
    assert all(row["provisional"] is False for row in expect(arbitrator_client.get(
        f"/api/games/{game.pk}/standings"), 200))
    assert live_snapshot.game_snapshot(game.pk)["provisional"] is False
    assert expect(bearer_client(token).get(f"/api/games/{game.pk}/me"), 200)["provisional"] is False
    entry = LogEntry.objects.get(action="slips_complete")
    assert (entry.round_id, entry.actor, entry.after) == (round.pk, arbitrator, {"slips_complete": True})
    # Again: nothing changes, nothing more in the log.
    expect(arbitrator_client.post(f"/api/games/{game.pk}/rounds/1/complete", {}, format="json"), 200)
    assert LogEntry.objects.filter(action="slips_complete").count() == 1


def test_a_phone_only_game_finishes_its_rounds_on_its_own(game):
    ada, _ = services.player_join(join_code=game.join_code, name="Ada")
    round = open_round(game)
    top = top_of(round)
    services.slip_submit(round=round, player=ada, word=top["word"], ref=top["ref"], score=top["score"], key="a")
    services.round_close(round=round)
    round.refresh_from_db()
    assert round.slips_complete is True
    assert not selectors.standings_provisional(game)
    assert live_snapshot.game_snapshot(game.pk)["provisional"] is False


def test_marking_complete_is_refused_clearly_and_changes_nothing(game, make_player, arbitrator_client,
                                                                 django_user_model, arbitrator, player_client):
    services.player_join(join_code=game.join_code, name="Phone")
    make_player(game, name="Paper", table=1)
    open_round(game)
    assert_error(arbitrator_client.post(f"/api/games/{game.pk}/rounds/1/complete", {}, format="json"), 409,
                 "round_not_closed")
    assert_error(arbitrator_client.post(f"/api/games/{game.pk}/rounds/9/complete", {}, format="json"), 404)
    round = Round.objects.get(game=game, number=1)
    services.round_close(round=round)
    round.refresh_from_db()
    assert not round.slips_complete

    # With roles recorded, only the game's head or assistant marks it.
    other = django_user_model.objects.create_user(username="visitor", password="x-pw-1", is_staff=True)
    GameArbitrator.objects.create(game=game, user=arbitrator, role="assistant")
    with pytest.raises(Forbidden) as refused:
        services.round_slips_complete(round=round, actor=other)
    assert refused.value.code == "not_game_arbitrator"
    round.refresh_from_db()
    assert not round.slips_complete and not LogEntry.objects.filter(action="slips_complete").exists()
    # A player's token is no arbitrator's.
    _, token = services.player_join(join_code=game.join_code, name="Late")
    assert_error(player_client(token).post(f"/api/games/{game.pk}/rounds/1/complete", {}, format="json"), 403)
    services.round_slips_complete(round=round, actor=arbitrator)  # the assistant may
    round.refresh_from_db()
    assert round.slips_complete


def test_the_console_marks_the_slips_complete_and_shows_provisional_meanwhile(game, make_player, console):
    round, *_ = _close_with_phone_and_paper(game, make_player)
    standings = console.get(reverse("console-standings", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr")
    assert standings.context["paper_provisional"] and 'id="paper-provisional"' in standings.content.decode()
    page = console.get(reverse("console-slips", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Tous les bulletins papier du coup 1 sont saisis" in page
    answer = console.post(reverse("console-slips-complete", args=[game.pk, 1]),
                          {"next": reverse("console-slips", args=[game.pk])}, HTTP_ACCEPT_LANGUAGE="fr", follow=True)
    assert answer.redirect_chain[-1][0] == reverse("console-slips", args=[game.pk])
    assert "le classement est définitif" in answer.content.decode()
    round.refresh_from_db()
    assert round.slips_complete
    standings = console.get(reverse("console-standings", args=[game.pk]))
    assert not standings.context["paper_provisional"]
