"""Tournaments edited, games deleted or archived (services/lifecycle.py), through the API and the console.

A game never started (its log empty) is deleted, and the server's log says so; a game with a log is archived
instead: gone from the home page (the phones' list of games in play), still reached by the console, its
sheets and exports, and brought back. A tournament's settings change until one of its games starts, its
name only after.
"""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import Game, LogEntry, Tournament

pytestmark = pytest.mark.django_db


def _home_lists(client, name: str) -> bool:
    page = client.get("/").content.decode()
    return name in page


def _tournament(arbitrator_client, **fields) -> dict:
    body = {"name": "Ten-second test", "round_seconds": 10, **fields}
    answer = arbitrator_client.post("/api/tournaments", body, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def _game(arbitrator_client, tournament_id: int) -> dict:
    answer = arbitrator_client.post(f"/api/tournaments/{tournament_id}/games", {"seed": 3}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


# ---- deleting ----------------------------------------------------------------------------------------------


def test_a_game_never_started_is_deleted_by_the_api_and_the_server_log_says_so(arbitrator_client, client, caplog):
    tournament = _tournament(arbitrator_client)
    game = _game(arbitrator_client, tournament["id"])
    assert _home_lists(client, "Ten-second test")

    with caplog.at_level(logging.INFO, logger="tournaments.services.lifecycle"):
        answer = arbitrator_client.delete(f"/api/games/{game['id']}")
    assert answer.status_code == 204, answer.content
    assert not Game.objects.filter(pk=game["id"]).exists()
    assert not _home_lists(client, "Ten-second test")
    [record] = [r for r in caplog.records if r.name == "tournaments.services.lifecycle"]
    assert "game_delete" in record.getMessage() and arbitrator_client.user.username in record.getMessage()
    assert arbitrator_client.get(f"/api/games/{game['id']}").status_code == 404


def test_a_game_with_a_log_is_not_deleted_but_archived(arbitrator_client, make_player):
    tournament = _tournament(arbitrator_client)
    game = _game(arbitrator_client, tournament["id"])
    make_player(Game.objects.get(pk=game["id"]), name="Early bird")  # a log entry: player_register
    log_before = list(LogEntry.objects.filter(game_id=game["id"]).values_list("pk", flat=True))

    answer = arbitrator_client.delete(f"/api/games/{game['id']}")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "game_has_log"
    assert "archive it instead" in answer.json()["error"]["message"]
    assert Game.objects.filter(pk=game["id"]).exists()
    assert list(LogEntry.objects.filter(game_id=game["id"]).values_list("pk", flat=True)) == log_before

    refused = arbitrator_client.delete(f"/api/tournaments/{tournament['id']}")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "game_has_log"
    assert Tournament.objects.filter(pk=tournament["id"]).exists()


def test_a_tournament_whose_games_never_started_is_deleted_with_them(arbitrator_client, caplog):
    tournament = _tournament(arbitrator_client)
    games = [_game(arbitrator_client, tournament["id"]) for _ in range(2)]
    with caplog.at_level(logging.INFO, logger="tournaments.services.lifecycle"):
        answer = arbitrator_client.delete(f"/api/tournaments/{tournament['id']}")
    assert answer.status_code == 204, answer.content
    assert not Tournament.objects.filter(pk=tournament["id"]).exists()
    assert not Game.objects.filter(pk__in=[g["id"] for g in games]).exists()
    assert any("tournament_delete" in r.getMessage() for r in caplog.records)


def test_the_console_asks_before_deleting_a_game(console, make_tournament):
    tournament = make_tournament(name="Mistake", created_by=console.user)
    game = services.game_create(tournament=tournament, seed=1, actor=console.user)
    page = console.get(reverse("console-tournament", args=[tournament.pk])).content.decode()
    delete_url = reverse("console-game-delete", args=[game.pk])
    assert delete_url in page

    asked = console.get(delete_url)
    assert asked.status_code == 200
    assert 'id="delete-confirm"' in asked.content.decode()
    assert Game.objects.filter(pk=game.pk).exists(), "asking deletes nothing"

    done = console.post(delete_url)
    assert done.status_code == 302 and done["Location"] == reverse("console-tournament", args=[tournament.pk])
    assert not Game.objects.filter(pk=game.pk).exists()


def test_an_assistant_deletes_nothing(make_tournament, django_user_model, arbitrator_client):
    head = arbitrator_client.user
    assistant = django_user_model.objects.create_user(username="helper", password="x-secret-1", is_staff=True)
    tournament = make_tournament(name="Roles", created_by=head)
    game = services.game_create(tournament=tournament, seed=1, actor=head)
    services.arbitrator_set(game=game, username=head.username, role="head", actor=head)
    services.arbitrator_set(game=game, username="helper", role="assistant", actor=head)
    with pytest.raises(ServiceError) as refused:
        services.game_archive(game=game, archived=True, actor=assistant)
    assert refused.value.code == "head_only"
    assert Game.objects.get(pk=game.pk).archived_at is None


# ---- archiving ---------------------------------------------------------------------------------------------


def test_an_archived_game_leaves_the_home_page_and_stays_with_the_console_its_sheets_and_exports(
        played_game, arbitrator, client, console):
    game = played_game.game
    Game.objects.filter(pk=game.pk).update(status=Game.Status.PLAYING)  # still listed as in play
    name = game.tournament.name
    assert _home_lists(client, name)
    console.force_login(arbitrator)

    answer = console.post(reverse("console-game-archive", args=[game.pk]), {"archived": "1"})
    assert answer.status_code == 302
    game.refresh_from_db()
    assert game.archived_at is not None
    assert not _home_lists(client, name)
    assert LogEntry.objects.filter(game=game, action="game_archive").count() == 1

    tournament_page = console.get(reverse("console-tournament", args=[game.tournament_id])).content.decode()
    assert reverse("console-game", args=[game.pk]) in tournament_page and "archived" in tournament_page
    assert console.get(reverse("console-game", args=[game.pk])).status_code == 200
    assert console.get(reverse("export-record", args=[game.pk])).status_code == 200
    assert console.get(f"/api/games/{game.pk}/sheets/standings.pdf").status_code == 200

    back = console.post(reverse("console-game-archive", args=[game.pk]), {"archived": "0"})
    assert back.status_code == 302
    assert _home_lists(client, name)
    assert LogEntry.objects.filter(game=game, action="game_unarchive").count() == 1


def test_the_api_archives_and_brings_back_but_not_during_a_round(api_game, client):
    game = api_game(players=2)
    arbitrator = game.arbitrator
    drawn = arbitrator.post(game.url("/rounds"), {}, format="json")
    assert drawn.status_code == 201, drawn.content
    refused = arbitrator.post(game.url("/archive"), {"archived": True}, format="json")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "round_open"
    assert Game.objects.get(pk=game.id).archived_at is None

    services.round_cancel(round=Game.objects.get(pk=game.id).rounds.get(number=1), reason="test", actor=None)
    archived = arbitrator.post(game.url("/archive"), {"archived": True}, format="json")
    assert archived.status_code == 200, archived.content
    assert archived.json()["archived"] is True and archived.json()["archived_at"]
    assert not _home_lists(client, "Club night")
    assert arbitrator.post(game.url("/archive"), {"archived": "yes"}, format="json").status_code == 400
    back = arbitrator.post(game.url("/archive"), {"archived": False}, format="json")
    assert back.json() == {"id": game.id, "archived": False, "archived_at": None}
    assert _home_lists(client, "Club night")


# ---- editing -----------------------------------------------------------------------------------------------


def test_every_setting_changes_before_the_first_rack_and_the_name_only_after(api_game):
    game = api_game(players=2)
    arbitrator = game.arbitrator
    url = f"/api/tournaments/{game.tournament_id}"
    changed = arbitrator.patch(url, {"round_seconds": 150, "language": "fr", "coordinates": "rows-numbers"},
                               format="json")
    assert changed.status_code == 200, changed.content
    assert (changed.json()["round_seconds"], changed.json()["language"], changed.json()["coordinates"]) == (
        150, "fr", "rows-numbers")
    assert arbitrator.patch(url, {"round_seconds": 0}, format="json").status_code == 400

    assert arbitrator.post(game.url("/rounds"), {}, format="json").status_code == 201
    frozen = arbitrator.patch(url, {"round_seconds": 60, "name": "Renamed"}, format="json")
    assert frozen.status_code == 409
    assert frozen.json()["error"]["code"] == "tournament_started"
    tournament = Tournament.objects.get(pk=game.tournament_id)
    assert (tournament.round_seconds, tournament.name) == (150, "Club night"), "a refused change changes nothing"

    renamed = arbitrator.patch(url, {"name": "Club night (Tuesday)"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Club night (Tuesday)"
    entry = LogEntry.objects.filter(game_id=game.id, action="tournament_update").last()
    assert entry.before == {"name": "Club night"} and entry.after == {"name": "Club night (Tuesday)"}


def test_the_console_edits_a_tournament_and_offers_its_name_only_once_started(console, make_tournament):
    tournament = make_tournament(name="Typo nite", round_seconds=10, created_by=console.user)
    game = services.game_create(tournament=tournament, seed=1, actor=console.user)
    edit = reverse("console-tournament-edit", args=[tournament.pk])
    form = console.get(edit).content.decode()
    assert 'name="round_seconds"' in form and 'value="Typo nite"' in form

    saved = console.post(edit, {"name": "Typo night", "lexicon": "TWL06", "tileset": "english", "ruleset": "fisf",
                                "round_seconds": "180", "coordinates": "rows-letters", "language": "en"})
    assert saved.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.name, tournament.round_seconds) == ("Typo night", 180)

    services.round_draw(game=game, actor=console.user)
    form = console.get(edit).content.decode()
    assert 'name="round_seconds"' not in form and 'id="tournament-started"' in form
    assert console.post(edit, {"name": "Typo night, game 1"}).status_code == 302
    tournament.refresh_from_db()
    assert (tournament.name, tournament.round_seconds) == ("Typo night, game 1", 180)


def test_an_archived_game_takes_no_new_player_by_its_join_code(api_game, client):
    """An archived game is off the phones' list; its join code, still on a printed sheet, joins nobody either."""
    game = api_game(players=1)
    assert game.arbitrator.post(game.url("/archive"), {"archived": True}, format="json").status_code == 200
    players = Game.objects.get(pk=game.id).tournament.players.count()
    refused = client.post("/api/join", {"join_code": game.join_code, "name": "Late Lou"},
                          content_type="application/json")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "game_archived"
    assert Game.objects.get(pk=game.id).tournament.players.count() == players
    game.arbitrator.post(game.url("/archive"), {"archived": False}, format="json")
    joined = client.post("/api/join", {"join_code": game.join_code, "name": "Late Lou"},
                         content_type="application/json")
    assert joined.status_code == 201, joined.content
