"""Names that show nothing, or mislead: a name made only of combining marks has nothing visible (refused
like any invisible name), and a training result's name is cleaned like a player's (bidirectional overrides,
zero-width characters and controls removed), in its answer and on its shared page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tournaments import services, training_selectors
from tournaments.api.serializers import visible_name_pattern
from tournaments.models import Player, Round
from tournaments.names import clean_name

from .api_support import assert_error, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

ONLY_MARKS = ["\u0301\u0301\u0301", "\u0300 \u0308", "\ufe0f", "\u20dd\u20dd", "\u093f"]


@pytest.mark.parametrize("typed", ONLY_MARKS)
def test_a_name_made_only_of_combining_marks_is_refused(api_game, api_client, typed):
    club = api_game(players=0)
    assert clean_name(typed) == ""
    assert re.fullmatch(visible_name_pattern(), typed) is None  # the schema says so too
    error = assert_error(api_client.post("/api/join", {"join_code": club.join_code, "name": typed}, format="json"),
                         400, "name_required")
    assert error["fields"] == {"name": ["no visible character"]}
    assert_error(club.arbitrator.post(club.url("/players"), {"name": typed}, format="json"), 400, "name_required")
    assert not Player.objects.exists()


@pytest.mark.parametrize(("typed", "stored"), [
    ("\u0301Ann", "Ann"), ("Bo \u0308\u0308Cy", "Bo Cy"), ("Zoe\u0301", "Zoé"), ("\u0915\u093f", "\u0915\u093f"),
    ("\u200d\u0301Dee", "Dee"),
])
def test_a_mark_stays_on_its_letter_and_goes_where_it_has_none(typed, stored):
    assert clean_name(typed) == stored
    assert re.fullmatch(visible_name_pattern(), typed)
    assert clean_name(stored) == stored


TRAINEES = [("live\u202egpj.exe", "livegpj.exe"), ("\u2067Eve\u2069\u200b \u00adIvo\x07", "Eve Ivo"),
            ("  Kim\t\nLee ", "Kim Lee"), ("\u0301\u200b", ""), ("\u202e" + "x" * 38 + "\u200b", "x" * 38)]


@pytest.mark.parametrize(("typed", "shown"), TRAINEES)
def test_a_training_result_name_is_cleaned_like_a_players(played_game, typed, shown):
    game = services.training_set(game=played_game.game, value="everyone")
    client = Client()
    proofs = []
    for round in game.rounds.filter(status=Round.Status.CLOSED).order_by("number"):
        verdict = client.post(f"/games/{game.pk}/train/judge", {"round": round.number, "word": "", "ref": ""},
                              content_type="application/json")
        proofs.append(expect(verdict, 200)["proof"])
    body = expect(client.post(f"/games/{game.pk}/train/result", {"name": typed, "proofs": proofs},
                              content_type="application/json"), 200)
    assert body["name"] == shown
    page = client.get(body["url"]).content.decode()
    assert not re.search("[\u202a-\u202e\u2066-\u2069\u200b\u00ad\x07]", page)
    # A link signed with the name as typed (before names were cleaned here) shows it cleaned too.
    assert training_selectors.shown_result({"g": game.pk, "n": typed, "t": 0, "tt": 1, "rk": 1, "np": 1})["name"] == shown
