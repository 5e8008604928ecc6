"""In real Chromium, on phone-sized screens, in a French tournament on an imported French list: the clock and
the rack stay in view while the slip is typed (360x640 and 390x844, and with the height an on-screen keyboard
leaves), the receipt comes into view once the slip is handed in, and after the close the old slip gives way
to the result: the play, what it was paid, why, and the top. The nonsense slip QXZWK 8H is told its letters
are not on the rack."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

WORDS = ("rat", "rats", "art", "arts", "star", "rate", "ratés", "entrais", "traînes", "satiné", "ternis", "nitres",
         "antres", "saint", "sainte", "train", "trains", "tiens", "site", "sites", "reins", "riens")
RACK = "AEINRST"
PHONES = [(360, 640), (390, 844)]
KEYBOARD = 0.45  # the share of the screen an on-screen keyboard takes

# Where the clock, the rack and a field are against the window and the sticky top.
WHERE = """(id) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  return {
    clock: box(document.getElementById('countdown')),
    rack: box(document.getElementById('rack')),
    tiles: document.querySelectorAll('#rack .rtile').length,
    top: box(document.getElementById('phone-top')),
    field: id ? box(document.getElementById(id)) : null,
    focused: document.activeElement ? document.activeElement.id : null,
    height: window.innerHeight, scrollY: window.scrollY,
  };
}"""


def _in_view(box, where) -> bool:
    return box["top"] >= -0.5 and box["bottom"] <= where["height"] + 0.5


def _below_top(box, where) -> bool:
    """Whole, in the window and not hidden under the sticky clock and rack."""
    return box["top"] >= where["top"]["bottom"] - 0.5 and box["bottom"] <= where["height"] + 0.5


@pytest.fixture
def french_game(tmp_path):
    from tournaments import services

    path = tmp_path / "liste.txt"
    path.write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    call_command("importlexicon", str(path), "--name", "FRPHONE", "--tileset", "french", stdout=io.StringIO())
    tournament = services.tournament_create(name="Soirée du club", lexicon="FRPHONE", tileset="french",
                                            language="fr", round_seconds=300)
    return services.game_create(tournament=tournament, seed=3)


def _phone(new_page, game, token, size):
    page = new_page("phone", locale="fr-FR")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"/games/{game.pk}/play#token={token}")
    page.wait_for_selector("#who:has-text('Léa')")
    page.wait_for_selector("#rack .rtile")
    return page


@pytest.mark.parametrize("size", PHONES, ids=["360x640", "390x844"])
def test_the_clock_and_the_rack_stay_in_view_while_the_slip_is_typed(size, french_game, new_page, screenshot,
                                                                      live_server):
    from tournaments import services

    game = french_game
    _, token = services.player_register(game=game, name="Léa", table=1)
    services.round_start(round=services.round_draw(game=game, rack=RACK))
    page = _phone(new_page, game, token, size)

    for field, text in (("slip-ref", "h4"), ("slip-word", "entrais"), ("slip-score", "66")):
        page.locator(f"#{field}").click()
        page.keyboard.type(text)
        where = page.evaluate(WHERE, field)
        assert where["focused"] == field
        assert where["tiles"] == 7
        assert _in_view(where["clock"], where) and _in_view(where["rack"], where), (size, field, where)
        assert _below_top(where["field"], where), (size, field, where)
    assert page.evaluate(WHERE, None)["scrollY"] > 0  # the form is below the board: the page did scroll

    # The on-screen keyboard takes the bottom of the screen: the focused field, the clock and the rack still show.
    page.set_viewport_size({"width": size[0], "height": int(size[1] * (1 - KEYBOARD))})
    page.locator("#slip-word").focus()
    page.locator("#slip-word").evaluate("el => el.scrollIntoView({block: 'nearest'})")
    where = page.evaluate(WHERE, "slip-word")
    assert _in_view(where["clock"], where) and _in_view(where["rack"], where), (size, where)
    assert _below_top(where["field"], where), (size, where)

    # The bottom of the page: still the clock and the rack.
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    where = page.evaluate(WHERE, None)
    assert _in_view(where["clock"], where) and _in_view(where["rack"], where), (size, where)
    screenshot(page, f"phone-fr-typing-{size[0]}x{size[1]}")
    assert not page.errors


def test_the_receipt_comes_into_view_and_the_result_replaces_the_slip_after_the_close(
    french_game, new_page, screenshot, live_server, settings
):
    from tournaments import services
    from tournaments.models import Result, Round

    game = french_game
    player, token = services.player_register(game=game, name="Léa", table=1)
    services.round_start(round=services.round_draw(game=game, rack=RACK))
    page = _phone(new_page, game, token, PHONES[0])

    # The phone's nonsense slip: none of its letters is on the rack.
    page.locator("#slip-ref").fill("8H")
    page.locator("#slip-word").fill("QXZWK")
    page.locator("#slip-score").fill("40")
    page.locator("#slip-score").press("Enter")
    page.wait_for_selector("#receipt:not([hidden])")
    page.wait_for_selector("#slip-status.status-ok")
    where = page.evaluate(WHERE, "receipt")
    assert _below_top(where["field"], where), where  # the receipt, whole, under the clock and the rack
    assert where["focused"] not in ("slip-score", "slip-word", "slip-ref")  # the keyboard is put away
    assert "QXZWK" in page.locator("#receipt-text").inner_text()
    screenshot(page, "phone-fr-receipt-360x640")

    round_ = Round.objects.get(game=game, number=1)
    services.round_close(round=round_)
    result = Result.objects.get(round=round_, player=player)
    assert (result.paid, result.reason) == (0, "not_in_rack")

    # The result instead of the old slip: no greyed-out form, no receipt.
    page.wait_for_selector("#result-mine .reason")
    page.wait_for_selector("#slip-form", state="hidden")
    assert page.locator("#receipt").is_hidden()
    mine = page.locator("#result-mine")
    assert page.locator("#result-mine .reason").get_attribute("data-reason") == "not_in_rack"
    text = mine.inner_text()
    assert "QXZWK" in text.replace(" ", "") and "8H" in text and "marqué 0" in text and "Zéro" in text, text
    assert "ne sont pas dans le tirage" in text and "liste de mots" not in text, text
    round_.refresh_from_db()
    assert f"{round_.top_score} points" in page.locator("#result-top").inner_text()
    where = page.evaluate(WHERE, "results")
    assert _in_view({"top": where["field"]["top"], "bottom": where["field"]["top"] + 40}, where), where
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "phone-fr-result-360x640", full_page=True)

    # The next rack brings the form back, empty.
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    services.round_start(round=services.round_draw(game=game))
    page.wait_for_selector("#slip-form:not([hidden])")
    assert page.locator("#slip-word").input_value() == ""
    assert page.locator("#receipt").is_hidden()
    assert not page.errors
