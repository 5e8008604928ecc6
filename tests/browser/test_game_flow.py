"""A round played end to end in real Chromium: the arbitrator's console, two phones (one switched to French,
with a clock two minutes fast), the projector, and the close by the clock in a real Celery worker."""

from __future__ import annotations

import re
import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RACK = "AEINRS?"
ROUND_SECONDS = 10


def _seconds_shown(page) -> int:
    value = page.locator("#countdown").get_attribute("data-seconds-left")
    return int(value) if value is not None else -1


ARBITRATOR_PASSWORD = "pw-arbitre-1"


@pytest.fixture
def arbitrator_user(django_user_model):
    return django_user_model.objects.create_user(username="arbitre", password=ARBITRATOR_PASSWORD, is_staff=True)


def _console(new_page, user, game):
    """The arbitrator's console on the game's screen, logged in through the login form."""
    page = new_page("laptop")
    page.goto("/console/login/")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(ARBITRATOR_PASSWORD)
    page.locator("#id_password").press("Enter")
    page.wait_for_url("**/console/")
    page.goto(f"/console/games/{game.pk}/")
    return page


def _plays(tournament):
    """The engine's view of round 1 with RACK: the top, and a valid play with a blank that is not a top."""
    from engine.board import Board
    from engine.movegen import find_tops, generate_plays
    from engine.notation import format_ref
    from tournaments.lexicons import get_lexicon

    lexicon, tiles, rules = get_lexicon(tournament.lexicon), tournament.tiles, tournament.rules
    board = Board.empty()
    tops = find_tops(board, RACK, lexicon, tiles, rules)
    best_by_word = {}
    for play in generate_plays(board, RACK, lexicon, tiles, rules):
        if play.word not in best_by_word or play.score > best_by_word[play.word].score:
            best_by_word[play.word] = play
    top_words = {play.word.upper() for play in tops.plays}
    with_blank = sorted(
        (p for p in best_by_word.values() if any(t[3] for t in p.tiles) and p.word.upper() not in top_words),
        key=lambda p: (-p.score, p.word),
    )

    def slip(play, claimed):
        return {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, tournament.coordinates),
                "score": claimed, "play": play}

    top = tops.plays[0]
    other = with_blank[0]
    return slip(top, top.score), slip(other, other.score + 3)


def _judge(tournament, slip):
    from engine.board import Board
    from engine.judging import Slip, judge_slip
    from tournaments.lexicons import get_lexicon

    return judge_slip(Board.empty(), RACK, 1, Slip(slip["word"], slip["ref"], slip["score"]),
                      get_lexicon(tournament.lexicon), tournament.tiles, tournament.rules,
                      labelling=tournament.coordinates)


def _join(page, code: str, name: str, screenshot=None) -> None:
    page.goto(f"/join/{code}")
    page.get_by_label(re.compile("name|nom", re.I)).fill(name)
    if screenshot is not None:
        screenshot(page, "join-390")
    page.locator("#join-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/games/\d+/play$"))


def test_round_on_two_phones_closes_by_the_clock(
    live_server, new_page, screenshot, celery_worker, arbitrator_user
):
    from tournaments.models import Round, Slip
    from tournaments.services import game_create, tournament_create

    tournament = tournament_create(name="Open de Lyon", round_seconds=ROUND_SECONDS)
    game = game_create(tournament=tournament, seed=11)
    slip_a, slip_b = _plays(tournament)
    expected_a, expected_b = _judge(tournament, slip_a), _judge(tournament, slip_b)
    assert expected_a.outcome == "ok" and expected_b.outcome == "warning"

    alice = new_page("phone")
    _join(alice, game.join_code, "Alice", screenshot)
    screenshot(alice, "phone-waiting-390")

    # Bruno's phone runs two minutes fast, and he reads the page in French.
    bruno = new_page("phone", clock_shift_seconds=120)
    _join(bruno, game.join_code, "Bruno")
    bruno.locator(".language-switch button[value=fr]").click()
    bruno.wait_for_selector("html[lang=fr]")
    assert bruno.locator("label[for=slip-word]").inner_text() == "Mot"

    projector = new_page("projector")
    projector.goto(f"/projector/{game.screen_key}")
    projector.wait_for_selector("#join:not([hidden])")
    assert game.join_code in projector.locator(".pj-code").inner_text()

    # The arbitrator types the rack drawn from the bag in the console: every screen shows it without a reload.
    console = _console(new_page, arbitrator_user, game)
    console.locator("#id_rack").fill(RACK)
    console.locator("form.typed-rack button[type=submit]").click()
    console.wait_for_selector("#start-button")
    assert sorted(Round.objects.get(game=game, number=1).rack) == sorted(RACK)
    for page in (alice, bruno, projector):
        page.wait_for_function("document.querySelectorAll('#rack .rtile').length === 7", timeout=1500)

    # Bruno's slip: the first POST reaches the server but its answer is lost; the page must retry.
    dropped = []

    def drop_first_answer(route):
        if route.request.method == "POST" and not dropped:
            dropped.append(route.request.post_data_json)
            route.fetch()  # the server receives and stores the slip...
            route.abort("connectionreset")  # ...but the phone never hears back
        else:
            route.continue_()

    bruno.route(re.compile(r".*/api/games/\d+/rounds/1/slips$"), drop_first_answer)

    console.locator("#start-button").click()
    console.wait_for_selector("#close-button")
    assert Round.objects.get(game=game, number=1).status == Round.Status.OPEN
    for page in (alice, bruno, projector):
        page.wait_for_function("Number(document.getElementById('countdown').dataset.secondsLeft) > 0", timeout=1500)
    # Corrected for Bruno's clock: both phones show the same time left (not two minutes less).
    assert abs(_seconds_shown(alice) - _seconds_shown(bruno)) <= 1
    assert 0 < _seconds_shown(bruno) <= ROUND_SECONDS

    # Alice picks the start square on the board, then writes the word and her score.
    play_a = slip_a["play"]
    alice.locator(f"#board td[data-r='{play_a.row}'][data-c='{play_a.col}']").click()
    assert alice.locator("#slip-ref").input_value() == slip_a["ref"]
    alice.locator("#slip-word").fill(slip_a["word"].upper())
    for i, letter in enumerate(slip_a["word"]):
        if letter.islower():
            alice.locator("#blank-toggles button").nth(i).click()
    alice.locator("#slip-score").fill(str(slip_a["score"]))
    alice.locator("#slip-submit").click()
    alice.wait_for_selector("#receipt:not([hidden])", timeout=3000)
    assert slip_a["ref"] in alice.locator("#receipt-text").inner_text()

    # Bruno types the reference and marks his blank with the toggle.
    bruno.locator("#slip-ref").fill(slip_b["ref"])
    bruno.locator("#slip-word").fill(slip_b["word"].upper())
    for i, letter in enumerate(slip_b["word"]):
        if letter.islower():
            bruno.locator("#blank-toggles button").nth(i).click()
            assert bruno.locator("#blank-toggles button").nth(i).get_attribute("aria-pressed") == "true"
    bruno.locator("#slip-score").fill(str(slip_b["score"]))
    bruno.locator("#slip-submit").click()
    bruno.wait_for_selector("#slip-status.status-warn", timeout=3000)  # "not received yet, retrying"
    bruno.wait_for_selector("#slip-status.status-ok", timeout=6000)
    bruno.evaluate("window.scrollTo(0, 0)")
    screenshot(bruno, "phone-slip-accepted-fr-390", full_page=True)
    assert dropped and dropped[0]["word"] == slip_b["word"]
    assert "retry" not in bruno.locator("#slip-status").inner_text().lower()

    # The close comes from the worker at the deadline; the pages learn of it by themselves.
    round_ = Round.objects.get(game=game, number=1)
    for page in (alice, bruno):
        page.wait_for_selector("#results:not([hidden])", timeout=(ROUND_SECONDS + 10) * 1000)
        page.wait_for_selector("#result-mine .reason", timeout=3000)
    round_.refresh_from_db()
    assert round_.status == Round.Status.CLOSED
    assert round_.closed_at >= round_.deadline

    bruno_slips = Slip.objects.filter(round=round_, player__name="Bruno")
    assert bruno_slips.count() == 1  # the retry used the same key: nothing duplicated
    assert bruno_slips.get().word == slip_b["word"]

    mine_a = alice.locator("#result-mine").inner_text()
    assert f"paid {expected_a.paid}" in mine_a and "OK" in mine_a
    mine_b = bruno.locator("#result-mine").inner_text()
    assert f"{expected_b.paid}" in mine_b and "Avertissement" in mine_b
    assert bruno.locator("#result-mine .reason").get_attribute("data-reason") == expected_b.reason

    master = round_.master
    projector.wait_for_function(
        "word => document.querySelector('#last-master .slip-word')?.dataset.word === word", arg=master["word"],
        timeout=3000,
    )
    assert master["ref"] in projector.locator("#last-master").inner_text()
    alice.wait_for_selector("#standings:not([hidden])")
    assert "Alice" in alice.locator("#standings-body").inner_text()

    for page in (alice, bruno):
        page.evaluate("window.scrollTo(0, 0)")
    screenshot(alice, "phone-results-390", full_page=True)
    screenshot(bruno, "phone-results-fr-390", full_page=True)
    screenshot(projector, "projector-1920")
    for page in (alice, bruno, projector, console):
        assert page.errors == []

    # The same screens at the other size.
    screenshot(projector, "projector-1366", size="laptop")
    screenshot(projector, "projector-390", size="phone")
    screenshot(alice, "phone-results-1366", full_page=True, size="laptop")
    console.reload()
    screenshot(console, "console-results-1366", full_page=True)
    screenshot(console, "console-results-390", full_page=True, size="phone")


@pytest.mark.parametrize("shift", [120, -120])
def test_a_phone_with_a_wrong_clock_shows_the_servers_time_left(
    live_server, new_page, make_game, make_player, shift
):
    from tournaments.services import round_draw, round_start

    game = make_game(round_seconds=180)
    _, token = make_player(game, name="Chloé")
    page = new_page("phone", clock_shift_seconds=shift)
    page.goto(f"/join/{game.join_code}")
    page.evaluate(
        "([game, token]) => localStorage.setItem(`arbiter.game.${game}`, JSON.stringify({token, player: 0}))",
        [game.pk, token],
    )
    assert abs(page.evaluate("Date.now()") / 1000 - time.time() - shift) < 5  # the page's clock is off
    page.goto(f"/games/{game.pk}/play")
    round_start(round=round_draw(game=game, rack=RACK))
    page.wait_for_function("Number(document.getElementById('countdown').dataset.secondsLeft) > 0", timeout=1500)
    left = _seconds_shown(page)
    # Uncorrected, the page would show 60 s (clock fast) or 300 s (clock slow).
    assert 170 <= left <= 180
    assert re.fullmatch(r"[23]:\d\d", page.locator("#countdown").inner_text())
    offset = page.evaluate("import('/static/js/clock.js').then(m => m.serverClock.offset)")
    assert abs(offset / 1000 + shift) < 2


def test_projector_makes_the_30_second_call(live_server, new_page, make_game, screenshot):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.services import round_draw, round_start

    game = make_game(round_seconds=60)
    projector = new_page("laptop")
    projector.goto(f"/projector/{game.screen_key}")
    round_ = round_draw(game=game, rack=RACK)
    projector.wait_for_function("document.querySelectorAll('#rack .rtile').length === 7", timeout=1500)
    assert projector.locator("#countdown").inner_text() == "1:00"  # the round's time, before the start
    round_start(round=round_, now=timezone.now() - timedelta(seconds=28))  # 32 s left
    projector.wait_for_selector("#countdown.call-30", timeout=5000)
    assert projector.locator("#call").inner_text() in ("30 seconds left", "Plus que 30 secondes")
    assert 25 <= _seconds_shown(projector) <= 30
    screenshot(projector, "projector-call-30-1366")


def test_without_the_event_stream_the_phone_follows_by_polling(live_server, new_page, make_game, make_player):
    from tournaments.services import round_draw

    game = make_game()
    make_player(game, name="Dana")
    page = new_page("phone")
    page.route(re.compile(r".*/games/\d+/events.*"), lambda route: route.abort("connectionrefused"))
    page.goto(f"/games/{game.pk}/play")
    page.wait_for_function("document.getElementById('conn').dataset.state === 'polling'", timeout=10000)
    round_draw(game=game, rack=RACK)
    started = time.monotonic()
    page.wait_for_function("document.querySelectorAll('#rack .rtile').length === 7", timeout=3000)
    assert time.monotonic() - started < 2.5


def test_a_slip_waiting_for_the_network_survives_a_reload(live_server, new_page, make_game, make_player):
    from tournaments.models import Slip
    from tournaments.services import round_draw, round_start

    game = make_game(round_seconds=180)
    _, token = make_player(game, name="Émile", table=4)
    round_start(round=round_draw(game=game, rack=RACK))
    page = new_page("phone")
    page.goto(f"/join/{game.join_code}")
    page.evaluate(
        "([game, token]) => localStorage.setItem(`arbiter.game.${game}`, JSON.stringify({token, player: 0}))",
        [game.pk, token],
    )
    page.route(re.compile(r".*/rounds/1/slips$"), lambda route: route.abort("internetdisconnected"))
    page.goto(f"/games/{game.pk}/play")
    page.wait_for_selector("#who:has-text('Émile')")
    assert "table 4" in page.locator("#who").inner_text()
    page.locator("#slip-ref").fill("h8")
    page.locator("#slip-word").fill("sirenas")
    assert page.locator("#slip-word").input_value() == "SIRENAS"
    page.locator("#blank-toggles button").nth(6).click()
    page.locator("#slip-score").fill("70")
    page.locator("#slip-submit").click()
    page.wait_for_selector("#slip-status.status-warn")
    assert not Slip.objects.exists()

    page.unroute(re.compile(r".*/rounds/1/slips$"))
    page.reload()  # the network is back; the page sends the same slip again
    page.wait_for_selector("#slip-status.status-ok", timeout=5000)
    slip = Slip.objects.get()
    assert (slip.word, slip.ref, slip.claimed) == ("SIRENAs", "H8", 70)
    assert "H8" in page.locator("#receipt-text").inner_text()

    page.reload()  # what the server holds comes back on the receipt
    page.wait_for_selector("#receipt:not([hidden])", timeout=5000)
    assert page.locator("#slip-word").input_value() == "SIRENAS"
    assert page.locator("#blank-toggles button").nth(6).get_attribute("aria-pressed") == "true"
    assert Slip.objects.count() == 1


def test_a_player_of_game_one_plays_the_next_game_without_joining_again(live_server, new_page, make_game):
    from tournaments.services import game_create

    first = make_game()
    page = new_page("phone")
    _join(page, first.join_code, "Fanny")
    page.wait_for_selector("#who:has-text('Fanny')")
    second = game_create(tournament=first.tournament, seed=2)
    page.goto(f"/games/{second.pk}/play")
    page.wait_for_selector("#who:has-text('Fanny')")
    assert page.locator("#need-join").is_hidden()
    assert page.locator("#slip-form").is_visible()
