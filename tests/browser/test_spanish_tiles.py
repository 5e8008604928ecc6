"""A Spanish game in real Chromium, on the committed sample of Debian's wspanish (tests/fixtures/spanish_words.txt):
the phone's rack shows CH and RR as one tile each, the slip form has keys for the set's tiles of several
letters and Ñ, and the phone plays PECHO with the CH key; the arbitrator types a paper slip PERRO (R, R written
as on paper: the RR tile) at the console; after the close both are paid and the boards show CH and RR in one
square each, never the storage characters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .support import join_by_phone, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-torneo-1"
WORD_LIST = Path(__file__).resolve().parents[1] / "fixtures" / "spanish_words.txt"
STORAGE = set("ΔΘΛΞΨδθλξψ")


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


@pytest.fixture
def spanish_game(db):
    from tournaments import services
    from tournaments.lexicons import word_list_lines

    lexicon, rejected = services.lexicon_import(name="ESMUESTRA", words=word_list_lines(WORD_LIST.read_bytes()),
                                                tileset="spanish")
    assert lexicon.word_count > 400 and "kilo" in rejected
    tournament = services.tournament_create(name="Torneo del club", lexicon="ESMUESTRA", tileset="spanish",
                                            round_seconds=900)
    return services.game_create(tournament=tournament, seed=3)


def _best(round, written: str):
    from engine.board import Board
    from engine.movegen import generate_plays
    from engine.notation import format_ref
    from tournaments.lexicons import get_lexicon

    tournament = round.game.tournament
    tiles = tournament.tiles
    plays = [play for play in generate_plays(Board.from_rows(round.board), round.rack,
                                             get_lexicon(tournament.lexicon), tiles, tournament.rules)
             if tiles.show(play.word) == written]
    play = max(plays, key=lambda p: (p.score, -p.row, -p.col))
    return format_ref(play.row, play.col, play.horizontal, tournament.coordinates), play.score


def test_a_phone_plays_ch_from_its_key_and_a_paper_slip_perro_takes_the_rr_tile(new_page, screenshot, arbitrator,
                                                                                 spanish_game):
    from tournaments import services
    from tournaments.models import Result, Round, Slip

    game = spanish_game
    services.player_register(game=game, name="Bruno", table=2)
    phone = new_page(size="phone")
    join_by_phone(phone, game.join_code, "Ana")

    # The rack typed with the aliases: 3 is RR, 1 is CH.
    round = services.round_start(round=services.round_draw(game=game, rack="3PEO1CA"))
    round.refresh_from_db()
    wait_for(lambda: phone.locator("#rack li.rtile").count() == 7, timeout=15)
    tiles = phone.locator("#rack li.rtile").all_inner_texts()
    assert sorted(t.split()[0] for t in tiles) == sorted(["RR", "P", "E", "O", "CH", "C", "A"]), tiles
    assert phone.locator("#rack li.rtile.multi").count() == 2
    assert not STORAGE & set("".join(tiles))
    keys = phone.locator(".tile-keys .tile-key").all_inner_texts()
    assert keys == ["CH", "LL", "Ñ", "RR"] or sorted(keys) == sorted(["CH", "LL", "Ñ", "RR"]), keys

    # The hall's projector shows the same rack, CH and RR one tile each.
    projector = new_page(size="laptop")
    projector.goto(f"/projector/{game.screen_key}")
    wait_for(lambda: projector.locator("#rack li.rtile").count() == 7, timeout=15)
    shown = projector.locator("#rack li.rtile").all_inner_texts()
    assert sorted(t.split()[0] for t in shown) == sorted(["RR", "P", "E", "O", "CH", "C", "A"]), shown
    screenshot(projector, "es-projector-rack")
    projector.close()

    # The phone writes PECHO: P, E, the CH key, O.
    ref, score = _best(round, "PECHO")
    phone.locator("#slip-ref").fill(ref)
    phone.locator("#slip-word").click()
    phone.keyboard.type("pe")
    phone.locator(".tile-key[data-label=CH]").click()
    phone.keyboard.type("o")
    assert phone.locator("#slip-word").input_value() == "PECHO"
    phone.locator("#slip-score").fill(str(score))
    screenshot(phone, "es-phone-slip-pecho", full_page=True)
    phone.locator("#slip-submit").click()
    phone.wait_for_selector("#receipt:not([hidden])", timeout=5000)
    assert Slip.objects.get(round=round, player__name="Ana", current=True).word == "PECHO"

    # The arbitrator types Bruno's paper slip: PERRO as written on paper.
    perro_ref, perro_score = _best(round, "PERRO")
    console = new_page(size="laptop")
    console.goto("/console/")
    console.locator("#id_username").fill("arbitre")
    console.locator("#id_password").fill(PASSWORD)
    console.locator("#id_password").press("Enter")
    console.wait_for_url(re.compile(r"/console/$"))
    console.goto(f"/console/games/{game.pk}/slips/")
    console.wait_for_selector("#slip-form")
    rack_text = console.locator(".rack-line .rack-text").inner_text()
    assert "[CH]" in rack_text and "[RR]" in rack_text and not STORAGE & set(rack_text), rack_text
    assert console.locator(".tile-keys .tile-key").count() == 4
    # PE, the RR key, O: as on the paper slip.
    console.keyboard.type("2")
    console.keyboard.press("Tab")
    console.keyboard.type("PE")
    console.locator(".tile-key[data-label=RR]").click()
    console.keyboard.type("O")
    assert console.locator("#id_word").input_value().upper() == "PERRO"
    console.keyboard.press("Tab")
    for text in (perro_ref, str(perro_score)):
        console.keyboard.type(text)
        console.keyboard.press("Tab")
    assert "R" not in console.locator("#slip-flags").inner_text().replace("Bruno", "")  # no R R missing against RR
    console.keyboard.press("Enter")
    wait_for(lambda: Slip.objects.filter(round=round, player__name="Bruno", current=True).exists(), timeout=10)
    screenshot(console, "es-console-paper-slip-perro", full_page=True)

    services.round_close(round=round)
    round.refresh_from_db()
    assert round.status == Round.Status.CLOSED
    paid = {r.player.name: (r.outcome, r.paid) for r in Result.objects.filter(round=round).select_related("player")}
    assert paid["Ana"] == ("ok", score) and paid["Bruno"] == ("ok", perro_score), paid

    # The phone's board shows the master with its digraph tiles in one square each.
    wait_for(lambda: phone.locator("#board .tile").count() > 0, timeout=15)
    board_tiles = phone.locator("#board .tile").all_inner_texts()
    assert not STORAGE & set("".join(board_tiles)), board_tiles
    master = round.master["word"] if isinstance(round.master, dict) else ""
    multi = sum(1 for ch in master if ch.upper() in "ΘΛΞ")
    assert phone.locator("#board .tile.multi").count() == multi
    phone.evaluate("window.scrollTo(0, 0)")
    screenshot(phone, "es-phone-after-close", full_page=True)
    console.goto(f"/console/games/{game.pk}/")
    assert not STORAGE & set(console.locator("#console-board").inner_text())
    screenshot(console, "es-console-game", full_page=True)
    console.goto(f"/console/games/{game.pk}/rounds/1/")
    page_text = console.locator("main").inner_text()
    assert "PECHO" in page_text and "PERRO" in page_text and not STORAGE & set(page_text)
    screenshot(console, "es-console-round", full_page=True)

    # The phone's review of the round, once the game is over: its rack and words by their labels too.
    services.game_end(game=game)
    phone.goto(f"/games/{game.pk}/review?round=1")
    phone.wait_for_function("document.querySelector('#review-round')?.dataset.round === '1'", timeout=15000)
    wait_for(lambda: phone.locator("#review-rack li.rtile").count() == 7, timeout=15)
    review_rack = phone.locator("#review-rack li.rtile").all_inner_texts()
    assert sorted(t.split()[0] for t in review_rack) == sorted(["RR", "P", "E", "O", "CH", "C", "A"]), review_rack
    assert not STORAGE & set(phone.locator("main").inner_text())
    screenshot(phone, "es-phone-review", full_page=True)
