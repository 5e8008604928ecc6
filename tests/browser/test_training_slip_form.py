"""In real Chromium: training's slip form is the player's phone's (templates/partials/slip_fields.html and
static/js/slip-fields.js). A blank is tapped on its letter and shows circled (the word field stays in
capitals, the slip sent gives the blank in lowercase and the verdict shows it as a blank); the across/down
toggle beside the reference turns the pick on the board; a rack without a blank has no blank picker.
Screenshots in /tmp/h/shots/hf/."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/h/shots/hf")
BLANK_RACK = "AEINRS?"  # every top a seven-letter word: the master plays the blank and keeps nothing
PLAIN_RACK = "AEILNST"  # the second rack, typed: no blank


@pytest.fixture
def blank_game(django_user_model):
    """A two-round game, over and open to training: round 1 on a rack with a blank, round 2 on one without.
    Ann hands in each round's master."""
    from tournaments import services

    arbitrator = django_user_model.objects.create_user(username="arbitre", password="pw-arbitre-1", is_staff=True)
    tournament = services.tournament_create(name="Club evening", round_seconds=120)
    game = services.game_create(tournament=tournament, seed=5)
    ann, _ = services.player_register(game=game, name="Ann", table=1)
    start = timezone.now() - timedelta(hours=1)
    for number, rack in ((1, BLANK_RACK), (2, PLAIN_RACK)):
        round = services.round_draw(game=game, rack=rack, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        master = round.master
        services.slip_submit(round=round, player=ann, word=master["word"], ref=master["ref"],
                             score=master["score"], key=f"a{number}", now=opened + timedelta(seconds=20))
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=150))
    services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    return services.training_set(game=game, value="everyone", actor=arbitrator)


def _ref(row: int, col: int, horizontal: bool) -> str:
    from engine.notation import format_ref

    return format_ref(row, col, horizontal, "rows-letters")


def test_training_takes_the_phones_slip_form(new_page, blank_game):
    game = blank_game
    first, second = game.rounds.order_by("number")
    master1, master2 = first.master, second.master
    blanks = [i for i, ch in enumerate(master1["word"]) if ch.islower()]
    assert len(master1["word"]) == 7 and len(blanks) == 1  # the blank played, as a lowercase letter
    assert "?" in first.rack and "?" not in second.rack
    SHOTS.mkdir(parents=True, exist_ok=True)

    page = new_page("phone")
    sent = []  # the slips the page sends to be judged
    page.on("request", lambda request: sent.append(request.post_data_json) if request.url.endswith("/judge") else None)
    page.goto(f"/games/{game.pk}/train")
    page.click("#train-go")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.locator("#rack .rtile.joker").count() == 1
    assert not page.is_visible("#blank-field")  # no word yet

    # The across/down toggle: a square tapped picks it across; the toggle turns it down and back.
    row, col = master1["row"], master1["col"]
    page.locator(f"#board td[data-r='{row}'][data-c='{col}']").click()
    assert page.input_value("#slip-ref") == _ref(row, col, True)
    assert page.get_attribute("#slip-dir", "aria-pressed") == "false"
    page.click("#slip-dir")
    assert page.input_value("#slip-ref") == _ref(row, col, False)
    assert page.get_attribute("#slip-dir", "aria-pressed") == "true"
    assert page.text_content("#slip-dir") == "Down ↓"
    assert "down" in page.get_attribute(f"#board td[data-r='{row}'][data-c='{col}']", "class")
    page.screenshot(path=str(SHOTS / "0-down.png"))
    page.click("#slip-dir")
    assert page.input_value("#slip-ref") == _ref(row, col, True)
    assert page.text_content("#slip-dir") == "Across →"
    if not master1["horizontal"]:
        page.click("#slip-dir")
    assert page.input_value("#slip-ref") == master1["ref"]

    # The blank: the word typed in capitals, its letter tapped, circled in the toggles.
    page.fill("#slip-word", master1["word"].lower())
    assert page.input_value("#slip-word") == master1["word"].upper()
    assert page.is_visible("#blank-field")
    toggles = page.locator("#blank-toggles button")
    assert toggles.count() == 7
    toggles.nth(blanks[0]).click()
    tapped = toggles.nth(blanks[0])
    assert tapped.get_attribute("aria-pressed") == "true" and "on" in tapped.get_attribute("class").split()
    assert tapped.evaluate("el => getComputedStyle(el).borderRadius") == "50%"
    assert [toggles.nth(i).get_attribute("aria-pressed") for i in range(7)].count("true") == 1
    page.fill("#slip-score", str(master1["score"]))
    page.locator("#train-form").screenshot(path=str(SHOTS / "1-blank-tapped.png"))
    page.click("#train-judge")
    page.wait_for_selector("#verdict:not([hidden])", timeout=30000)
    assert sent[-1]["word"] == master1["word"]  # the blank's letter in lowercase
    assert sent[-1]["ref"] == master1["ref"]
    assert page.get_attribute("#verdict", "data-outcome") == "ok"
    assert page.text_content("#verdict-title") == f"Top! {master1['score']} points"
    assert page.locator("#verdict-mine .blank-letter").count() == 1
    page.locator("#verdict").screenshot(path=str(SHOTS / "2-blank-verdict.png"))

    # Round 2: a rack without a blank, no blank picker; the fields are empty again.
    page.click("#train-next")
    page.wait_for_selector("#train-form:not([hidden])")
    assert page.locator("#rack .rtile.joker").count() == 0
    assert page.input_value("#slip-word") == "" and page.input_value("#slip-ref") == ""
    assert page.get_attribute("#slip-dir", "aria-pressed") == "false"
    page.fill("#slip-ref", master2["ref"])
    page.fill("#slip-word", master2["word"])
    page.fill("#slip-score", str(master2["score"]))
    assert not page.is_visible("#blank-field") and not page.is_visible("#blank-toggles button >> nth=0")
    page.locator("#train-form").screenshot(path=str(SHOTS / "3-no-blank-picker.png"))
    page.click("#train-judge")
    page.wait_for_selector("#verdict[data-round='2']:not([hidden])", timeout=30000)
    assert sent[-1]["word"] == master2["word"].upper() and len(sent) == 2
    assert page.get_attribute("#verdict", "data-outcome") == "ok"
    page.screenshot(path=str(SHOTS / "4-round2-verdict.png"), full_page=True)
    assert page.errors == []


def test_the_phone_shows_no_blank_picker_for_a_rack_without_a_blank(live_server, new_page, make_game, make_player):
    """The same fields on the player's phone: a word typed for a rack without a blank has no blank toggles;
    for a rack with one, they are there."""
    from tournaments.services import round_draw, round_start

    pages = {}
    for rack in (PLAIN_RACK, BLANK_RACK):
        game = make_game(round_seconds=180)
        _, token = make_player(game, name="Emile", table=4)
        round_start(round=round_draw(game=game, rack=rack))
        page = new_page("phone")
        page.goto(f"/join/{game.join_code}")
        page.evaluate(
            "([game, token]) => localStorage.setItem(`arbiter.game.${game}`, JSON.stringify({token, player: 0}))",
            [game.pk, token],
        )
        page.goto(f"/games/{game.pk}/play")
        page.wait_for_selector("#who:has-text('Emile')")
        page.wait_for_function("!document.getElementById('slip-word').disabled")
        page.fill("#slip-word", "salient")
        assert page.input_value("#slip-word") == "SALIENT"
        pages[rack] = page
    assert not pages[PLAIN_RACK].is_visible("#blank-field")
    pages[PLAIN_RACK].locator("#slip-form").screenshot(path=str(SHOTS / "5-phone-no-blank.png"))
    assert pages[BLANK_RACK].is_visible("#blank-field")
    assert pages[BLANK_RACK].locator("#blank-toggles button").count() == 7
    assert pages[PLAIN_RACK].errors == [] and pages[BLANK_RACK].errors == []
