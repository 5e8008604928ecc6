"""The organiser of a simultaneous event at the console in real Chromium: the event created from the menu, its
pack added and unlocked with the key typed, a centre registered, a results file uploaded from a USB key; the
verdict that differs listed; the merged standings with the centre that has not reported. Screenshots in
test-artifacts/screenshots/ (and SHOTS_DIR when set)."""

from __future__ import annotations

import pytest

from .support import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-event-organiser-1"
EVENT = "Simultané de printemps"


def test_the_organiser_receives_a_file_from_a_usb_key_and_reads_the_merged_standings(
        new_page, screenshot, console_arbitrator, tmp_path):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from engine.board import Board
    from engine.judging import Slip, judge_slip, zero
    from engine.tiles import load_tileset
    from tournaments import packs
    from tournaments.event_models import ResultsFile
    from tournaments.lexicons import get_lexicon
    from tournaments.results_files import make_results_file, player_results

    game_file = packs.draw_game_file(seed=20260314, max_rounds=3)
    pack, key = packs.seal_pack(game_file, event=EVENT, game_id="G1")
    pack_path = tmp_path / "G1.pack.json"
    pack_path.write_bytes(packs.pack_bytes(pack))
    centre_key = Ed25519PrivateKey.generate()
    lexicon, tileset = get_lexicon(game_file.lexicon), load_tileset(game_file.tileset)
    players = []
    for index, name in enumerate(("Anne Martin", "Bruno Petit")):
        rounds = []
        for r in game_file.game.rounds:
            master = r.master
            slip = {"word": master.word, "ref": packs.play_to_dict(master, game_file.labelling)["ref"],
                    "claimed": master.score} if index == 0 else None
            found = judge_slip(Board.from_rows(r.board), r.rack, r.number, Slip(slip["word"], slip["ref"],
                               slip["claimed"]), lexicon, tileset, game_file.rules,
                               labelling=game_file.labelling) if slip else zero("no_slip")
            verdict = {"paid": found.paid, "outcome": found.outcome, "reason": found.reason}
            if index == 1 and r.number == 1:
                verdict = {"paid": 0, "outcome": "zero", "reason": "arbitrator_zero"}  # differs from the judge's
            rounds.append({"round": r.number, "slip": slip, "verdict": verdict})
        players.append(player_results({"id": str(index), "name": name, "series": f"S{index + 1}",
                                       "category": "Senior"}, rounds))
    results = make_results_file(event=EVENT, game_id="G1", pack_sha256=packs.pack_sha256(pack),
                                centre={"id": "NANTES", "name": "Club de Nantes"}, players=players, final=True,
                                signer=centre_key)
    results_path = tmp_path / "NANTES.results.json"
    results_path.write_bytes(packs.pack_bytes(results))

    page = new_page(size="laptop")
    page.goto("/console/")
    console_login(page, PASSWORD)
    page.get_by_role("link", name="Simultaneous events").click()
    page.get_by_label("Name (as its packs name it)").fill(EVENT)
    page.get_by_role("button", name="Create").click()
    page.wait_for_selector("#event-games")
    page.get_by_label("Sealed pack (.pack.json)").set_input_files(str(pack_path))
    page.get_by_role("button", name="Add the game").click()
    page.wait_for_selector("text=Game G1 added")
    page.locator("#event-games input[name=key]").fill(packs.key_text(key).lower())
    page.get_by_role("button", name="Unlock").click()
    page.wait_for_selector("text=Game G1 unlocked.")
    page.get_by_label("Centre's id (as its files name it)").fill("NANTES")
    page.get_by_label("Name", exact=True).fill("Club de Nantes")
    page.get_by_label("Its public key").fill(packs.public_text(centre_key))
    page.get_by_role("button", name="Register the centre").click()
    page.wait_for_selector("text=Centre NANTES registered")
    page.get_by_label("Centre's id (as its files name it)").fill("LYON")
    page.get_by_role("button", name="Register the centre").click()
    page.wait_for_selector("text=Centre LYON registered")
    page.get_by_label("Results file", exact=True).set_input_files(str(results_path))
    page.get_by_role("button", name="Receive").click()
    page.wait_for_selector("text=Results of centre NANTES accepted (version 1).")
    assert ResultsFile.objects.get().via == "console"
    differences = page.locator("#event-differences tbody tr")
    assert differences.count() == 1  # round 1 of Bruno Petit: the centre's zero, the judge's "no slip"
    assert "Bruno Petit" in differences.inner_text() and "no slip" in differences.inner_text()
    screenshot(page, "event-organiser-page", full_page=True)

    page.get_by_role("link", name="Merged standings").first.click()
    page.wait_for_selector("#event-ranking")
    assert "LYON" in page.locator("#event-provisional").inner_text()
    ranking = page.locator("#event-ranking").inner_text()
    assert ranking.index("Anne Martin") < ranking.index("Bruno Petit")
    screenshot(page, "event-organiser-standings", full_page=True)
    assert not page.errors
