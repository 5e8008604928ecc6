"""A French club evening in a mixed room, in real Chromium: a French tournament on a small imported French list
(tests/fixtures/french_club.txt, imported as a club imports its list). The arbitrator types ten paper slips
by keyboard, blanks marked with ``?``, and sees each verdict in place (after the close with what was paid);
phones join and get table numbers; the round's standings stay provisional on the phone, the projector and the
console until the arbitrator marks the slips complete."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-soiree-fr-1"
WORD_LIST = Path(__file__).resolve().parents[1] / "fixtures" / "french_club.txt"
RACK = "AELRST?"
LOCALE = "fr-FR"


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


@pytest.fixture
def french_game(db):
    """A French tournament (language fr, French tiles) on the club's imported list, and its first game."""
    from tournaments import services
    from tournaments.lexicons import word_list_lines

    lexicon, rejected = services.lexicon_import(name="ODSCLUB", words=word_list_lines(WORD_LIST.read_bytes()),
                                                tileset="french")
    assert lexicon.word_count > 40 and not rejected
    tournament = services.tournament_create(name="Soirée du club", lexicon="ODSCLUB", tileset="french",
                                            language="fr", round_seconds=900)
    return services.game_create(tournament=tournament, seed=11)


def log_in(page):
    page.goto("/console/")
    page.locator("#id_username").fill("arbitre")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")
    page.wait_for_url(re.compile(r"/console/$"))


def real_score(round, word: str, ref: str) -> int:
    """What the engine pays for this play on the round's board (claimed nothing: paid the real score)."""
    from engine.board import Board
    from engine.judging import Slip as EngineSlip
    from engine.judging import judge_slip
    from tournaments.services import setting_of

    setting = setting_of(round.game.tournament)
    judged = judge_slip(Board.from_rows(round.board), round.rack, round.number, EngineSlip(word, ref, None),
                        setting.lexicon, setting.tileset, setting.rules, labelling=setting.labelling)
    return judged.paid


def test_an_arbitrator_types_ten_paper_slips_in_french_and_sees_each_verdict(new_page, screenshot, arbitrator,
                                                                            french_game):
    from engine.notation import parse_marked_word
    from tournaments import services
    from tournaments.models import Result, Round, Slip

    game = french_game
    names = ["Adèle", "Bruno", "Céline", "Denis", "Élise", "Fabien", "Gaëlle", "Hugo", "Inès", "Jules"]
    for table, name in enumerate(names, start=1):
        services.player_register(game=game, name=name, table=table)
    round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    round.refresh_from_db()
    # (table, word as typed from paper, reference, claimed): blanks marked with "?", one in lowercase, one
    # blank left unmarked, one wrong score, letters the rack lacks, a word not in the list.
    typed = [
        (1, "ALERT?ES", "H2"), (2, "relat?es", "H4"), (3, "SALER", "H8"), (4, "ALERTES", "H2"),
        (5, "ZEBRE", "H8"), (6, "RATES", "8H"), (7, "TRALES", "H8"), (8, "ETAL?ER", "H5"),
        (9, "LASER", "H8"), (10, "STEL?E", "H4"),
    ]
    claimed = {}
    for table, word, ref in typed:
        score = real_score(round, parse_marked_word(word), ref)
        claimed[table] = score + 3 if table == 3 else score  # table 3 wrote a wrong score

    page = new_page(size="laptop", locale=LOCALE)
    log_in(page)
    page.goto(f"/console/games/{game.pk}/slips/")
    page.wait_for_selector("#slip-form")
    assert "SA?LAD" in page.locator(".helptext").inner_text()
    assert page.evaluate("document.activeElement.id") == "id_table"
    page.evaluate("window.stillThisPage = true")  # no reload: the mark would be gone

    def row_of(table):
        # The row whose first cell is the table (exactly: another row's score may contain its digits, and
        # the new row may not be listed yet when a busy machine is slow to answer).
        return page.locator("#slip-log tbody tr[data-state=recorded]").filter(
            has=page.locator("td:first-child", has_text=re.compile(rf"^\s*{table}\s*$"))).first

    def type_slip(table, word, ref, score):
        page.keyboard.type(str(table))
        page.keyboard.press("Tab")
        page.keyboard.type(word)
        page.keyboard.press("Tab")
        page.keyboard.type(ref)
        page.keyboard.press("Tab")
        page.keyboard.type(str(score))
        page.keyboard.press("Enter")
        wait_for(lambda: page.locator("#slip-form").get_attribute("data-pending") == "0")
        assert page.evaluate("document.activeElement.id") == "id_table"

    # A table where nobody sits is flagged as it is typed, the cursor staying in the field.
    page.keyboard.type("42")
    wait_for(lambda: "Aucun joueur à la table 42" in page.locator("#slip-flags").inner_text())
    assert page.evaluate("document.activeElement.id") == "id_table"
    assert "is-flagged" in page.locator("#id_table").get_attribute("class")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")

    for table, word, ref in typed[:8]:
        if word == "ZEBRE":
            # Letters the rack cannot give: flagged at once, the cursor still in the word.
            page.keyboard.type(str(table))
            wait_for(lambda: "Élise" in page.locator("#slip-flags").inner_text())  # who sits there
            page.keyboard.press("Tab")
            page.keyboard.type(word)
            wait_for(lambda: "Lettres absentes du tirage" in page.locator("#slip-flags").inner_text())
            assert page.evaluate("document.activeElement.id") == "id_word"
            assert "is-flagged" in page.locator("#id_word").get_attribute("class")
            assert "B E Z" in page.locator("#slip-flags").inner_text()
            screenshot(page, "console-paper-slip-flagged-fr")
            page.keyboard.press("Tab")
            page.keyboard.type(ref)
            page.keyboard.press("Tab")
            page.keyboard.type(str(claimed[table]))
            page.keyboard.press("Enter")  # the server stays the judge: recorded all the same
            wait_for(lambda: page.locator("#slip-form").get_attribute("data-pending") == "0")
        else:
            type_slip(table, word, ref, claimed[table])
        row = row_of(table)
        wait_for(lambda row=row: "Enregistré" in row.locator(".entry-state").inner_text())
        assert row.locator(".entry-name").inner_text() == names[table - 1]
        assert row.locator(".blank-letter").count() == word.count("?")  # shown as on the phone
        assert row.locator(".entry-claimed").inner_text() == str(claimed[table])
    rows = page.locator("#slip-log tbody tr[data-state=recorded]")
    assert rows.count() == 8
    assert rows.first.locator("td").first.inner_text() == "8"  # newest first
    held = {s.player.table: s.word for s in Slip.objects.filter(round=round, current=True).select_related("player")}
    assert held[2] == "RELATeS" and held[4] == "ALERTES" and held[1] == "ALERTeS"  # case made no blank

    # The close: the verdicts come in place, with what each was paid, outcome and reason.
    services.round_close(round=round)
    round.refresh_from_db()
    assert round.status == Round.Status.CLOSED and not round.slips_complete
    wait_for(lambda: page.locator("#slip-log tbody tr .entry-paid").all_inner_texts().count("") == 0, timeout=15)
    assert not page.locator("#after-close-note").is_hidden()
    assert page.locator("#slips-round-status").inner_text() == "Clos" and page.locator("#slips-clock").is_hidden()
    # Two slips found after the close: judged at once, their verdict in the answer.
    for table, word, ref in typed[8:]:
        type_slip(table, word, ref, claimed[table])
        wait_for(lambda table=table: row_of(table).locator(".entry-paid").inner_text() != "")
    assert page.evaluate("window.stillThisPage") is True

    results = {r.slip_id: r for r in Result.objects.filter(round=round)}
    rows = page.locator("#slip-log tbody tr[data-state=recorded]")
    assert rows.count() == 10
    seen = {}
    for i in range(10):
        row = rows.nth(i)
        slip = Slip.objects.select_related("player").get(pk=int(row.get_attribute("data-slip")))
        result = results[slip.pk]
        verdict = row.locator(".entry-state").inner_text()
        assert row.locator(".entry-paid").inner_text() == str(result.paid)
        assert {"ok": "Correct", "warning": "Avertissement", "penalty": "Pénalité", "zero": "Zéro"}[
            result.outcome] in verdict
        seen[slip.player.table] = (result.outcome, result.reason)
    # Table 3 wrote SALER H8 with a wrong score: H8 ties the word's best placement (H4: its S on a double letter;
    # H8 puts the R on one), so it is paid as written, with a warning for the score alone.
    assert seen[1] == ("ok", "ok") and seen[3] == ("warning", "wrong_score")
    assert seen[4] == ("warning", "blank_not_marked") and seen[5] == ("zero", "not_in_rack")
    assert seen[7] == ("zero", "invalid_word") and seen[10] == ("ok", "ok")
    assert "Tous les bulletins papier du coup 1 sont saisis" in page.locator("#slips-complete-button").inner_text()
    screenshot(page, "console-paper-slips-fr", full_page=True)
    assert not page.errors, page.errors


def test_phones_join_in_french_and_get_table_numbers(new_page, screenshot, french_game):
    from tournaments import services
    from tournaments.models import Player

    game = french_game
    for table, name in ((1, "Adèle"), (2, "Bruno"), (3, "Céline")):
        services.player_register(game=game, name=name, table=table)

    def join(page, name, table=""):
        page.goto(f"/join/{game.join_code}")
        page.locator("#join-name").fill(name)
        page.locator("#join-table").fill(table)
        page.locator("#join-name").press("Enter")

    first = new_page(size="phone", locale=LOCALE)
    join(first, "Zoé")
    first.wait_for_url(f"**/games/{game.pk}/play")
    wait_for(lambda: "table 4" in first.locator("#who").inner_text())
    assert Player.objects.get(name="Zoé").table == 4

    second = new_page(size="phone", locale=LOCALE)
    join(second, "Yves", "12")
    second.wait_for_url(f"**/games/{game.pk}/play")
    wait_for(lambda: "table 12" in second.locator("#who").inner_text())

    third = new_page(size="phone", locale=LOCALE)
    join(third, "Xavier", "12")
    wait_for(lambda: "La table 12 est prise" in third.locator("#join-status").inner_text())
    assert third.evaluate("document.activeElement.id") == "join-table"
    screenshot(third, "phone-join-table-taken-fr")
    assert not Player.objects.filter(name="Xavier").exists()
    third.locator("#join-table").fill("")
    third.locator("#join-name").press("Enter")
    third.wait_for_url(f"**/games/{game.pk}/play")
    wait_for(lambda: "table 13" in third.locator("#who").inner_text())
    tables = dict(Player.objects.filter(joined_by_phone=True).values_list("name", "table"))
    assert tables == {"Zoé": 4, "Yves": 12, "Xavier": 13}
    for page in (first, second, third):
        assert not page.errors, page.errors


def test_the_standings_stay_provisional_until_the_slips_are_marked_complete(new_page, screenshot, arbitrator,
                                                                           french_game, client):
    from tournaments import services
    from tournaments.models import Player, Round

    game = french_game
    services.player_register(game=game, name="Adèle", table=1)  # hands in paper slips
    # Hands in nothing: the round is not complete by itself once Adèle's slip is typed, the arbitrator says so.
    services.player_register(game=game, name="Bruno", table=3)
    phone = new_page(size="phone", locale=LOCALE)
    phone.goto(f"/join/{game.join_code}")
    phone.locator("#join-name").fill("Zoé")
    phone.locator("#join-name").press("Enter")
    phone.wait_for_url(f"**/games/{game.pk}/play")
    zoe = Player.objects.get(name="Zoé")
    projector = new_page(size="projector", locale=LOCALE)
    projector.goto(f"/projector/{game.screen_key}")

    round = services.round_start(round=services.round_draw(game=game, rack=RACK))
    round.refresh_from_db()
    services.slip_submit(round=round, player=zoe, word="SALER", ref="H8", score=real_score(round, "SALER", "H8"),
                         key="zoe-1")
    services.round_close(round=round)

    # Closed with Adèle's paper slip not yet typed: provisional on the phone, the projector, the API.
    wait_for(lambda: phone.locator("#standings-provisional").is_visible(), timeout=15)
    assert phone.locator("#standings-provisional").inner_text() == "provisoire"
    wait_for(lambda: projector.locator("#standings-provisional").is_visible(), timeout=15)
    assert client.get(f"/api/games/{game.pk}/standings").json()[0]["provisional"] is True
    screenshot(phone, "phone-standings-provisional-fr")

    console = new_page(size="laptop", locale=LOCALE)
    log_in(console)
    console.goto(f"/console/games/{game.pk}/slips/")
    console.wait_for_selector("#slips-complete-button")
    console.keyboard.type("1")
    console.keyboard.press("Tab")
    console.keyboard.type("sal?er")  # a blank E
    console.keyboard.press("Tab")
    console.keyboard.type("H8")
    console.keyboard.press("Enter")
    wait_for(lambda: console.locator("#slip-log tbody tr[data-state=recorded] .entry-paid").count() == 1
             and console.locator("#slip-log tbody tr[data-state=recorded] .entry-paid").inner_text() != "")
    # Still provisional until the arbitrator says every slip is in.
    assert client.get(f"/api/games/{game.pk}/standings").json()[0]["provisional"] is True
    console.locator("#slips-complete-button").click()
    console.wait_for_selector("#slips-final")
    wait_for(lambda: console.locator("#slips-final").is_visible())
    round.refresh_from_db()
    assert round.slips_complete and round.status == Round.Status.CLOSED
    wait_for(lambda: phone.locator("#standings-provisional").is_hidden(), timeout=15)
    wait_for(lambda: projector.locator("#standings-provisional").is_hidden(), timeout=15)
    assert all(row["provisional"] is False for row in client.get(f"/api/games/{game.pk}/standings").json())
    screenshot(console, "console-slips-complete-fr")
    for page in (phone, projector, console):
        assert not page.errors, page.errors
