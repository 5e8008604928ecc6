"""Incidents in real Chromium: the head arbitrator pauses the clock from the console with the keyboard; a phone
and the projector show the pause within a second, their countdowns stand still, and run again from the
time that was left once resumed; a cancelled round is told to the phone with its reason."""

from __future__ import annotations

import math
import time

import pytest

from .support import console_login, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-incidents"
RACK = "AEINRST"


def seconds_shown(page) -> int:
    value = page.locator("#countdown").get_attribute("data-seconds-left")
    return int(value) if value is not None else -1


def log_in(page):
    page.goto("/console/")
    console_login(page, PASSWORD)


def clock_text(seconds: float) -> str:
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def test_a_pause_shows_on_phone_and_projector_within_a_second_and_the_countdown_resumes(
        live_server, new_page, make_game, make_player, console_arbitrator, screenshot):
    from tournaments import services
    from tournaments.models import Round

    game = make_game(round_seconds=120)
    _, token = make_player(game, name="Chloé", table=3)
    phone = new_page("phone")
    phone.goto(f"/join/{game.join_code}")
    phone.evaluate(
        "([game, token]) => localStorage.setItem(`arbiter.game.${game}`, JSON.stringify({token, player: 0}))",
        [game.pk, token],
    )
    phone.goto(f"/games/{game.pk}/play")
    projector = new_page("laptop")
    projector.goto(f"/projector/{game.screen_key}")
    console = new_page("laptop")
    log_in(console)
    round_ = services.round_start(round=services.round_draw(game=game, rack=RACK))
    console.goto(f"/console/games/{game.pk}/")
    for page in (phone, projector):
        page.wait_for_function("Number(document.getElementById('countdown').dataset.secondsLeft) > 0", timeout=3000)
    time.sleep(1.2)

    # Each screen notes the moment its countdown shows the pause (the same machine's clock as the server's).
    watch = """() => {
      window.pausedShownAt = null;
      const el = document.getElementById('countdown');
      new MutationObserver(() => {
        if (el.classList.contains('paused') && window.pausedShownAt === null) window.pausedShownAt = Date.now();
      }).observe(el, { attributes: true, attributeFilter: ['class'] });
    }"""
    for page in (phone, projector):
        page.evaluate(watch)
    # The head arbitrator pauses from the keyboard: P puts the cursor in the reason, Enter pauses.
    console.evaluate("document.activeElement && document.activeElement.blur()")
    console.keyboard.press("p")
    assert console.evaluate("document.activeElement.id") == "pause-reason"
    console.keyboard.type("a player was taken ill")
    console.keyboard.press("Enter")
    paused = wait_for(lambda: Round.objects.filter(pk=round_.pk, paused_at__isnull=False).first(), timeout=5)
    shown = {}
    for name, page in (("phone", phone), ("projector", projector)):
        page.wait_for_selector("#countdown.paused", timeout=2000)
        shown[name] = page.evaluate("window.pausedShownAt") / 1000 - paused.paused_at.timestamp()
    print(f"pause shown after: phone {shown['phone']:.3f} s, projector {shown['projector']:.3f} s")
    assert 0 <= min(shown.values()) and max(shown.values()) < 1.0, shown
    frozen = clock_text(paused.time_left)
    assert phone.locator("#countdown").inner_text() == frozen
    assert projector.locator("#countdown").inner_text() == frozen
    assert phone.locator("#phase").inner_text() == "Clock paused by the arbitrator: wait"
    assert projector.locator("#call").inner_text() == "Clock paused by the arbitrator: wait"
    # The slip form waits; the console says the clock is paused, with its time left.
    assert phone.locator("#slip-form button[type=submit]").is_disabled()
    console.wait_for_selector("#paused-clock")
    assert console.locator("#paused-clock").inner_text() == frozen
    assert console.locator("#close-button").count() == 0
    screenshot(phone, "incident-paused-phone")
    screenshot(projector, "incident-paused-projector")
    screenshot(console, "incident-paused-console")
    time.sleep(1.5)  # the countdowns stand still
    assert phone.locator("#countdown").inner_text() == frozen
    assert projector.locator("#countdown").inner_text() == frozen

    # R resumes: every countdown runs again from the time that was left.
    console.evaluate("document.activeElement && document.activeElement.blur()")
    console.keyboard.press("r")
    resumed = wait_for(lambda: Round.objects.filter(pk=round_.pk, paused_at__isnull=True).first(), timeout=5)
    for page in (phone, projector):
        page.wait_for_selector("#countdown:not(.paused)", timeout=1000)
        page.wait_for_function("Number(document.getElementById('countdown').dataset.secondsLeft) > 0", timeout=1000)
        assert abs(seconds_shown(page) - paused.time_left) <= 1.5
    assert resumed.deadline > round_.deadline
    time.sleep(2.2)
    for page in (phone, projector):
        assert paused.time_left - 4 <= seconds_shown(page) <= paused.time_left - 1
    assert phone.locator("#slip-form button[type=submit]").is_enabled()
    assert not phone.errors and not projector.errors and not console.errors, (phone.errors, projector.errors)


def test_a_round_cancelled_at_the_console_is_told_to_the_phone(
        live_server, new_page, make_game, make_player, console_arbitrator, screenshot):
    from tournaments import services
    from tournaments.models import Round

    game = make_game(round_seconds=120)
    _, token = make_player(game, name="Dora", table=1)
    phone = new_page("phone")
    phone.goto(f"/join/{game.join_code}")
    phone.evaluate(
        "([game, token]) => localStorage.setItem(`arbiter.game.${game}`, JSON.stringify({token, player: 0}))",
        [game.pk, token],
    )
    phone.goto(f"/games/{game.pk}/play")
    services.round_start(round=services.round_draw(game=game, rack=RACK))
    phone.wait_for_function("Number(document.getElementById('countdown').dataset.secondsLeft) > 0", timeout=3000)
    console = new_page("laptop")
    log_in(console)
    console.goto(f"/console/games/{game.pk}/")
    asked = []
    console.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    console.evaluate("document.activeElement && document.activeElement.blur()")
    console.keyboard.press("x")
    console.keyboard.type("the wrong rack was announced")
    console.keyboard.press("Enter")
    phone.wait_for_function(
        "document.getElementById('phase').textContent.includes('the wrong rack was announced')", timeout=3000)
    assert asked and "Cancel round 1?" in asked[0]  # the confirmation came first
    assert phone.locator("#phase").inner_text() == "Round 1 cancelled: the wrong rack was announced"
    assert Round.objects.get(game=game, status=Round.Status.CANCELLED).cancel_reason == "the wrong rack was announced"
    console.wait_for_selector("#round-cancelled")
    screenshot(phone, "incident-cancelled-phone")
    screenshot(console, "incident-cancelled-console")
    assert not phone.errors and not console.errors, (phone.errors, console.errors)
