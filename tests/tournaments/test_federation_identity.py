"""A player's federation identity (licence, club, series, age category, date of birth): stored and checked
through the API and the console, the category derived from the date of birth at its bounds, and the standings'
CSV export carrying them (tournaments/federation.py, tournaments/data/federation.toml)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import translation

from tournaments.federation import category_for, federation, reference_date
from tournaments.models import Player
from tournaments.refusals import refusal_text

from .api_support import assert_error, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

IDENTITY = {"name": "Ève Martin", "licence": "123456", "club": "Vichy Scrabble Club", "series": "S3",
            "category": "", "birth_date": "1950-06-30"}


@pytest.fixture
def club(api_game):
    return api_game(players=0)


def test_the_api_stores_the_identity_and_derives_the_category(club, settings):
    settings.ARBITER_FEDERATION_REFERENCE_DATE = "2027-01-01"
    body = expect(club.arbitrator.post(club.url("/players"), IDENTITY, format="json"), 201)
    # Series S3 is stored by its code; born 1950-06-30, 76 on 2027-01-01: Diamant (72 and over).
    assert (body["licence"], body["club"], body["series"], body["category"], body["birth_date"]) == (
        "123456", "Vichy Scrabble Club", "3", "Diamant", "1950-06-30")
    player = Player.objects.get(pk=body["id"])
    assert (player.licence, player.club, player.series, player.category, player.birth_date) == (
        "123456", "Vichy Scrabble Club", "3", "Diamant", dt.date(1950, 6, 30))


def test_a_category_given_is_kept_as_given(club):
    body = expect(club.arbitrator.post(club.url("/players"), {**IDENTITY, "category": "vermeil"}, format="json"), 201)
    assert body["category"] == "Vermeil"


def test_every_field_is_optional(club):
    body = expect(club.arbitrator.post(club.url("/players"), {"name": "Ann"}, format="json"), 201)
    assert (body["licence"], body["club"], body["series"], body["category"], body["birth_date"]) == (
        "", "", "", "", None)


@pytest.mark.parametrize(("field", "value", "code"), [
    ("series", "S9", "bad_series"),
    ("series", "A 2", "bad_series"),
    ("category", "Ancien", "bad_category"),
    ("licence", "12 34/5", "bad_licence"),
    ("birth_date", "30/02/1950", "bad_birth_date"),
    ("birth_date", "2999-01-01", "bad_birth_date"),
    ("birth_date", "1850-01-01", "bad_birth_date"),
])
def test_a_bad_field_is_refused_and_nothing_registered(club, field, value, code):
    error = assert_error(club.arbitrator.post(club.url("/players"), {**IDENTITY, field: value}, format="json"),
                         400, code)
    assert field in error["fields"]
    assert not Player.objects.filter(tournament_id=club.tournament_id).exists()


def test_a_licence_is_one_players_in_a_tournament(club):
    expect(club.arbitrator.post(club.url("/players"), IDENTITY, format="json"), 201)
    error = assert_error(club.arbitrator.post(club.url("/players"), {**IDENTITY, "name": "Other"}, format="json"),
                         409, "licence_taken")
    assert "Ève Martin" in error["message"]
    assert Player.objects.filter(tournament_id=club.tournament_id).count() == 1


def test_a_refusal_is_said_in_french():
    with translation.override("fr"):
        text = refusal_text("bad_series", {"series": "S9", "choices": "1, 2"})
    assert text.startswith("S9 n’est pas une série") or text.startswith("S9 n'est pas une série"), text


@pytest.mark.parametrize(("born", "category"), [
    ("2016-01-02", "Poussin"),  # 10 on 2027-01-01
    ("2016-01-01", "Benjamin"),  # 11 that very day
    ("1965-01-02", "Senior"),  # 61
    ("1965-01-01", "Vermeil"),  # 62
    ("1955-01-02", "Vermeil"),  # 71
    ("1955-01-01", "Diamant"),  # 72
])
def test_the_category_from_the_date_of_birth_at_its_bounds(settings, born, category):
    settings.ARBITER_FEDERATION_REFERENCE_DATE = "2027-01-01"
    assert category_for(dt.date.fromisoformat(born), dt.date(2026, 11, 25)) == category


def test_the_reference_date_is_the_seasons():
    # The season starts on 1 September: a game in November 2026 and one in March 2027 are of the same season,
    # whose ages are counted on 1 January 2027.
    assert reference_date(dt.date(2026, 11, 25)) == dt.date(2027, 1, 1)
    assert reference_date(dt.date(2027, 3, 1)) == dt.date(2027, 1, 1)
    assert reference_date(dt.date(2027, 9, 1)) == dt.date(2028, 1, 1)
    assert [code for code, _ in federation().categories][0] == "Poussin"
    assert [code for code, _ in federation().categories][-1] == "Diamant"


def test_the_console_registers_the_identity(console, make_game):
    game = make_game(created_by=console.user)
    from tournaments.models import GameArbitrator  # noqa: PLC0415

    if not GameArbitrator.objects.filter(game=game, user=console.user).exists():
        GameArbitrator.objects.create(game=game, user=console.user, role="head")
    response = console.post(reverse("console-player-register", args=[game.pk]), {
        "name": "Léa", "table": "", "licence": "998877", "club": "Nantes", "series": "2", "category": "",
        "birth_date": "2014-05-01"})
    assert response.status_code == 302, response.content.decode()[:2000]
    player = Player.objects.get(first_game=game)
    assert (player.licence, player.club, player.series, player.birth_date) == (
        "998877", "Nantes", "2", dt.date(2014, 5, 1))
    assert player.category in ("Poussin", "Benjamin")


def test_the_console_says_a_bad_series_and_registers_nobody(console, make_game):
    game = make_game(created_by=console.user)
    from tournaments.models import GameArbitrator  # noqa: PLC0415

    if not GameArbitrator.objects.filter(game=game, user=console.user).exists():
        GameArbitrator.objects.create(game=game, user=console.user, role="head")
    response = console.post(reverse("console-player-register", args=[game.pk]), {"name": "Léa", "series": "S8"},
                            HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 400
    assert not Player.objects.filter(first_game=game).exists()


def test_the_standings_csv_carries_the_identity(club):
    expect(club.arbitrator.post(club.url("/players"), {**IDENTITY, "table": 3}, format="json"), 201)
    response = club.arbitrator.get(f"/api/games/{club.id}/exports/standings.csv")
    assert response.status_code == 200, response.status_code
    text = b"".join(response.streaming_content).decode("utf-8-sig") if response.streaming else \
        response.content.decode("utf-8-sig")
    header, row = text.splitlines()[:2]
    for column in ("licence", "club", "category", "birth_date"):
        assert column in header
    assert "123456" in row and "Vichy Scrabble Club" in row and "1950-06-30" in row


def test_a_game_record_carries_the_identity_and_restores_it(club, arbitrator_client):
    expect(club.arbitrator.post(club.url("/players"), {**IDENTITY, "table": 3}, format="json"), 201)
    expect(club.arbitrator.post(club.url("/players"), {"name": "Bob", "table": 4}, format="json"), 201)
    record = expect(club.arbitrator.get(f"/api/games/{club.id}/exports/record.json"), 200)
    players = {entry["name"]: entry for entry in record["players"]}
    assert {key: players["Ève Martin"].get(key) for key in ("licence", "club", "series", "birth_date")} == {
        "licence": "123456", "club": "Vichy Scrabble Club", "series": "3", "birth_date": "1950-06-30"}
    assert "licence" not in players["Bob"]  # a player without an identity is recorded as before
    other = expect(arbitrator_client.post("/api/tournaments", {"name": "Restored"}, format="json"), 201)
    expect(arbitrator_client.post(f"/api/tournaments/{other['id']}/imports/record", record, format="json"), 201)
    restored = Player.objects.get(tournament_id=other["id"], name="Ève Martin")
    assert (restored.licence, restored.club, restored.series, restored.category, restored.birth_date) == (
        "123456", "Vichy Scrabble Club", "3", players["Ève Martin"]["category"], dt.date(1950, 6, 30))


def test_the_admin_lists_and_finds_players_by_licence(club, client, django_user_model):
    expect(club.arbitrator.post(club.url("/players"), IDENTITY, format="json"), 201)
    admin = django_user_model.objects.create_superuser(username="root", password="pw-root-1")
    client.force_login(admin)
    page = client.get("/admin/tournaments/player/", {"q": "123456"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Ève Martin" in text and "Vichy Scrabble Club" in text


def test_the_standings_every_phone_reads_carry_no_date_of_birth(club):
    """The API's standings (phones, projector) give the licence, club and category as the federation's rankings
    print them; the date of birth stays in the arbitrator's files (the CSV above, the game record)."""
    expect(club.arbitrator.post(club.url("/players"), {**IDENTITY, "table": 3}, format="json"), 201)
    body = expect(club.arbitrator.get(club.url("/standings")), 200)
    rows = body if isinstance(body, list) else body.get("standings", body.get("rows"))
    row = next(row for row in rows if row["name"] == IDENTITY["name"])
    assert (row["licence"], row["club"]) == (IDENTITY["licence"], IDENTITY["club"])
    assert "birth_date" not in row and "1950-06-30" not in str(body)
