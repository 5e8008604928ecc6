"""Names as hostile players type them: invisible, bidirectional and control characters never reach the
database, whitespace is collapsed, the name is in NFC, and a name with nothing visible left is refused in the
error shape. Through the API (register, join, new tournament) and the console's form."""

from __future__ import annotations

import unicodedata

import pytest

from tournaments.models import Player, Tournament
from tournaments.names import clean_name

from .api_support import assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

HOSTILE = [
    ("live\u202egpj.exe", "livegpj.exe"),  # right-to-left override: would display as "liveexe.jpg"
    ("\u202aAnn\u202c \u202bBo\u202c \u202dCy\u202e", "Ann Bo Cy"),  # embeddings and overrides
    ("\u2066Dee\u2069 \u2067Eve\u2069 \u2068Fay\u2069", "Dee Eve Fay"),  # isolates
    ("\u200eGus\u200f \u061cHal", "Gus Hal"),  # LRM, RLM, Arabic letter mark
    ("In\u200bgrid\ufeff \u00adIvo\u2060", "Ingrid Ivo"),  # zero-width space, BOM, soft hyphen, word joiner
    ("Jo\x07\x1b[31mhn\x7f\x85", "Jo[31mhn"),  # C0 and C1 controls (a terminal escape loses its ESC)
    ("  Kim \t\n\r Lee\u00a0\u2003Mo\u2028  ", "Kim Lee Mo"),  # any whitespace: one space between words
    ("\u3164Ned\u115f", "Ned"),  # Hangul fillers: letters that show nothing
    ("Zoe\u0301 Lefe\u0300vre", "Zoé Lefèvre"),  # decomposed accents: NFC
]


@pytest.fixture
def club(api_game):
    return api_game(players=0)


@pytest.mark.parametrize(("typed", "stored"), HOSTILE)
def test_a_name_registered_by_the_arbitrator_loses_its_invisible_characters(club, typed, stored):
    body = expect(club.arbitrator.post(club.url("/players"), {"name": typed, "table": 4}, format="json"), 201)
    assert body["name"] == stored
    player = Player.objects.get(pk=body["id"])
    assert player.name == stored and unicodedata.is_normalized("NFC", player.name)
    standings = expect(club.arbitrator.get(f"/api/tournaments/{club.tournament_id}/standings"), 200)
    assert [row["name"] for row in standings] == [stored]


@pytest.mark.parametrize(("typed", "stored"), HOSTILE)
def test_a_name_joined_with_the_code_loses_its_invisible_characters(club, api_client, typed, stored):
    body = expect(api_client.post("/api/join", {"join_code": club.join_code, "name": typed}, format="json"), 201)
    assert body["name"] == stored
    assert Player.objects.get(pk=body["id"]).name == stored


def test_the_joiners_a_script_needs_are_kept_between_letters(club, api_client):
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ inside a Persian word
    devanagari = "\u0915\u094d\u200d\u0937"  # ZWJ: the half form of a conjunct
    family = "\U0001f469\u200d\U0001f4bb"  # an emoji sequence
    for name in (persian, devanagari, family):
        body = expect(api_client.post("/api/join", {"join_code": club.join_code, "name": name}, format="json"), 201)
        assert body["name"] == name
    # A joiner that joins nothing (at an edge, or repeated) goes.
    body = expect(api_client.post("/api/join", {"join_code": club.join_code,
                                                "name": "\u200dOla\u200d\u200d\u200cf \u200cNils\u200d"},
                                  format="json"), 201)
    assert body["name"] == "Ola\u200df Nils"


@pytest.mark.parametrize("typed", ["\u202e", "\u200b\u200d\u2066\u2069", "\u3164 \u200e", "\x01\x7f"])
def test_a_name_with_nothing_visible_is_refused_in_the_error_shape(club, api_client, typed):
    before = Player.objects.count()
    error = assert_error(
        api_client.post("/api/join", {"join_code": club.join_code, "name": typed}, format="json"), 400, "name_required"
    )
    assert error["fields"] == {"name": ["no visible character"]}
    assert "visible" in error["message"]
    error = assert_error(club.arbitrator.post(club.url("/players"), {"name": typed}, format="json"), 400,
                         "name_required")
    assert "name" in error["fields"]
    assert Player.objects.count() == before


def test_a_null_character_is_refused_in_the_error_shape(club, api_client):
    error = assert_error(api_client.post("/api/join", {"join_code": club.join_code, "name": "Ann\x00"},
                                         format="json"), 400)
    assert "name" in error["fields"]
    assert not Player.objects.exists()


def test_a_series_loses_its_invisible_characters_too(club):
    # A series is one of the federation's list (tournaments/data/federation.toml): "S 2" read as series 2 once
    # its invisible characters are gone.
    body = expect(club.arbitrator.post(club.url("/players"), {"name": "Una", "series": "\u202eS\u200b 2"},
                                       format="json"), 201)
    assert body["series"] == "2"


def test_a_tournament_name_is_cleaned_the_same_way(arbitrator_client):
    body = expect(arbitrator_client.post("/api/tournaments", {"name": "Open\u202e de\t\tVichy\u200b"}, format="json"),
                  201)
    assert body["name"] == "Open de Vichy"
    assert Tournament.objects.get(pk=body["id"]).name == "Open de Vichy"
    error = assert_error(arbitrator_client.post("/api/tournaments", {"name": "\u2066\u2069"}, format="json"), 400,
                         "name_required")
    assert "name" in error["fields"]


def test_a_name_is_at_most_60_characters_at_the_console_as_through_the_api(club, client, arbitrator):
    client.force_login(arbitrator)
    url = f"/console/games/{club.id}/players/new/"
    client.post(url, {"name": "N" * 60, "table": 1})
    refused = client.post(url, {"name": "N" * 61, "table": 2})
    assert refused.status_code == 400
    assert list(Player.objects.filter(first_game_id=club.id).values_list("name", flat=True)) == ["N" * 60]
    assert_error(club.arbitrator.post(club.url("/players"), {"name": "N" * 61}, format="json"), 400)


def test_the_console_form_cleans_names_like_the_api(club, client, arbitrator):
    client.force_login(arbitrator)
    client.post(f"/console/games/{club.id}/players/new/", {"name": "live\u202egpj.exe", "table": 7})
    page = client.get(f"/console/games/{club.id}/players/").content.decode()
    assert "livegpj.exe" in page and "\u202e" not in page


@pytest.mark.parametrize(("typed", "stored"), HOSTILE)
def test_clean_name_alone(typed, stored):
    assert clean_name(typed) == stored
    assert clean_name(stored) == stored  # cleaning twice changes nothing
