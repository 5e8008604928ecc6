"""A follower's public results page (tournaments/public.py) stays open on a phone while the arbitrator closes a
round in the console: the page shows the new round's master and standings without a reload (it polls the feed
with If-None-Match), and nothing of the round while it was in play."""

from __future__ import annotations

import pytest

from .support import console_login, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

PASSWORD = "pw-public-results"


def _round(game, arbitrator, players, close: bool):
    from tournaments import services

    rnd = services.round_compute_tops(round=services.round_draw(game=game, actor=arbitrator))
    services.round_start(round=rnd, actor=arbitrator)
    rnd.refresh_from_db()
    top = rnd.tops[0]
    for i, player in enumerate(players):
        if i % 2 == 0:
            services.slip_submit(round=rnd, player=player, word=top["word"], ref=top["ref"], score=top["score"],
                                 key=f"r{rnd.number}-{player.pk}", entered_by=arbitrator)
    if close:
        services.round_close(round=rnd, actor=arbitrator)
    rnd.refresh_from_db()
    return rnd


def test_an_open_page_follows_the_close_without_a_reload(new_page, console_arbitrator, live_server, screenshot,
                                                         settings):
    from tournaments import public, services
    from tournaments.models import Round

    settings.ARBITER_PUBLIC_POLL_SECONDS = 1
    arbitrator = console_arbitrator
    tournament = services.tournament_create(name="Festival de Vichy", language="fr", round_seconds=600)
    game = services.game_create(tournament=tournament, seed=31, actor=arbitrator)
    people = [("Ann Leroy", "1", "Junior"), ("Bruno Petit", "2", "Cadet"), ("Claire Dubois", "1", "Cadet"),
              ("David Martin", "3", "Junior")]
    players = [services.player_register(game=game, name=name, table=i + 1, series=series, category=category,
                                        actor=arbitrator)[0] for i, (name, series, category) in enumerate(people)]
    one = _round(game, arbitrator, players, close=True)
    two = _round(game, arbitrator, players, close=False)
    assert two.status == Round.Status.OPEN
    # The head turns the link on at the console's tournament page, and gives its address out.
    console = new_page(size="laptop")
    console.goto("/console/")
    console_login(console, PASSWORD)
    console.goto(f"/console/tournaments/{tournament.pk}/")
    console.get_by_role("button", name="Turn the public link on").click()
    console.wait_for_selector("#public-link-address")
    link = public.link_of(tournament=tournament)
    assert link.enabled and console.locator("#public-link-address").inner_text().endswith(f"/results/{link.key}/")
    screenshot(console, "public-results-console-link", full_page=True)
    address = console.locator("#public-link-address").get_attribute("href")

    follower = new_page(size="phone", locale="en-GB")
    follower.goto(address)
    follower.wait_for_selector("#public-round-1")
    assert follower.locator("html").get_attribute("lang") == "fr"
    assert follower.locator("#public-round-2").count() == 0
    text = follower.locator("#public-results").inner_text()
    assert one.master["word"] in text and two.rack not in text
    assert "Classement" in text and "après 1 coup" in text
    follower.evaluate("window.followerMark = 'no reload'")
    screenshot(follower, "public-results-before-close", full_page=True)

    console.goto(f"/console/games/{game.pk}/")
    console.once("dialog", lambda dialog: dialog.accept())
    console.get_by_role("button", name="Close the round now").click()
    wait_for(lambda: Round.objects.get(pk=two.pk).status == Round.Status.CLOSED)
    two.refresh_from_db()

    follower.wait_for_selector("#public-round-2", timeout=15000)
    assert follower.evaluate("window.followerMark") == "no reload"
    text = follower.locator("#public-results").inner_text()
    assert two.master["word"] in text and "après 2 coups" in text
    first = follower.locator("#public-standings tbody tr").first.inner_text()
    assert str(one.top_score + two.top_score) in first  # the leader played both tops
    assert follower.errors == []
    screenshot(follower, "public-results-after-close", full_page=True)

    # A filter chosen on the phone: the page of that series, still following.
    follower.select_option("select[name=series]", "1")
    follower.wait_for_url("**series=1**")
    rows = follower.locator("#public-standings tbody tr")
    assert rows.count() == 2
    screenshot(follower, "public-results-series-1", full_page=True)
