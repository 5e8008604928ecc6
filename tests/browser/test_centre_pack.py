"""A centre's sealed pack at the console in real Chromium: the file uploaded, refused with the organiser's
fingerprint, trusted once that fingerprint is typed; the Sealed pack tab (locked), a wrong key refused in
words, the right one typed as read out; then the one button reveals the pack's first rack. Screenshots in
test-artifacts/screenshots/ (and SHOTS_DIR when set)."""

from __future__ import annotations

import pytest

from .support import console_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-centre-pack-1"


def test_a_centre_imports_trusts_unlocks_and_reveals_a_pack(new_page, screenshot, console_arbitrator, settings,
                                                            tmp_path):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tournaments import packs, services
    from tournaments.models import Game, GamePack, Round

    settings.ARBITER_TRUSTED_ORGANISER_KEYS = []
    game_file = packs.draw_game_file(seed=20260314, max_rounds=4)
    pack, key = packs.seal_pack(game_file, event="Simultané de printemps", game_id="G1",
                                signer=Ed25519PrivateKey.generate())
    fingerprint = packs.fingerprint(pack["seal"]["key"])
    path = tmp_path / "G1.pack.json"
    path.write_bytes(packs.pack_bytes(pack))
    tournament = services.tournament_create(name="Club de Nantes", created_by=console_arbitrator)

    page = new_page(size="laptop")
    page.goto("/console/")
    console_login(page, PASSWORD)
    page.goto(f"/console/tournaments/{tournament.pk}/")
    page.get_by_role("link", name="Import a sealed pack (a simultaneous game)").click()
    page.get_by_label("Sealed pack (.pack.json)").set_input_files(str(path))
    page.get_by_role("button", name="Import").click()
    page.wait_for_selector("#pack-fingerprint")
    assert fingerprint in page.locator("#pack-fingerprint").inner_text()
    screenshot(page, "centre-pack-untrusted", full_page=True)
    assert not Game.objects.filter(tournament=tournament).exists()

    page.get_by_label("Sealed pack (.pack.json)").set_input_files(str(path))
    page.get_by_label("Organiser's fingerprint, checked by phone").fill(fingerprint.lower())
    page.get_by_role("button", name="Import").click()
    page.wait_for_selector("#pack-facts")
    game = Game.objects.get(tournament=tournament)
    assert "Locked" in page.locator("#pack-state").inner_text()
    screenshot(page, "centre-pack-locked", full_page=True)

    field = page.get_by_label("Key (typed, or the text its QR code scans to)")
    field.fill(packs.key_text(bytes(16)))
    page.get_by_role("button", name="Unlock").click()
    page.wait_for_selector("text=this key does not open this pack")
    screenshot(page, "centre-pack-wrong-key", full_page=True)
    assert GamePack.objects.get(game=game).unlocked_at is None

    page.get_by_label("Key (typed, or the text its QR code scans to)").fill(packs.key_text(key).lower())
    page.get_by_role("button", name="Unlock").click()
    page.wait_for_url(f"**/console/games/{game.pk}/")
    page.get_by_role("button", name="Reveal the pack's next rack").click()
    page.wait_for_selector("#rack")
    assert Round.objects.get(game=game, number=1).rack == game_file.game.rounds[0].rack
    assert page.locator("text=-ILMQRRT").count() >= 1  # the pack's rejected draw, shown as in a live game
    assert page.locator("#rack-fix-form").count() == 0  # the pack's rack is not replaced
    screenshot(page, "centre-pack-first-rack", full_page=True)
    assert not page.errors
