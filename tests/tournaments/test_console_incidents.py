"""Incidents and roles at the console: the round screen's buttons, the head's and the assistants' rights."""

from __future__ import annotations

import pytest
from django.test import Client

from tournaments import services
from tournaments.models import Game, Round

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


@pytest.fixture
def head(arbitrator):
    client = Client()
    client.force_login(arbitrator)
    return client


@pytest.fixture
def assistant_user(django_user_model):
    return django_user_model.objects.create_user(username="assistant", password="pw", is_staff=True)


def page(client, game) -> str:
    return client.get(f"/console/games/{game.pk}/live/").content.decode()


def test_the_head_pauses_extends_resumes_fixes_and_cancels_from_the_round_screen(head, make_game, make_player):
    game = make_game(round_seconds=120)
    make_player(game, "Ann", table=1)
    drawn = services.round_draw(game=game, rack="EIRST?A")
    html = page(head, game)
    assert 'id="rack-fix-form"' in html and 'id="cancel-form"' in html and 'data-confirm=' in html
    assert 'id="pause-form"' not in html  # the clock has not started

    answer = head.post(f"/console/games/{game.pk}/rounds/1/rack/", {"rack": "eirst sa", "reason": "S typed as ?"})
    assert answer.status_code == 302
    assert sorted(Round.objects.get(pk=drawn.pk).rack) == sorted("EIRSTSA")
    services.round_start(round=drawn)
    html = page(head, game)
    assert 'id="pause-form"' in html and 'id="extend-form"' in html and 'data-key="p"' in html

    head.post(f"/console/games/{game.pk}/rounds/1/pause/", {"reason": "lights out"})
    paused = Round.objects.get(pk=drawn.pk)
    assert paused.paused_at is not None
    html = page(head, game)
    assert 'id="paused-clock"' in html and 'id="resume-form"' in html and 'id="close-button"' not in html
    assert "lights out" in html  # the round's incidents, listed
    # Closing a paused round is refused, with the reason said.
    answer = head.post(f"/console/games/{game.pk}/rounds/1/close/", follow=True)
    assert "paused" in answer.content.decode().lower()
    assert Round.objects.get(pk=drawn.pk).status == Round.Status.OPEN

    head.post(f"/console/games/{game.pk}/rounds/1/extend/", {"seconds": "20", "reason": "lost time"})
    assert Round.objects.get(pk=drawn.pk).extended_seconds == 20
    refused = head.post(f"/console/games/{game.pk}/rounds/1/extend/", {"seconds": "abc", "reason": "x"}, follow=True)
    assert refused.status_code == 200 and Round.objects.get(pk=drawn.pk).extended_seconds == 20
    head.post(f"/console/games/{game.pk}/rounds/1/resume/")
    assert Round.objects.get(pk=drawn.pk).paused_at is None

    head.post(f"/console/games/{game.pk}/rounds/1/cancel/", {"reason": "wrong rack announced"})
    assert Round.objects.get(pk=drawn.pk).status == Round.Status.CANCELLED
    html = page(head, game)
    assert 'id="round-cancelled"' in html and "wrong rack announced" in html


def test_an_assistant_enters_slips_but_runs_no_clock(head, arbitrator, assistant_user, make_game, make_player):
    game = make_game(round_seconds=120)
    make_player(game, "Ann", table=1)
    services.arbitrator_set(game=game, username="assistant", role="assistant", actor=arbitrator)
    rnd = services.round_draw(game=game, rack="EIRST?A")
    assistant = Client()
    assistant.force_login(assistant_user)
    html = page(assistant, game)
    assert 'id="start-button"' not in html and 'id="rack-fix-form"' not in html and 'id="cancel-form"' not in html
    assistant.post(f"/console/games/{game.pk}/rounds/1/start/")
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.DRAWN
    services.round_start(round=rnd)
    refused = assistant.post(f"/console/games/{game.pk}/rounds/1/pause/", {"reason": "x"},
                             HTTP_ACCEPT="application/json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "head_only"
    assert Round.objects.get(pk=rnd.pk).paused_at is None
    entered = assistant.post(f"/console/games/{game.pk}/slips/enter/",
                             {"round": 1, "table": 1, "word": "TARES", "ref": "H4", "score": 12, "key": "k1"},
                             HTTP_ACCEPT="application/json")
    assert entered.status_code == 201
    assistant.post(f"/console/games/{game.pk}/draw/")
    assert Game.objects.get(pk=game.pk).rounds.count() == 1

    # The roles page: the head names roles, an assistant only reads them.
    assert 'id="role-form"' in head.get(f"/console/games/{game.pk}/arbitrators/").content.decode()
    assert 'id="role-form"' not in assistant.get(f"/console/games/{game.pk}/arbitrators/").content.decode()
    head.post(f"/console/games/{game.pk}/arbitrators/set/", {"user": "assistant", "role": "head"})
    assert 'id="pause-form"' in page(assistant, game)
