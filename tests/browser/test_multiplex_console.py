"""The centre's console in a multiplex (tournaments/relay.py, docs/multiplex.md): the game screen says the link
to the organiser is up; once the organiser stops answering for ARBITER_RELAY_SILENT_SECONDS it says, through its
live stream and without a reload, that the link is down since when; the arbitrator types the rack read out over
the phone in the usual field; when the link comes back with the organiser's rack, a different one is shown as a
mismatch (never replaced) and the link is up again. Then the same screen in French.

One installation plays both parts here (the organiser's game and event, and the centre's game following it
through the relay's HTTP on the live server); the link's contacts are made by the test (relay.link_once), one at
a time, where a centre's worker loops them."""

from __future__ import annotations

import socket

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-multiplex-console"
ORGANISER_RACK = "AEINRST"
TYPED_RACK = "EEIRSTU"  # what the centre's arbitrator typed, misheard over the phone


@pytest.fixture
def arbitrator(console_arbitrator):
    return console_arbitrator


def log_in(page):
    page.goto("/console/")
    page.locator("#id_username").fill("arbitre")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("form:has(#id_password) button[type=submit]").click()
    page.wait_for_url(lambda url: url.endswith("/console/") and "login" not in url)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens there once the socket is closed


def test_the_centre_console_shows_the_link_up_down_and_a_mismatch(new_page, arbitrator, live_server, settings,
                                                                   screenshot):
    from tournaments import events, multiplex, relay, services
    from tournaments.models import LogEntry, Round
    from tournaments.relay_models import RelayLink

    # The organiser: its game opened to the event's centre.
    hall = services.game_create(tournament=services.tournament_create(name="Tours 2026 (hall)"), seed=5)
    event = events.event_create(name="Multiplex de Tours 2026", language="fr", actor=arbitrator)
    _, token = events.centre_register(event=event, code="c1", name="Club de Vichy")
    multiplex.game_open(event=event, game=hall, game_id="M1", actor=arbitrator)
    settings.ARBITER_ORGANISER_URL = live_server.url
    settings.ARBITER_ORGANISER_EVENT = str(event.pk)
    settings.ARBITER_ORGANISER_TOKEN = token
    settings.ARBITER_RELAY_POLL_SECONDS = 0
    settings.ARBITER_RELAY_SILENT_SECONDS = 1

    # The centre follows it (through the relay's HTTP), and its console shows the link up.
    game = relay.follow(tournament=services.tournament_create(name="Tours 2026 — Vichy"), actor=arbitrator)
    services.player_register(game=game, name="Ada", table=1)
    link = RelayLink.objects.get(game=game)
    assert relay.link_once(link)
    page = new_page(size="laptop")
    log_in(page)
    page.goto(f"/console/games/{game.pk}/")
    page.wait_for_selector("#relay-up")
    assert "Multiplex de Tours 2026" in page.locator("#relay-card").inner_text()
    assert page.locator("#relay-down").count() == 0
    assert page.locator("#draw-random").count() == 0  # the racks are the organiser's: no random draw here
    screenshot(page, "multiplex-link-up")

    # The organiser's line drops: after the silence the console says so, by itself.
    settings.ARBITER_ORGANISER_URL = f"http://127.0.0.1:{closed_port()}"
    services.round_start(round=services.round_draw(game=hall, rack=ORGANISER_RACK))
    wait_for(lambda: not relay.link_once(RelayLink.objects.get(pk=link.pk))
             and RelayLink.objects.get(pk=link.pk).down_since is not None, timeout=10, step=0.2)
    page.wait_for_selector("#relay-down", timeout=10000)
    down = page.locator("#relay-down").inner_text()
    assert "Link to the organiser down since" in down
    screenshot(page, "multiplex-link-down")

    # The arbitrator types the rack read out over the phone, through the usual field.
    page.locator("#id_rack").fill(TYPED_RACK)
    page.get_by_role("button", name="Use this rack").click()
    page.wait_for_selector("#rack")
    typed = Round.objects.get(game=game, number=1)
    assert typed.typed and sorted(typed.rack.replace("+", "")) == sorted(TYPED_RACK)

    # The line is back: the organiser's rack arrives, is compared, and the difference is shown, not replaced.
    settings.ARBITER_ORGANISER_URL = live_server.url
    assert relay.link_once(RelayLink.objects.get(pk=link.pk))
    page.wait_for_selector(".relay-mismatch", timeout=10000)
    page.wait_for_selector("#relay-up")
    mismatch = page.locator(".relay-mismatch").inner_text()
    assert "Round 1" in mismatch and "AEINRST" in mismatch and "is not the organiser's" in mismatch
    assert sorted(Round.objects.get(pk=typed.pk).rack.replace("+", "")) == sorted(TYPED_RACK)
    assert LogEntry.objects.filter(game=game, action="relay_rack_mismatch").count() == 1
    screenshot(page, "multiplex-mismatch")
    assert page.errors == []

    # The same screen in French.
    french = new_page(size="laptop", locale="fr-FR")
    log_in(french)
    french.goto(f"/console/games/{game.pk}/")
    french.wait_for_selector(".relay-mismatch")
    text = french.locator("#relay-card").inner_text()
    assert "Liaison avec l'organisateur établie" in text
    assert "n'est pas celui de l'organisateur" in french.locator(".relay-mismatch").inner_text()
    assert "Démarrer le chrono à l'arrivée du tirage" in text
    screenshot(french, "multiplex-mismatch-fr")
