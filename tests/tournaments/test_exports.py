"""Exports: the standings as CSV, the federation's Latin-1 results file, and the game record as JSON played
back into a fresh tournament to the same standings."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tournaments import selectors
from tournaments.errors import ServiceError
from tournaments.exports import export_record, restore_record, results_file, standings_csv, to_latin1
from tournaments.models import Game, LogEntry, Round, Tournament

from .sheets_support import ANNA, JEAN, LUKASZ, PAUL, ZOE, play_game

COMPARED = ("rank", "name", "table", "series", "total", "diff", "percent", "tops", "solos", "warnings", "penalties")


def _comparable(rows: list[dict]) -> list[tuple]:
    return sorted(tuple(row[key] for key in COMPARED) for row in rows)


# --------------------------------------------------------------------------------------------------
# Latin-1


@pytest.mark.parametrize(
    ("name", "latin1"),
    [
        ("Zoé Lefèvre", "Zoé Lefèvre"),
        ("Łukasz Żmuda", "Lukasz Zmuda"),
        ("Ødegård Straße", "Ødegård Straße"),
        ("Čapek Dvořák", "Capek Dvorák"),
        ("Nguyễn Ánh", "Nguyên Ánh"),
        ("Œuvre “quoted” – dash", 'OEuvre "quoted" - dash'),
        ("Анна", "Anna"),
    ],
)
def test_names_are_transliterated_to_latin1(name, latin1):
    assert to_latin1(name) == latin1
    to_latin1(name).encode("latin-1")


def test_results_file_quotes_every_field_and_doubles_quotes():
    rows = [{"table": 3, "name": 'Jean "Le Roi" Dupont', "total": 812}, {"table": None, "name": "Łukasz", "total": 7}]
    assert results_file(rows) == b'"3","Jean ""Le Roi"" Dupont","812"\r\n"","Lukasz","7"\r\n'


# --------------------------------------------------------------------------------------------------
# From a played game

pytestmark = pytest.mark.django_db


def test_standings_csv_carries_the_standings(played_game):
    rows = selectors.game_standings(game=played_game.game)
    parsed = list(csv.DictReader(io.StringIO(standings_csv(rows))))
    assert [line["name"] for line in parsed] == [row["name"] for row in rows]
    for line, row in zip(parsed, rows, strict=True):
        assert int(line["rank"]) == row["rank"] and int(line["total"]) == row["total"]
        assert int(line["diff"]) == row["diff"] and float(line["percent"]) == pytest.approx(row["percent"])
        assert int(line["tops"]) == row["tops"] and int(line["warnings"]) == row["warnings"]
        assert line["table"] == ("" if row["table"] is None else str(row["table"]))


def test_exports_over_http(played_game, arbitrator_client):
    game = played_game.game
    rows = selectors.game_standings(game=game)
    response = arbitrator_client.get(f"/api/games/{game.pk}/exports/standings.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    assert ZOE in response.content.decode("utf-8")

    response = arbitrator_client.get(f"/api/games/{game.pk}/exports/results.txt")
    assert response.status_code == 200 and response["Content-Type"] == "text/plain; charset=iso-8859-1"
    lines = response.content.decode("latin-1").split("\r\n")
    assert lines[-1] == "" and len(lines) - 1 == len(rows) == 5
    expected = {
        ZOE: '"1","Zoé Lefèvre"',
        LUKASZ: '"2","Lukasz Zmuda"',
        JEAN: '"3","Jean ""Le Roi"" Dupont"',
        ANNA: '"","Anna Petrova"',
        PAUL: '"5","Paul Martin"',
    }
    for line, row in zip(lines, rows, strict=False):
        assert line == f'{expected[row["name"]]},"{row["total"]}"'

    response = arbitrator_client.get(f"/api/games/{game.pk}/exports/record.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert json.loads(response.content)["players"][0]["name"] == ZOE


@pytest.mark.parametrize("path", ["exports/standings.csv", "exports/results.txt", "exports/record.json"])
def test_exports_are_for_arbitrators_only(played_game, api_client, player_client, path):
    url = f"/api/games/{played_game.game.pk}/{path}"
    assert api_client.get(url).status_code == 401
    forbidden = player_client(played_game.tokens[ZOE]).get(url)
    assert forbidden.status_code == 403 and "code" in forbidden.json()["error"]


def test_the_record_holds_every_round_slip_and_correction(played_game):
    record = json.loads(json.dumps(export_record(played_game.game)))
    assert [player["name"] for player in record["players"]] == [ZOE, LUKASZ, JEAN, ANNA, PAUL]
    assert [player["arrival_round"] for player in record["players"]] == [0, 0, 0, 0, 1]
    rounds = record["rounds"]
    assert len(rounds) == 4 and rounds[0]["rack"] == "AEINRST" and rounds[0]["typed"]
    assert not rounds[1]["typed"]
    assert [r["master"] for r in rounds] == [
        {"word": m["word"], "ref": m["ref"], "score": m["score"]} for m in played_game.masters
    ]
    correction = rounds[1]["corrections"][0]
    assert correction["reason"] == "score misread from the paper slip"
    assert correction["player"] == played_game.players[LUKASZ].pk
    assert len(rounds[1]["slips"]) == 4  # Anna handed nothing in
    assert record["game"]["status"] == "over"


def test_record_restores_into_a_fresh_tournament_with_the_same_standings(played_game, arbitrator):
    original = played_game.game
    record = json.loads(json.dumps(export_record(original)))
    restored = restore_record(record=record, actor=arbitrator)
    assert restored.tournament_id != original.tournament_id
    assert restored.tournament.name == original.tournament.name
    assert restored.status == Game.Status.OVER
    assert _comparable(selectors.game_standings(game=restored)) == _comparable(
        selectors.game_standings(game=original)
    )
    assert restored.board == original.board
    again = export_record(restored)
    for before, after in zip(record["rounds"], again["rounds"], strict=True):
        assert (before["rack"], before["rejected"], before["master"]) == (after["rack"], after["rejected"], after["master"])
    assert LogEntry.objects.filter(game=restored, action="slip_correct", reason="score misread from the paper slip").exists()


def test_a_record_whose_random_draws_no_longer_replay_is_restored_with_typed_racks(played_game, arbitrator):
    record = export_record(played_game.game)
    record["game"]["seed"] += 1  # the draws from this seed give other racks: each rack is typed instead
    del record["seal"]  # an edited record: its seal no longer matches (an unsigned one is played back)
    restored = restore_record(record=record, actor=arbitrator)
    assert list(restored.rounds.order_by("number").values_list("rack", flat=True)) == [
        r["rack"] for r in record["rounds"]
    ]
    assert restored.rounds.filter(typed=True).count() == len(record["rounds"])
    assert _comparable(selectors.game_standings(game=restored)) == _comparable(
        selectors.game_standings(game=played_game.game)
    )


def test_the_master_picked_by_the_arbitrator_is_picked_again(played_game, arbitrator):
    first = played_game.game.rounds.get(number=1)
    assert first.master != first.tops[0] or len(first.tops) > 1
    restored = restore_record(record=export_record(played_game.game), actor=arbitrator)
    again = restored.rounds.get(number=1)
    assert (again.master["word"], again.master["ref"]) == (first.master["word"], first.master["ref"])
    assert LogEntry.objects.filter(game=restored, action="master_change").count() == 1


def test_restore_over_http_into_an_existing_tournament(played_game, arbitrator_client, make_tournament):
    record = export_record(played_game.game)
    target = make_tournament(name="Restored", solo_min_players=3)
    response = arbitrator_client.post(f"/api/tournaments/{target.pk}/imports/record", record, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    game = Game.objects.get(pk=body["game"])
    assert game.tournament_id == target.pk and body["players"] == 5 and body["rounds"] == 4
    assert _comparable(selectors.game_standings(game=game)) == _comparable(
        selectors.game_standings(game=played_game.game)
    )


def test_restore_refuses_a_tournament_that_judges_differently(played_game, arbitrator_client, make_tournament):
    record = export_record(played_game.game)
    target = make_tournament(name="Other rules", ruleset="classic")
    response = arbitrator_client.post(f"/api/tournaments/{target.pk}/imports/record", record, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "settings_mismatch" and "ruleset" in error["fields"]
    assert not Game.objects.filter(tournament=target).exists()


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(format="something else"),
        lambda r: r.update(version=99),
        lambda r: r.pop("rounds"),
        lambda r: r["rounds"][1]["slips"][0].update(player=424242),
        lambda r: r["rounds"][1].update(slips="ANESTRI"),
        lambda r: r["rounds"][0].update(started_at="yesterday at noon"),
        lambda r: r["players"][0].pop("name"),
    ],
)
def test_restore_refuses_a_malformed_record(played_game, arbitrator_client, change):
    record = export_record(played_game.game)
    change(record)
    del record["seal"]  # what is refused here is the content, not the seal it no longer matches
    before = Tournament.objects.count(), Game.objects.count()
    response = arbitrator_client.post(
        f"/api/tournaments/{played_game.game.tournament_id}/imports/record", record, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_record"
    assert (Tournament.objects.count(), Game.objects.count()) == before


def test_a_refused_step_leaves_nothing_behind(played_game, arbitrator):
    record = export_record(played_game.game)
    record["rounds"][2]["rack"] = "QQQQQQQ"
    record["rounds"][2]["typed"] = True
    del record["seal"]
    before = Tournament.objects.count(), Game.objects.count(), Round.objects.count()
    with pytest.raises(ServiceError) as refused:
        restore_record(record=record, actor=arbitrator)
    assert refused.value.code == "not_in_bag"
    assert (Tournament.objects.count(), Game.objects.count(), Round.objects.count()) == before


def test_import_is_for_arbitrators_only(played_game, api_client, player_client):
    url = f"/api/tournaments/{played_game.game.tournament_id}/imports/record"
    assert api_client.post(url, {}, format="json").status_code == 401
    assert player_client(played_game.tokens[ZOE]).post(url, {}, format="json").status_code == 403


def test_a_later_game_restored_into_the_same_tournament_keeps_its_players(sheets_tournament, arbitrator):
    first = play_game(sheets_tournament, arbitrator, seed=3, rounds=2)
    second = play_game(sheets_tournament, arbitrator, seed=4, rounds=2)
    copy = restore_record(record=export_record(first.game), actor=arbitrator)
    restore_record(record=export_record(second.game), tournament=copy.tournament, actor=arbitrator)
    assert copy.tournament.players.count() == sheets_tournament.players.count()
    assert _comparable(selectors.tournament_standings(tournament=copy.tournament)) == _comparable(
        selectors.tournament_standings(tournament=sheets_tournament)
    )
