"""The console in French, in real Chromium: a French tournament on an imported word list is created from the
form (the language proposed is the console's), and no page shows a raw code (``french``, ``rows-letters``,
``fisf``) or an English sentence where the arbitrator reads; French typography (a no-break space before
``:``) on the pages; a slip added after the close is logged in French and badged "ajouté". The phone of a
French tournament opens in French in an English browser. Screenshots of the console, the phone and each
French sheet go to test-artifacts/screenshots/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-console-fr"
FRENCH_WORDS = Path(__file__).resolve().parents[1] / "fixtures" / "french_words.txt"
NBSP = "\u00a0"
RAW_CODES = ("french", "english", "rows-letters", "rows-numbers", "fisf", "classic", "invalid_word",
             "wrong_score", "no_slip", "paper slip handed in", "typing correction")


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def log_in(page):
    page.goto("/console/")
    assert "/console/login/" in page.url
    page.locator("#id_username").fill("arbitre")
    page.locator("#id_password").fill(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url("**/console/")


def main_text(page) -> str:
    return page.locator("main").inner_text()


def no_raw_code(text: str) -> list[str]:
    return [code for code in RAW_CODES if re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text)]


def _pdf_page_png(content: bytes, name: str, screenshots: Path) -> Path:
    screenshots.mkdir(parents=True, exist_ok=True)
    from tests.tournaments.sheets_support import pdf_page_png

    (screenshots / f"{name}.pdf").write_bytes(content)
    return pdf_page_png(content, screenshots / f"{name}.png")


def test_the_console_speaks_french_without_raw_codes(new_page, screenshot, arbitrator, live_server):
    from django.core.management import call_command

    from engine.board import Board
    from engine.movegen import generate_plays
    from engine.notation import format_ref
    from tournaments import services
    from tournaments.lexicons import get_lexicon
    from tournaments.models import Game, LogEntry, Player, Round, Tournament
    from tournaments.reasons import PAPER_AFTER_CLOSE

    from .conftest import SCREENSHOTS

    call_command("importlexicon", str(FRENCH_WORDS), "--name", "FRLISTE", "--tileset", "french", stdout=None)
    page = new_page(size="laptop", locale="fr-FR")
    log_in(page)
    assert page.locator("html").get_attribute("lang") == "fr"

    # The tournament form proposes the console's language; the list and the French tiles are picked.
    assert page.locator("#id_language").input_value() == "fr"
    page.locator("#id_name").fill("Tournoi du jeudi")
    page.locator("#id_lexicon").select_option("FRLISTE")
    page.locator("#id_tileset").select_option("french")
    page.get_by_role("button", name="Créer le tournoi").click()
    page.wait_for_selector("#tournament-settings")
    tournament = Tournament.objects.get(name="Tournoi du jeudi")
    assert (tournament.language, tournament.lexicon, tournament.tileset) == ("fr", "FRLISTE", "french")
    settings_line = page.locator("#tournament-settings").inner_text()
    assert f"Jeu de lettres{NBSP}: Français (102 lettres)" in settings_line
    assert f"Coordonnées de la grille{NBSP}: Lignes A–O, colonnes 1–15" in settings_line
    assert "Règlement de compétition FISF" in settings_line and "Règlement Règlement" not in settings_line
    assert f"Langue{NBSP}: Français" in settings_line
    assert no_raw_code(main_text(page)) == []
    screenshot(page, "console-fr-tournament")
    page.goto("/console/")
    home = main_text(page)
    assert "FRLISTE (jeu de lettres français)" in home and no_raw_code(home) == []

    # A game, three players, a round played (slips handed in through the services, as phones and paper do).
    page.goto(f"/console/tournaments/{tournament.pk}/")
    page.get_by_role("button", name="Créer une partie").click()
    game = Game.objects.get(tournament=tournament)
    page.wait_for_url(f"**/console/games/{game.pk}/players/")
    players = {name: services.player_register(game=game, name=name, table=table)[0]
               for table, name in ((1, "Alice"), (2, "Bruno"), (3, "Chloé"))}
    round = services.round_start(round=services.round_draw(game=game, rack="AEINRST", actor=arbitrator),
                                 actor=arbitrator)
    plays = sorted(generate_plays(Board.from_rows(round.board), round.rack, get_lexicon("FRLISTE"),
                                  tournament.tiles, tournament.rules), key=lambda p: -p.score)
    top = plays[0]
    ref = format_ref(top.row, top.col, top.horizontal, "rows-letters")
    services.slip_submit(round=round, player=players["Alice"], word=top.word, ref=ref, score=top.score, key="a")
    services.slip_enter_paper(round=round, table=2, word=top.word, ref=ref, score=top.score + 3, actor=arbitrator)
    page.goto(f"/console/games/{game.pk}/")
    wait_for(lambda: page.locator("#progress-count").inner_text() == "2 / 3")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Clore le coup maintenant").click()
    page.wait_for_selector("#tops-title")
    round.refresh_from_db()
    assert round.status == Round.Status.CLOSED
    game_text = main_text(page)
    assert f"Bulletins reçus{NBSP}: 2 / 3" in game_text
    assert f"Top{NBSP}: {round.top_score} points" in game_text
    assert no_raw_code(game_text) == []
    screenshot(page, "console-fr-game", full_page=True)

    # A paper slip handed in before the end call and typed after the close, as the slips page enters it.
    services.slip_add(round=round, player=players["Chloé"], word="SATIN", ref="H8", score=5,
                      reason=PAPER_AFTER_CLOSE, actor=arbitrator)
    assert LogEntry.objects.get(round=round, action="slip_add").reason == PAPER_AFTER_CLOSE  # kept as written
    page.goto(f"/console/games/{game.pk}/rounds/{round.number}/")
    page.wait_for_selector("table.results")
    log_line = page.locator(".log-list li").first.inner_text()
    assert f"bulletin de Chloé ajouté{NBSP}: SATIN H8 5" in log_line
    assert "bulletin papier remis avant le signal de fin, saisi après la clôture" in log_line
    chloe_row = page.locator(f"#player-{players['Chloé'].pk}").inner_text()
    assert "ajouté" in chloe_row and "corrigé" not in chloe_row
    bruno_row = page.locator(f"#player-{players['Bruno'].pk}").inner_text()
    assert "Avertissement" in bruno_row
    round_text = main_text(page)
    assert no_raw_code(round_text) == [], no_raw_code(round_text)
    screenshot(page, "console-fr-round", full_page=True)

    # The player's page shows the reason in words, the standings a decimal comma.
    page.goto(f"/console/games/{game.pk}/players/{players['Bruno'].pk}/")
    assert "score faux" in main_text(page) and no_raw_code(main_text(page)) == []
    page.goto(f"/console/games/{game.pk}/standings/")
    assert re.search(r"\d+,\d\d", main_text(page)) and no_raw_code(main_text(page)) == []
    screenshot(page, "console-fr-standings", full_page=True)
    for tab, name in (("players", "console-fr-players"), ("slips", "console-fr-slips"), ("rounds", "console-fr-rounds")):
        page.goto(f"/console/games/{game.pk}/{tab}/")
        assert no_raw_code(main_text(page)) == [], (tab, no_raw_code(main_text(page)))
        screenshot(page, name, full_page=True)

    # The sheets, fetched by the console's session: French, a page of each rendered to look at.
    for name, path in (("standings", f"/api/games/{game.pk}/sheets/standings.pdf"),
                       ("scoresheets", f"/api/games/{game.pk}/sheets/scoresheets.pdf"),
                       ("record", f"/api/games/{game.pk}/sheets/record.pdf")):
        answer = page.request.get(path)
        assert answer.status == 200 and answer.body().startswith(b"%PDF"), name
        _pdf_page_png(answer.body(), f"sheet-fr-console-{name}", SCREENSHOTS)

    # The phone of a French tournament, in an English browser: French, and its slip form in French.
    bruno = Player.objects.get(pk=players["Bruno"].pk)
    token = services.player_token_reissue(game=game, player=bruno, actor=arbitrator)
    phone = new_page(size="phone", locale="en-GB")
    phone.goto(f"/games/{game.pk}/play#token={token}")
    phone.wait_for_selector("#results:not([hidden])")
    assert phone.locator("html").get_attribute("lang") == "fr"
    assert phone.locator("#slip-title").inner_text() == "Votre bulletin"
    assert "Coup 1" in phone.locator("#results-title").inner_text()
    screenshot(phone, "phone-fr", full_page=True)
    assert not page.errors and not phone.errors, (page.errors, phone.errors)
