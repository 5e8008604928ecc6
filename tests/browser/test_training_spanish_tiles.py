"""In real Chromium: training on a Spanish game (the committed wspanish sample) shows the rack's CH and RR as
one tile each, never the storage characters, and its slip form has the phone's keys for CH, LL, Ñ, RR.
Screenshots in /tmp/h/shots/gap27/."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/h/shots/gap27")
WORD_LIST = Path(__file__).resolve().parents[1] / "fixtures" / "spanish_words.txt"
STORAGE = set("ΔΘΛΞΨδθλξψ")


@pytest.fixture
def spanish_training(django_user_model):
    from tournaments import services
    from tournaments.lexicons import word_list_lines

    arbitrator = django_user_model.objects.create_user(username="arbitro", password="pw-arbitro-1", is_staff=True)
    services.lexicon_import(name="ESMUESTRA", words=word_list_lines(WORD_LIST.read_bytes()), tileset="spanish")
    tournament = services.tournament_create(name="Torneo del club", lexicon="ESMUESTRA", tileset="spanish",
                                            round_seconds=120)
    game = services.game_create(tournament=tournament, seed=3)
    round = services.round_draw(game=game, rack="3PEO1CA", actor=arbitrator)  # 3: RR, 1: CH
    round = services.round_start(round=round, actor=arbitrator)
    round = services.round_compute_tops(round=round)
    services.round_close(round=round, actor=arbitrator)
    services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    return services.training_set(game=game, value="everyone", actor=arbitrator)


def test_training_shows_the_spanish_tiles_and_keys(new_page, spanish_training):
    game = spanish_training
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(size="phone")
    page.goto(f"/games/{game.pk}/train")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    wait_for(lambda: page.locator("#rack li.rtile").count() == 7, timeout=15)
    tiles = page.locator("#rack li.rtile").all_inner_texts()
    assert sorted(t.split()[0] for t in tiles) == sorted(["RR", "P", "E", "O", "CH", "C", "A"]), tiles
    assert not STORAGE & set("".join(tiles))
    keys = page.locator("#train-form .tile-keys .tile-key").all_inner_texts()
    assert sorted(keys) == sorted(["CH", "LL", "Ñ", "RR"]), keys
    page.screenshot(path=str(SHOTS / "training-spanish.png"), full_page=True)
