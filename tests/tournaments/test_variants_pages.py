"""The pages of a 7 et 8 game after a round whose master places all 8 tiles: the console's game and round pages,
the projector, the review, the solutions sheet and the record show the rack of 8 and the master with its bonus
of 75 (docs/rules.md section 7)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments import services
from tournaments.models import Result

from .sheets_support import pdf_text, screenshot

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

RACK = "AEINORST"


@pytest.fixture
def played(arbitrator):
    tournament = services.tournament_create(name="Soirée 7 et 8", variant="seven_and_eight", created_by=arbitrator)
    game = services.game_create(tournament=tournament, seed=5, actor=arbitrator)
    ana, _ = services.player_register(game=game, name="Ana", table=1)
    bea, _ = services.player_register(game=game, name="Béa", table=2)
    opened = timezone.now()
    round = services.round_start(round=services.round_draw(game=game, rack=RACK, actor=arbitrator), actor=arbitrator,
                                 now=opened)
    round = services.round_compute_tops(round=round)
    master = round.master
    services.slip_submit(round=round, player=ana, word=master["word"], ref=master["ref"], score=master["score"],
                         key="a1", now=opened + timedelta(seconds=20))
    services.slip_submit(round=round, player=bea, word=master["word"], ref=master["ref"], score=master["score"] - 75,
                         key="b1", now=opened + timedelta(seconds=30))
    services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=200))
    round.refresh_from_db()
    return game, round


def test_the_pages_of_a_seven_and_eight_game_show_the_rack_of_8_and_the_master_placing_8(played, client, arbitrator,
                                                                                         tmp_path):
    game, round = played
    master = round.master
    assert len(round.rack) == 8 and len(master["tiles"]) == 8 and master["word"] in ("NOTARIES", "SENORITA")
    assert {r.player.name: (r.outcome, r.paid) for r in Result.objects.filter(round=round)} == {
        "Ana": ("ok", master["score"]), "Béa": ("warning", master["score"])}
    client.force_login(arbitrator)
    for url in (reverse("console-game", args=[game.pk]), reverse("console-round", args=[game.pk, 1]),
                reverse("console-rounds", args=[game.pk])):
        page = client.get(url)
        assert page.status_code == 200, url
        text = page.content.decode()
        assert master["word"] in text, url
    round_page = client.get(reverse("console-round", args=[game.pk, 1])).content.decode()
    assert '<span id="variant">7 and 8</span>' in round_page
    projector = client.get(reverse("projector", args=[game.screen_key]))
    assert projector.status_code == 200
    services.game_end(game=game, actor=arbitrator)  # a round is reviewed once the game is over
    ana = round.results.get(player__name="Ana").player_id
    review = client.get(reverse("game-review-data", args=[game.pk]), {"player": ana}).json()
    assert client.get(reverse("game-review", args=[game.pk])).status_code == 200
    review_text = json.dumps(review)
    assert master["word"] in review_text and f'"{RACK}"' in review_text
    record = client.get(reverse("export-record", args=[game.pk]))
    assert record.status_code == 200
    body = json.loads(record.content)
    assert body["tournament"]["variant"] == "seven_and_eight"
    assert body["rounds"][0]["rack"].replace("+", "") == RACK
    sheet = client.get(reverse("sheet-game-solutions", args=[game.pk]))
    assert sheet.status_code == 200
    text = pdf_text(sheet.content, tmp_path)
    assert master["word"] in text and str(master["score"]) in text
    assert "FISF competition rules · 7 and 8" in " ".join(text.split()), text[:400]
    screenshot(sheet.content, "seven-and-eight-solutions")
    # The game's record sheet: the rack of 8 and the master.
    record_sheet = client.get(reverse("sheet-game-record", args=[game.pk]))
    assert record_sheet.status_code == 200
    text = pdf_text(record_sheet.content, tmp_path, "record")
    assert master["word"] in text and str(master["score"]) in text
    assert any(RACK in line.replace(" ", "") or sorted(RACK) == sorted(line.replace(" ", "")[:8])
               for line in text.splitlines()), text[:1500]
    screenshot(record_sheet.content, "seven-and-eight-record")


def test_the_console_creates_a_blitz_joker_tournament_from_its_french_form(client, arbitrator):
    from tournaments.models import Tournament

    client.force_login(arbitrator)
    url = reverse("console-tournament-create")
    form = client.get(reverse("console-home"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    for text in ("Formule", "Cadence", "Joker (un joker dans chaque tirage)", "7 et 8 (tirages de 8",
                 "Blitz (1 minute)", "Semi-rapide (2 minutes)"):
        assert text in form, text
    answer = client.post(url, {"name": "Blitz joker", "lexicon": "TWL06", "tileset": "english", "ruleset": "fisf",
                               "variant": "joker", "timing": "blitz", "round_seconds": "",
                               "coordinates": "rows-letters", "language": "fr"}, HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 302, answer.content.decode()[:2000]
    made = Tournament.objects.get(name="Blitz joker")
    assert (made.variant, made.timing, made.round_seconds, made.rules.joker) == ("joker", "blitz", 60, True)
    page = client.get(reverse("console-tournament", args=[made.pk]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Formule : Joker (Blitz)" in page or "Formule\u00a0: Joker (Blitz)" in page, page[:3000]
    count = Tournament.objects.count()
    refused = client.post(url, {"name": "Autre", "lexicon": "TWL06", "tileset": "english", "ruleset": "fisf",
                                "variant": "scrabble", "timing": "blitz", "coordinates": "rows-letters"})
    assert refused.status_code == 400 and Tournament.objects.count() == count
