"""A player keeps the language they joined in, in real Chromium: a French phone (its browser in French, or the
language chosen on the join page) joins an English tournament, and after "Rejoindre" its play page is French;
the projector keeps the tournament's English."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

# Besides the suite's own screenshots (test-artifacts/), a copy in ARBITER_TEST_SHOTS when it is set.
SHOTS = Path(os.environ["ARBITER_TEST_SHOTS"]) if os.environ.get("ARBITER_TEST_SHOTS") else None


def _shot(screenshot, page, name: str) -> None:
    path = screenshot(page, name, full_page=True)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / path.name).write_bytes(path.read_bytes())


def _english_game(make_game):
    return make_game(language="en")


def _join(page, game, name: str) -> None:
    page.locator("#join-name").fill(name)
    page.locator("#join-form button[type=submit]").click()
    page.wait_for_url(f"**/games/{game.pk}/play")
    page.wait_for_selector("#who")


def test_a_french_phone_joins_an_english_tournament_and_plays_in_french(new_page, screenshot, make_game):
    from tournaments.models import Player

    game = _english_game(make_game)
    phone = new_page(size="phone", locale="fr-FR")
    phone.goto(f"/join/{game.join_code}")
    assert phone.locator("html").get_attribute("lang") == "fr"
    assert phone.locator("h1").inner_text() == "Rejoindre une partie"
    _shot(screenshot, phone, "hd-join-fr")
    _join(phone, game, "Hélène")
    assert phone.locator("html").get_attribute("lang") == "fr"
    assert "Votre bulletin" in phone.content() and "Your slip" not in phone.content()
    _shot(screenshot, phone, "hd-play-fr-after-join")
    assert Player.objects.get(name="Hélène").language == "fr"
    # A reload keeps it (the phone's cookie), and the projector keeps the tournament's English.
    phone.reload()
    assert phone.locator("html").get_attribute("lang") == "fr"
    hall = new_page(size="projector", locale="fr-FR")
    hall.goto(f"/projector/{game.screen_key}")
    assert hall.locator("html").get_attribute("lang") == "en"
    assert not phone.errors, phone.errors


def test_the_language_chosen_on_the_join_page_is_kept_after_joining(new_page, screenshot, make_game):
    from tournaments.models import Player

    game = _english_game(make_game)
    phone = new_page(size="phone", locale="en-GB")
    phone.goto(f"/join/{game.join_code}")
    assert phone.locator("h1").inner_text() == "Join a game"
    phone.locator(".language-switch button[value=fr]").click()
    phone.wait_for_function("document.documentElement.lang === 'fr'")
    assert phone.locator("h1").inner_text() == "Rejoindre une partie"
    _join(phone, game, "Hugo")
    assert phone.locator("html").get_attribute("lang") == "fr"
    assert "Votre bulletin" in phone.content()
    _shot(screenshot, phone, "hd-play-fr-chosen-on-join")
    assert Player.objects.get(name="Hugo").language == "fr"
    assert not phone.errors, phone.errors
