"""A centre's Results file tab in real Chromium: reached from the game's page, each version with its push (one
refused by the organiser, in the organiser's words), and the latest file downloaded for the offline path.
Screenshots in test-artifacts/screenshots/ (and SHOTS_DIR when set)."""

from __future__ import annotations

import json

import pytest

from .support import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-centre-results-1"


def test_the_results_file_tab_shows_the_push_and_downloads_the_latest_file(new_page, screenshot, console_arbitrator,
                                                                            settings):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tournaments import centre, centre_results, packs, results_files, services
    from tournaments.models import CentreResults

    organiser = Ed25519PrivateKey.generate()
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser)]
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    settings.ARBITER_CENTRE_ID, settings.ARBITER_CENTRE_NAME = "nantes-1", "Club de Nantes"
    game_file = packs.draw_game_file(seed=20260314, max_rounds=3)
    pack, key = packs.seal_pack(game_file, event="Simultané de printemps", game_id="G1", signer=organiser)
    tournament = services.tournament_create(name="Club de Nantes", created_by=console_arbitrator)
    game = centre.pack_import(tournament=tournament, raw=packs.pack_bytes(pack), actor=console_arbitrator)
    centre.pack_unlock(game=game, key=packs.key_text(key), actor=console_arbitrator)
    ada, _ = services.player_register(game=game, name="Ada Lovelace", table=1)
    for recorded in game_file.game.rounds[:2]:
        round = services.round_start(round=services.round_draw(game=game, actor=console_arbitrator),
                                     actor=console_arbitrator)
        master = packs.play_to_dict(recorded.master, game.tournament.coordinates)
        services.slip_submit(round=round, player=ada, word=master["word"], ref=master["ref"], score=master["score"],
                             key=f"r{round.number}")
        services.round_close(round=round, actor=console_arbitrator)
        version = centre_results.keep_results(game)
    CentreResults.objects.filter(game=game, sequence=1).update(push_state="sent", push_attempts=3, push_answer={
        "status": 201, "code": "", "message": "accepted"})
    CentreResults.objects.filter(pk=version.pk).update(push_state="refused", push_attempts=1, push_answer={
        "status": 409, "code": "results_outdated", "message": "a version no later than the one held (2)"})

    page = new_page(size="laptop")
    page.goto("/console/")
    console_login(page, PASSWORD)
    page.goto(f"/console/games/{game.pk}/")
    page.get_by_role("link", name="Results file").click()
    page.wait_for_selector("#results-versions")
    rows = page.locator("#results-versions tbody tr")
    assert rows.count() == 2
    assert "Refused" in rows.nth(0).inner_text() and "results_outdated" in rows.nth(0).inner_text()
    assert "Acknowledged" in rows.nth(1).inner_text()
    assert "nantes-1" in page.locator("#results-centre").inner_text()
    screenshot(page, "centre-results-file", full_page=True)

    with page.expect_download() as caught:
        page.get_by_role("link", name="Download the latest results file").click()
    download = caught.value
    assert download.suggested_filename.endswith("-v2.json")
    results = json.loads(open(download.path(), "rb").read())
    assert results_files.results_sha256(results) == version.sha256
    assert results["centre"] == {"id": "nantes-1", "name": "Club de Nantes"}
