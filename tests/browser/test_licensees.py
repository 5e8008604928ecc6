"""The console's players page in real Chromium: a player registered with the federation's identity (the
details block under the form), then a centre's file of licensees uploaded: refused as a whole with its bad
rows listed, then accepted; the players' list shows licence, club and category."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .support import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-licensees-1"
SHOTS = Path(os.environ.get("LICENSEES_SHOTS", "")) if os.environ.get("LICENSEES_SHOTS") else None
GOOD = ("Licence;Nom;Prénom;Club;Série;Catégorie;Date de naissance\r\n"
        "123456;Dupré;Hélène;Vichy;S2;;14/03/1950\r\n"
        "234567;Lefèvre;Zoë;Nîmes;5;Junior;\r\n")
BAD = GOOD + "345678;Faux;Ami;Vichy;S9;;\r\n999;;;Vichy;;;2999-01-01\r\n"


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def _shot(page, screenshot, name):
    path = screenshot(page, name, full_page=True)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / path.name).write_bytes(path.read_bytes())


def test_identity_and_licensees_on_the_players_page(new_page, screenshot, arbitrator):
    from tournaments import services
    from tournaments.models import Player

    tournament = services.tournament_create(name="Simultané du club", created_by=arbitrator)
    game = services.game_create(tournament=tournament, actor=arbitrator)
    page = new_page(size="laptop")
    page.goto("/console/")
    console_login(page, PASSWORD)
    page.goto(f"/console/games/{game.pk}/players/")

    page.locator("#id_name").fill("Ada Martin")
    page.locator("#id_table").fill("1")
    page.locator("#id_series").fill("S3")
    page.get_by_text("The federation's identity (optional)").click()
    page.locator("#id_licence").fill("998877")
    page.locator("#id_club").fill("Nantes")
    page.locator("#id_birth_date").fill("1958-04-02")
    _shot(page, screenshot, "licensees-form")
    page.get_by_role("button", name="Register", exact=True).click()
    page.wait_for_selector("text=Ada Martin registered at table 1.")
    ada = Player.objects.get(name="Ada Martin")
    assert (ada.licence, ada.club, ada.series, ada.birth_date.isoformat()) == ("998877", "Nantes", "3", "1958-04-02")
    assert ada.category in ("Senior", "Vermeil")

    page.get_by_text("Import licensees from a CSV file").click()
    page.locator("#id_file").set_input_files(files=[{"name": "licencies.csv", "mimeType": "text/csv",
                                                     "buffer": BAD.encode("latin-1")}])
    page.locator("#licensees-import").click()
    refused = page.locator("#licensees-refused")
    refused.wait_for()
    text = refused.inner_text()
    assert "nothing was imported: 2 rows" in text
    assert "row 4: S9 is not a series" in text and "row 5:" in text
    _shot(page, screenshot, "licensees-refused")
    assert Player.objects.count() == 1

    page.locator("#id_file").set_input_files(files=[{"name": "licencies.csv", "mimeType": "text/csv",
                                                     "buffer": b"\xef\xbb\xbf" + GOOD.encode("utf-8")}])
    page.locator("#licensees-import").click()
    page.wait_for_selector("text=Licensees imported: 2 registered, 0 updated, 0 unchanged.")
    rows = page.locator("table.data tbody tr")
    assert rows.count() == 3
    assert "Hélène Dupré" in page.locator("table.data").inner_text()
    assert "Vichy" in page.locator("table.data").inner_text()
    _shot(page, screenshot, "licensees-imported")
    assert not page.errors
