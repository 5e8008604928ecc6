"""One rule for paper slips, whoever types them: the API (an arbitrator's token) and the console both go
through services.slip_enter_paper (the player by id or table, a shared table refused, a second slip asked)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments import services
from tournaments.models import LogEntry, Result, Slip

pytestmark = pytest.mark.django_db


@pytest.fixture
def hall(make_game, make_player, arbitrator_client, client, arbitrator, isolated_cache):
    game = make_game(round_seconds=600)
    ada, _ = make_player(game, name="Ada", table=1)
    bob, _ = make_player(game, name="Bob", table=2)
    round_ = services.round_start(round=services.round_draw(game=game, rack="AEINRST"))
    client.force_login(arbitrator)
    return game, round_, ada, bob, arbitrator_client, client


def _api(hall, **slip):
    game, round_, *_, api, __ = hall
    return api.post(f"/api/games/{game.pk}/rounds/{round_.number}/slips", slip, format="json")


def _console(hall, **slip):
    game, round_, *_, console = hall
    body = {"round": round_.number, "ref": "", "score": "", "key": "", **slip}
    return console.post(reverse("console-slip-enter", args=[game.pk]), body, HTTP_ACCEPT="application/json",
                        HTTP_ACCEPT_LANGUAGE="en")


def test_a_table_where_two_players_sit_is_refused_by_the_api_as_by_the_console(hall, make_player):
    game = hall[0]
    make_player(game, name="Twin", table=1)
    by_api = _api(hall, table=1, word="RETAINS", ref="H4")
    by_console = _console(hall, table=1, word="RETAINS")
    assert (by_api.status_code, by_api.json()["error"]["code"]) == (409, "shared_table")
    assert (by_console.status_code, by_console.json()["error"]["code"]) == (409, "shared_table")
    assert by_api.json()["error"]["fields"] == {"table": ["shared"]}
    assert not Slip.objects.exists()


def test_an_empty_table_is_404_unknown_table_on_both(hall):
    assert _api(hall, table=9, word="RETAINS").json()["error"]["code"] == "unknown_table"
    answer = _console(hall, table=9, word="RETAINS")
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "unknown_table")
    assert answer.json()["error"]["message"] == "no player at table 9 in this game"


def test_paper_slips_without_a_key_get_one_of_one_form_on_both(hall):
    assert _api(hall, table=1, word="RETAINS", ref="H4").status_code == 201
    assert _console(hall, table=2, word="RETAINS", ref="H4").status_code == 201
    keys = list(Slip.objects.values_list("key", flat=True))
    assert len(keys) == 2 and all(key.startswith("paper:") and len(key) == 38 for key in keys)


def test_a_different_second_paper_slip_is_asked_about_and_paid_0_when_it_is_one(hall):
    game, round_, ada, *_ = hall
    assert _api(hall, table=1, word="RETAINS", ref="H4", key="first").status_code == 201
    asked = _api(hall, table=1, word="NASTIER", ref="H4", key="second", choice="")
    assert asked.status_code == 400  # the choice, when sent, is replace or second
    second = _api(hall, table=1, word="NASTIER", ref="H4", key="second", choice="second")
    assert second.status_code == 201
    held = Slip.objects.get(round=round_, player=ada, current=True)
    assert held.word == "NASTIER" and held.several
    entry = LogEntry.objects.filter(game=game, slip=held).latest("id")
    assert entry.reason == "second slip: paid 0"
    services.round_close(round=round_)
    assert Result.objects.get(round=round_, player=ada).reason == "several_slips"


def test_the_console_asks_and_the_api_without_a_choice_replaces_as_before(hall):
    _, round_, ada, *_ = hall
    assert _console(hall, table=1, word="RETAINS", ref="H4", key="console:a").status_code == 201
    asked = _console(hall, table=1, word="NASTIER", ref="H4", key="console:b")
    assert (asked.status_code, asked.json()["error"]["code"]) == (409, "second_slip")
    assert "RETAINS H4" in asked.json()["error"]["message"]
    replaced = _api(hall, table=1, word="NASTIER", ref="H4", key="api-b")
    assert replaced.status_code == 201
    held = Slip.objects.get(round=round_, player=ada, current=True)
    assert (held.word, held.several) == ("NASTIER", False)


def test_a_paper_slip_typed_after_the_close_gets_the_same_fate_through_the_api_and_the_console(hall):
    """Handed in before the end call, typed after the close: judged at once and logged with the same reason,
    whichever door it comes through (services.slip_enter_paper); a second one for the player is refused."""
    from tournaments.reasons import PAPER_AFTER_CLOSE

    game, round_, ada, bob, *_ = hall
    services.round_close(round=round_)
    by_api = _api(hall, table=1, word="RETAINS", ref="H4", score=66)
    by_console = _console(hall, table=2, word="RETAINS", ref="H4", score="66")
    assert (by_api.status_code, by_console.status_code) == (201, 201), (by_api.json(), by_console.json())
    results = {player: Result.objects.get(round=round_, player=player) for player in (ada, bob)}
    assert results[ada].slip.word == results[bob].slip.word == "RETAINS"
    assert (results[ada].paid, results[ada].outcome) == (results[bob].paid, results[bob].outcome)
    assert results[ada].paid > 0
    entries = LogEntry.objects.filter(game=game, round=round_, action="slip_add").order_by("id")
    assert [(entry.player_id, entry.reason) for entry in entries] == [
        (ada.pk, PAPER_AFTER_CLOSE), (bob.pk, PAPER_AFTER_CLOSE)]
    again_api = _api(hall, table=1, word="NASTIER", ref="H4")
    again_console = _console(hall, table=2, word="NASTIER", ref="H4")
    assert (again_api.status_code, again_api.json()["error"]["code"]) == (409, "slip_exists")
    assert (again_console.status_code, again_console.json()["error"]["code"]) == (409, "slip_exists")
    assert Slip.objects.filter(round=round_, current=True).count() == 2
