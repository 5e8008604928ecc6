"""Who is head: the creator of a tournament or a game, through the console and the API, with no roles page
visited; nobody names themselves to a role in a game that has a head; the head or a superuser grants roles,
logged. A tournament made before creators were heads gets its creator as head; one with no creator known
stays every arbitrator's until a role is recorded."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps
from django.urls import reverse
from rest_framework.test import APIClient

from tournaments import services
from tournaments.demo import DEMO_USERNAME, create_demo
from tournaments.errors import Forbidden
from tournaments.models import Game, GameArbitrator, LogEntry, Round, Tournament
from tournaments.security import issue_api_token


def _staff(django_user_model, name: str, **extra):
    return django_user_model.objects.create_user(username=name, password="heads-pass-1", is_staff=True, **extra)


def _console(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_api_token(user)[0]}")
    return client


def _roles(game: Game) -> dict[str, str]:
    return {row.user.username: row.role for row in GameArbitrator.objects.filter(game=game).select_related("user")}


TOURNAMENT = {"name": "Club night", "lexicon": "TWL06", "tileset": "english", "ruleset": "fisf",
              "round_seconds": 120, "coordinates": "rows-letters"}


def test_a_club_with_one_account_runs_its_night_without_a_roles_page(db, django_user_model, isolated_cache):
    """One arbitrator's account, not a superuser: the tournament and the game it creates at the console are
    its own (head), and it runs the round with its incidents as before; another staff account has no role in
    them and cannot name itself head (the issue: the creator then got 403 on their own paused round)."""
    ann = _staff(django_user_model, "club-arbitrator")
    intruder = _staff(django_user_model, "club-visitor")
    console = _console(ann)
    assert console.post(reverse("console-tournament-create"), TOURNAMENT).status_code == 302
    tournament = Tournament.objects.get()
    assert console.post(reverse("console-game-create", args=[tournament.pk]), {"seed": "7"}).status_code == 302
    game = Game.objects.get(tournament=tournament)
    assert _roles(game) == {"club-arbitrator": "head"}
    assert not LogEntry.objects.filter(game=game).exists()  # a new game's log is empty: it can still be deleted

    other = _console(intruder)
    before = (_roles(game), LogEntry.objects.count())
    crowned = other.post(reverse("console-arbitrator-set", args=[game.pk]), {"user": "club-visitor", "role": "head"})
    assert crowned.status_code in (302, 403)
    assert other.post(reverse("console-game-create", args=[tournament.pk]), {"seed": "8"}).status_code == 403
    assert (_roles(game), LogEntry.objects.count()) == before and Game.objects.count() == 1

    assert console.post(reverse("console-player-register", args=[game.pk]), {"name": "Bob", "table": "1"}).status_code == 302
    assert console.post(reverse("console-draw", args=[game.pk])).status_code == 302
    assert console.post(reverse("console-round-start", args=[game.pk, 1])).status_code == 302
    assert console.post(reverse("console-round-pause", args=[game.pk, 1]), {"reason": "noise"}).status_code == 302
    assert Round.objects.get(game=game, number=1).paused_at is not None
    assert console.post(reverse("console-round-resume", args=[game.pk, 1])).status_code == 302
    assert Round.objects.get(game=game, number=1).paused_at is None
    assert LogEntry.objects.filter(game=game, action__in=["round_pause", "round_resume"], actor=ann).count() == 2


def test_the_api_records_the_creator_as_head_and_refuses_self_naming(db, django_user_model, isolated_cache):
    creator = _staff(django_user_model, "api-creator")
    other = _staff(django_user_model, "api-other")
    made = _api(creator).post("/api/tournaments", {"name": "By the API"}, format="json")
    assert made.status_code == 201, made.content
    tournament_id = made.json()["id"]
    assert _api(other).post(f"/api/tournaments/{tournament_id}/games", {"seed": 3}, format="json").status_code == 403
    game_made = _api(creator).post(f"/api/tournaments/{tournament_id}/games", {"seed": 3}, format="json")
    assert game_made.status_code == 201, game_made.content
    game = Game.objects.get(pk=game_made.json()["id"])
    assert _roles(game) == {"api-creator": "head"}
    named = _api(other).post(f"/api/games/{game.pk}/arbitrators", {"user": "api-other", "role": "head"}, format="json")
    assert named.status_code == 403 and named.json()["error"]["code"] == "head_only"
    assert _roles(game) == {"api-creator": "head"} and not LogEntry.objects.filter(game=game).exists()


def test_the_head_or_a_superuser_grants_roles_and_each_grant_is_logged(db, django_user_model, make_tournament):
    head = _staff(django_user_model, "grant-head")
    helper = _staff(django_user_model, "grant-helper")
    second = _staff(django_user_model, "grant-second")
    admin = _staff(django_user_model, "grant-admin", is_superuser=True)
    tournament = make_tournament(name="Grants", created_by=head)
    game = services.game_create(tournament=tournament, seed=1, actor=head)
    services.arbitrator_set(game=game, username="grant-helper", role="assistant", actor=head)
    with pytest.raises(Forbidden):  # an assistant names themself head
        services.arbitrator_set(game=game, username="grant-helper", role="head", actor=helper)
    with pytest.raises(Forbidden):  # a staff user with no role names themself
        services.arbitrator_set(game=game, username="grant-second", role="assistant", actor=second)
    services.arbitrator_set(game=game, username="grant-second", role="head", actor=admin)
    assert _roles(game) == {"grant-head": "head", "grant-helper": "assistant", "grant-second": "head"}
    grants = LogEntry.objects.filter(game=game, action="arbitrator_role").order_by("seq")
    assert [(entry.actor.username, entry.after["user"], entry.after["role"]) for entry in grants] == [
        ("grant-head", "grant-helper", "assistant"), ("grant-admin", "grant-second", "head")]


def test_a_game_made_by_the_server_has_the_tournaments_creator_as_head(db, django_user_model):
    """``rundemo``: the demo game, created by the command, is its arbitrator's."""
    create_demo()
    game = Game.objects.get(tournament__name="Demo tournament")
    assert _roles(game) == {DEMO_USERNAME: "head"}


def test_older_tournaments_get_their_creator_as_head_and_headless_ones_stay_open(db, django_user_model,
                                                                                make_tournament):
    """The migration: a tournament with a creator (an active arbitrator) and no role recorded gets its creator
    as head of each game; one with no creator keeps every arbitrator as head until a role is recorded."""
    creator = _staff(django_user_model, "old-creator")
    other = _staff(django_user_model, "old-other")
    kept = make_tournament(name="Kept creator", created_by=creator)
    nobody = make_tournament(name="No creator")
    games = [services.game_create(tournament=kept, seed=n) for n in (1, 2)] + [
        services.game_create(tournament=nobody, seed=3)]
    GameArbitrator.objects.all().delete()  # as before creators were heads
    import_module("tournaments.migrations.0028_creator_is_head").creator_is_head(apps, None)
    assert [_roles(game) for game in games] == [{"old-creator": "head"}, {"old-creator": "head"}, {}]
    assert services.role_of(games[0].pk, other) is None
    assert services.role_of(games[2].pk, other) == "head"  # a club night with nobody known: as before
    services.arbitrator_set(game=games[2], username="old-other", role="head", actor=other)
    assert services.role_of(games[2].pk, creator) is None
