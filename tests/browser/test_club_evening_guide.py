"""The club arbitrator's guide (docs/club-evening.md, served at /help/) and its pictures, in real Chromium.

One evening walked through as the guide tells it: the projector shows the join code, a phone joins, the
arbitrator draws the rack and starts the clock, a phone hands in its slip, a paper slip is typed, the round
is closed, a slip corrected, the game ended, the sheets page opened. Each step's screen is the guide's
picture: the test writes them to test-artifacts/guide/ and, with UPDATE_GUIDE_PICTURES=1, over the guide's own
(docs/img/club-evening/), so that they show the pages as they are. The guide names exactly these pictures.
Then /help/ is fetched as a visitor would: its sections, each picture loading."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from .support import console_login, join_by_phone, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "club-evening.md"
PICTURES = ROOT / "docs" / "img" / "club-evening"
OUT = ROOT / "test-artifacts" / "guide"
PASSWORD = "pw-guide-1"
RACK = "AEINRST"
SECTIONS = ["Install", "Start", "The phones join", "A round", "Paper slips", "An incident", "The end", "Printing",
            "Backing up"]
# Small windows: small pictures (the guide's folder stays a few hundred KB).
CONSOLE = {"width": 900, "height": 560}
PROJECTOR = {"width": 960, "height": 540}
PHONE = {"width": 360, "height": 640}
BUDGET_BYTES = 600_000


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def _pictures_named_by_the_guide() -> list[str]:
    return re.findall(r"!\[[^\]]*\]\(img/club-evening/([a-z0-9-]+\.png)\)", GUIDE.read_text(encoding="utf-8"))


def test_the_guide_pictures_are_the_evening_as_the_browser_sees_it(new_page, arbitrator, live_server):
    from tournaments import services
    from tournaments.models import Player, Round

    taken: list[str] = []

    def shot(page, name: str, **options) -> None:
        OUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUT / f"{name}.png"), **options)
        taken.append(f"{name}.png")

    tournament = services.tournament_create(name="Club evening", round_seconds=180)
    game = services.game_create(tournament=tournament, seed=7)
    for table, name in ((1, "Ann"), (2, "Bob")):
        services.player_register(game=game, name=name, table=table)

    # The projector in the hall, before the first rack: the join code and its QR code.
    projector = new_page(size="projector")
    projector.set_viewport_size(PROJECTOR)
    projector.goto(f"/projector/{game.screen_key}")
    projector.wait_for_selector("#join .pj-qr svg")
    shot(projector, "projector-join")

    # A phone joins with the code.
    phone = new_page(size="phone")
    phone.set_viewport_size(PHONE)
    phone.goto(f"/join/{game.join_code}")
    phone.get_by_label(re.compile("name", re.I)).fill("Chloé")
    shot(phone, "phone-join")
    join_by_phone(phone, game.join_code, "Chloé")

    # The console: players and the join code.
    console = new_page(size="laptop")
    console.set_viewport_size(CONSOLE)
    console.goto("/console/")
    console_login(console, PASSWORD)
    console.goto(f"/console/games/{game.pk}/players/")
    console.wait_for_selector("text=Chloé")
    shot(console, "console-players")

    # A round: the rack typed from the bag (or drawn at random), the clock started.
    console.get_by_role("link", name="Round", exact=True).click()
    console.get_by_label("Rack drawn from the bag").fill(RACK.lower())
    console.keyboard.press("Enter")
    console.wait_for_selector("#start-button")
    console.locator("#start-button").click()
    console.wait_for_selector("#close-button")
    round_ = Round.objects.get(game=game)
    assert round_.status == Round.Status.OPEN

    # The phone hands in its slip.
    phone.wait_for_selector("#rack .rtile")
    phone.fill("#slip-word", "RETAINS")
    phone.fill("#slip-ref", "H8")
    phone.fill("#slip-score", "66")
    shot(phone, "phone-slip")
    phone.locator("#slip-submit").click()
    wait_for(lambda: console.locator("#progress-count").inner_text() == "1 / 3", timeout=20)
    projector.wait_for_selector("#rack .rtile")
    shot(projector, "projector-round")
    shot(console, "console-round")

    # Paper slips: table, word, reference, score, Enter.
    console.get_by_role("link", name="Enter paper slips").click()
    console.wait_for_selector("#slip-form")
    for table, word, ref, score in ((1, "NASTIER", "H2", "66"), (2, "TRAIN", "H4", "12")):
        console.locator("#id_table").fill(str(table))
        console.locator("#id_word").fill(word)
        console.locator("#id_ref").fill(ref)
        console.locator("#id_score").fill(score)
        console.keyboard.press("Enter")
        wait_for(lambda: console.locator("#slip-form").get_attribute("data-pending") == "0")
    wait_for(lambda: console.locator("#progress-count").inner_text() == "3 / 3", timeout=20)
    shot(console, "console-paper-slips")

    # Closed (the browser asks first), then every result, and a correction with its reason.
    console.get_by_role("link", name="Round", exact=True).click()
    console.once("dialog", lambda dialog: dialog.accept())
    console.get_by_role("button", name="Close the round now").click()
    console.wait_for_selector("#tops-title")
    console.get_by_role("link", name="Every player's result").click()
    console.wait_for_selector("table.results")
    bob = Player.objects.get(name="Bob")
    console.locator(f"#player-{bob.pk} summary").click()
    console.locator(f"#player-{bob.pk} input[name=reason]").fill("slip misread")
    shot(console, "console-correction")
    console.keyboard.press("Enter")
    console.wait_for_selector("text=slip misread")

    # The end: the game ended, every slip in, the final standings on the projector and the sheets.
    services.game_end(game=game)
    Round.objects.filter(game=game).update(slips_complete=True)
    from tournaments.versions import notify_game_changed

    notify_game_changed(game.pk)
    wait_for(lambda: projector.locator("#call").inner_text() == "Final standings", timeout=20)
    shot(projector, "projector-end")
    console.goto(f"/console/games/{game.pk}/standings/")
    console.wait_for_selector("text=Sheets and exports")
    shot(console, "console-sheets")
    for page in (projector, phone, console):
        assert not page.errors, page.errors

    # The guide shows exactly these pictures; with UPDATE_GUIDE_PICTURES=1 they replace its own.
    assert sorted(_pictures_named_by_the_guide()) == sorted(taken)
    if os.environ.get("UPDATE_GUIDE_PICTURES"):
        shutil.rmtree(PICTURES, ignore_errors=True)
        PICTURES.mkdir(parents=True)
        for name in taken:
            shutil.copy(OUT / name, PICTURES / name)
    assert sorted(path.name for path in PICTURES.glob("*.png")) == sorted(taken)
    assert sum((PICTURES / name).stat().st_size for name in taken) <= BUDGET_BYTES


def test_the_guide_is_served_at_help_with_its_sections_and_pictures(new_page, live_server):
    page = new_page(size="laptop")
    answer = page.goto("/help/")
    assert answer.status == 200
    headings = [h.strip() for h in page.locator("main h2").all_inner_texts()]
    assert headings == SECTIONS
    images = page.locator("main img")
    assert images.count() == len(_pictures_named_by_the_guide()) > 0
    for n in range(images.count()):
        source = images.nth(n).get_attribute("src")
        assert page.request.get(f"{live_server.url}/help/{source}").status == 200, source
        wait_for(lambda n=n: page.evaluate("(img) => img.complete && img.naturalWidth > 0",
                                           images.nth(n).element_handle()))
    assert not page.errors, page.errors
