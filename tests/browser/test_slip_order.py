"""In real Chromium: a slip whose request is held up on the network arrives after the slip the player made
next; the server keeps the newer one and the phone's receipt shows it. And a phone told that a newer slip is
already held shows that slip."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

RACK = "AEINRS?"
PASSWORD = "pw-slip-order-1"  # the console arbitrator's (conftest.console_arbitrator)
SLIPS = re.compile(r".*/api/games/\d+/rounds/1/slips$")


def _phone(new_page, game, token):
    """A phone already joined as the player of ``token``, on the game's play page, its slip routed by the test."""
    page = new_page("phone")
    page.goto(f"/join/{game.join_code}")
    page.evaluate(
        "([game, token]) => localStorage.setItem(`arbiter.game.${game}`, JSON.stringify({token, player: 0}))",
        [game.pk, token],
    )
    return page


def _fill(page, ref: str, word: str, score: int) -> None:
    page.locator("#slip-ref").fill(ref)
    page.locator("#slip-word").fill(word)
    page.locator("#slip-score").fill(str(score))


def _pump_until(page, predicate, timeout_ms: int = 5000) -> None:
    """Wait for a condition met by a route handler: the handlers run only while Playwright is called."""
    waited = 0
    while not predicate():
        if waited >= timeout_ms:
            raise AssertionError(f"condition not met within {timeout_ms} ms")
        page.wait_for_timeout(50)
        waited += 50


def test_a_slip_held_up_on_the_network_never_replaces_the_next_one(live_server, new_page, make_game, make_player):
    from tournaments.models import Slip
    from tournaments.services import round_draw, round_start

    game = make_game(round_seconds=180)
    player, token = make_player(game, name="Gaël", table=2)
    round_start(round=round_draw(game=game, rack=RACK))
    page = _phone(new_page, game, token)

    held, posts = [], []

    def route_slips(route):
        if route.request.method != "POST":
            return route.continue_()
        posts.append(route.request.post_data_json)
        if len(posts) == 1:
            held.append(route)  # slip A: the request waits on the venue's Wi-Fi
        elif len(posts) == 2:
            route.abort("internetdisconnected")  # slip B's first attempt is lost: the phone retries
        else:
            route.continue_()

    page.route(SLIPS, route_slips)
    page.goto(f"/games/{game.pk}/play")
    page.wait_for_selector("#who:has-text('Gaël')")

    _fill(page, "h8", "RAINES", 70)
    page.locator("#slip-submit").click()
    _pump_until(page, lambda: held)
    assert page.locator("#receipt").is_hidden()

    # The player changes their mind and hands in slip B, which arrives (on the second try) and is accepted.
    _fill(page, "8h", "SIRENA", 72)
    page.locator("#slip-submit").click()
    page.wait_for_selector("#slip-status.status-ok", timeout=8000)
    assert page.locator("#receipt-text .slip-word").get_attribute("data-word") == "SIRENA"
    slip_a, lost_b, slip_b = posts
    assert lost_b == slip_b  # a retry is the same slip: same key, same seq
    assert slip_a["key"] != slip_b["key"] and slip_a["seq"] < slip_b["seq"]

    # Slip A's request finally reaches the server: it was made before B, so B stays.
    with page.expect_response(lambda r: r.request.method == "POST" and SLIPS.match(r.url)) as answer:
        held[0].continue_()
    assert answer.value.status == 409
    assert answer.value.json()["error"]["code"] == "stale_slip"
    assert answer.value.json()["error"]["fields"]["slip"]["key"] == slip_b["key"]

    current = Slip.objects.get(round__game=game, player=player, current=True)
    assert (current.word, current.ref, current.claimed, current.seq) == ("SIRENA", "8H", 72, slip_b["seq"])
    assert Slip.objects.filter(player=player).count() == 1  # A was never stored
    page.wait_for_timeout(200)  # the late answer must not move the phone off what the server holds
    assert page.locator("#receipt-text .slip-word").get_attribute("data-word") == "SIRENA"
    assert "8H" in page.locator("#receipt-text").inner_text()
    assert "status-ok" in page.locator("#slip-status").get_attribute("class")

    page.reload()  # what the server holds comes back on the receipt
    page.wait_for_selector("#receipt:not([hidden])", timeout=5000)
    assert page.locator("#receipt-text .slip-word").get_attribute("data-word") == "SIRENA"
    assert page.errors == []


def test_a_phone_told_a_newer_slip_is_held_shows_that_slip(live_server, new_page, make_game, make_player):
    from tournaments.models import Slip
    from tournaments.services import round_draw, round_start, slip_submit

    game = make_game(round_seconds=180)
    player, token = make_player(game, name="Hélène", table=3)
    round = round_start(round=round_draw(game=game, rack=RACK))
    page = _phone(new_page, game, token)
    page.goto(f"/games/{game.pk}/play")
    page.wait_for_selector("#who:has-text('Hélène')")

    # Meanwhile the player hands in a slip from another device, whose clock runs an hour ahead.
    ahead = int(page.evaluate("Date.now()")) + 3_600_000
    other, _ = slip_submit(round=round, player=player, word="ARSINE", ref="H4", score=66, key="tablet-1", seq=ahead)

    _fill(page, "h8", "RAINES", 70)
    page.locator("#slip-submit").click()
    page.wait_for_selector("#slip-status.status-bad", timeout=5000)
    assert "newer slip is already held" in page.locator("#slip-status").inner_text()
    page.wait_for_selector("#receipt:not([hidden])")
    assert page.locator("#receipt-text .slip-word").get_attribute("data-word") == "ARSINE"
    assert "H4" in page.locator("#receipt-text").inner_text()
    assert Slip.objects.get(player=player, current=True).pk == other.pk

    # The form still shows what the player wrote; handing it in again is a new slip, made after the held one.
    assert page.locator("#slip-submit").inner_text() == "Replace my slip"
    page.locator("#slip-submit").click()
    page.wait_for_selector("#slip-status.status-ok", timeout=5000)
    current = Slip.objects.get(player=player, current=True)
    assert (current.word, current.seq > ahead) == ("RAINES", True)
    assert page.locator("#receipt-text .slip-word").get_attribute("data-word") == "RAINES"
    assert page.errors == []


ENTERED = re.compile(r".*/console/games/\d+/slips/entered/$")


def test_a_console_list_read_before_a_paper_slip_was_recorded_never_hides_it(
        live_server, new_page, make_game, make_player, console_arbitrator):
    """The console's list of paper slips is read again after each slip; a list read before the next slip was
    recorded, and answered after it, holds one slip fewer. The newer row stays on the page until a list holds
    it (it used to vanish from the log until the list after)."""
    from tournaments.services import round_draw, round_start

    game = make_game(round_seconds=600)
    make_player(game, name="Ada", table=1)
    make_player(game, name="Ben", table=2)
    round_start(round=round_draw(game=game, rack="AEINRST"))

    page = new_page(size="laptop")
    page.goto("/console/login/")
    page.locator("#id_username").fill("arbitre")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")
    page.wait_for_url("**/console/")
    page.goto(f"/console/games/{game.pk}/slips/")
    page.wait_for_selector("#slip-form")

    held = []
    # The first two lists wait on the network until the test lets them through; the page asks one at a time.
    page.route(ENTERED, lambda route: held.append(route) if len(held) < 2 else route.continue_())
    recorded = page.locator("#slip-log tbody tr[data-state=recorded]")

    def type_slip(table, word, ref, score):
        page.locator("#id_table").fill(str(table))
        page.locator("#id_word").fill(word)
        page.locator("#id_ref").fill(ref)
        page.locator("#id_score").fill(str(score))
        page.locator("#id_score").press("Enter")

    type_slip(1, "RETAINS", "H2", 66)
    _pump_until(page, lambda: len(held) == 1)  # the list asked after Ada's slip: held on the network
    stale = page.request.get(held[0].request.url)  # what that list says: Ada's slip only
    assert [row["table"] for row in stale.json()["rows"]] == [1]

    type_slip(2, "NASTIER", "H3", 68)
    page.wait_for_selector("#slip-log tr[data-state=recorded]:has-text('Ben')")
    assert recorded.count() == 2
    held[0].fulfill(response=stale)  # the first list arrives last: it does not hold Ben's slip
    _pump_until(page, lambda: len(held) == 2)  # the page asks once more, and that list is held too
    assert recorded.count() == 2
    assert sorted(recorded.locator("td:first-child").all_inner_texts()) == ["1", "2"]

    held[1].continue_()
    page.wait_for_timeout(300)
    assert recorded.count() == 2
    assert sorted(recorded.locator("td:first-child").all_inner_texts()) == ["1", "2"]
    assert page.errors == []


def test_a_slip_held_up_past_the_close_turns_the_phones_result_to_late(live_server, new_page, make_game,
                                                                        make_player):
    """The close reaches the phone first, its result reads "no slip"; then the slip held up on the network
    arrives, refused and kept on record as late. The player's result now reads late, though nothing the live
    state carries changed (the top, the master, the head of the standings): the phone asks for its own line
    again when told its slip was late."""
    from tournaments.models import LateSlip, Round
    from tournaments.services import round_close, round_draw, round_start

    game = make_game(round_seconds=180)
    player, token = make_player(game, name="Inès", table=4)
    round_ = round_start(round=round_draw(game=game, rack=RACK))
    page = _phone(new_page, game, token)
    held = []
    page.route(SLIPS, lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.goto(f"/games/{game.pk}/play")
    page.wait_for_selector("#who:has-text('Inès')")
    page.wait_for_selector("#rack .rtile")

    _fill(page, "h8", "RAINES", 70)
    page.locator("#slip-submit").click()
    _pump_until(page, lambda: held)

    # The arbitrator closes the round while the slip is on its way.
    round_close(round=Round.objects.get(pk=round_.pk))
    page.wait_for_selector("#result-mine .reason[data-reason=no_slip]", timeout=20000)

    with page.expect_response(lambda r: r.request.method == "POST" and SLIPS.match(r.url)) as answer:
        held[0].continue_()
    assert answer.value.status == 409 and answer.value.json()["error"]["code"] == "round_closed"
    late = LateSlip.objects.get(round=round_, player=player)
    assert (late.word, late.ref, late.claimed) == ("RAINES", "H8", 70)
    # (The note "sent N s before the end" needs the phone's clock to place the send before the close, a few
    # hundred ms here: test_silent_server.py checks it with seconds to spare.)
    page.wait_for_selector("#result-mine .reason[data-reason=late]", timeout=10000)
    assert page.errors == []


def test_a_ruling_below_the_head_of_the_standings_reaches_that_players_phone(live_server, new_page, make_game,
                                                                              make_player, arbitrator):
    """Twelve players: eleven hand in the top, Inès nothing. The arbitrator rules on Inès's result after the
    close: the top, the master and the ten lines of the standings the phones are sent stay as they were, and
    still her phone shows the new pay (the snapshot names the players whose result was ruled on)."""
    from tournaments.models import Result, Round
    from tournaments.services import (
        result_override,
        round_close,
        round_compute_tops,
        round_draw,
        round_start,
        slip_submit,
    )

    game = make_game(round_seconds=180)
    registered = [make_player(game, name=f"Player {n}", table=n) for n in range(1, 12)]
    others = [other for other, _token in registered]
    player, token = make_player(game, name="Inès", table=12)
    round_ = round_start(round=round_draw(game=game, rack=RACK))
    round_compute_tops(round=round_)
    round_ = Round.objects.get(pk=round_.pk)
    top = round_.tops[0]
    for n, other in enumerate(others):
        slip_submit(round=round_, player=other, word=top["word"], ref=top["ref"], score=top["score"], key=f"k{n}")
    round_close(round=round_)

    page = _phone(new_page, game, token)
    page.goto(f"/games/{game.pk}/play")
    page.wait_for_selector("#who:has-text('Inès')")
    page.wait_for_selector("#result-mine .reason[data-reason=no_slip]", timeout=20000)
    assert "paid 0" in page.locator("#result-mine").inner_text()
    # Another player's phone, at the head of the standings: the ruling is none of its business.
    first = _phone(new_page, game, registered[0][1])
    asked = []
    first.on("request", lambda request: asked.append(request.url) if request.url.endswith("/mine") else None)
    first.goto(f"/games/{game.pk}/play")
    first.wait_for_selector("#result-mine .reason")
    first.wait_for_timeout(2000)
    asked_before = len(asked)

    result = Result.objects.get(round=round_, player=player)
    result_override(result=result, paid=7, outcome="ok", reason="slip found under the table", actor=arbitrator)
    page.wait_for_function("document.querySelector('#result-mine')?.innerText.includes('paid 7')", timeout=20000)
    first.wait_for_timeout(2000)  # the phones spread their asks over a second and a half
    assert len(asked) == asked_before
    assert page.errors == [] and first.errors == []
