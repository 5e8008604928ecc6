"""A round's paper slips complete by themselves: once every paper player of the closed round has a slip
entered (or a late one on record), the round is marked complete as the arbitrator's button marks it, logged
by the server with the reason that it was automatic; a paper player who handed in nothing leaves the button
to the arbitrator."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments import selectors, services
from tournaments.errors import ServiceError
from tournaments.live import snapshot as live_snapshot
from tournaments.models import LogEntry, Round
from tournaments.reasons import SLIPS_COMPLETE_AUTO
from tournaments.web.console.texts import log_reason_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

RACK = "AEINRST"


def open_round(game):
    return services.round_start(round=services.round_draw(game=game, rack=RACK))


def paper(round, arbitrator, table, word="RETAINS", ref="H2", score=70):
    return services.slip_enter_paper(round=round, table=table, word=word, ref=ref, score=score, actor=arbitrator)


def completions(round):
    return list(LogEntry.objects.filter(round=round, action="slips_complete"))


@pytest.fixture
def room(game, make_player):
    """Two paper players (tables 1 and 2) and one on a phone."""
    make_player(game, name="Ann", table=1)
    make_player(game, name="Bob", table=2)
    phone, _ = services.player_join(join_code=game.join_code, name="Phone")
    return game, phone


def test_the_last_paper_slip_typed_after_the_close_completes_the_round_by_itself(room, arbitrator):
    game, phone = room
    round = open_round(game)
    paper(round, arbitrator, 1)
    services.slip_submit(round=round, player=phone, word="RETAINS", ref="H2", score=70, key="p")
    services.round_close(round=round)
    round.refresh_from_db()
    assert not round.slips_complete and not completions(round)  # table 2 is missing
    assert selectors.standings_provisional(game)

    paper(round, arbitrator, 2, word="NASTIER", ref="H3", score=68)  # handed in on time, typed now
    round.refresh_from_db()
    assert round.slips_complete
    assert not selectors.standings_provisional(game)
    assert live_snapshot.game_snapshot(game.pk)["provisional"] is False
    (entry,) = completions(round)
    # Logged as the manual mark is, said to be automatic: by the server, with its reason.
    assert (entry.actor, entry.before, entry.reason) == (None, {"slips_complete": False}, SLIPS_COMPLETE_AUTO)
    assert entry.after == {"slips_complete": True, "by": "server"}
    with pytest.raises(ServiceError):  # the player has their slip now: nothing more is added
        paper(round, arbitrator, 2)
    assert len(completions(round)) == 1


def test_every_paper_slip_in_before_the_close_makes_the_round_final_at_once(room, arbitrator):
    game, _ = room
    round = open_round(game)
    paper(round, arbitrator, 1)
    paper(round, arbitrator, 2)
    services.round_close(round=round)
    round.refresh_from_db()
    assert round.slips_complete and not selectors.standings_provisional(game)
    (entry,) = completions(round)
    assert entry.reason == SLIPS_COMPLETE_AUTO
    close = LogEntry.objects.get(round=round, action="round_close")
    assert close.seq < entry.seq


def test_a_paper_player_who_handed_in_nothing_leaves_the_button_to_the_arbitrator(room, arbitrator, console):
    game, _ = room
    round = open_round(game)
    paper(round, arbitrator, 1)
    services.round_close(round=round)
    round.refresh_from_db()
    assert not round.slips_complete
    page = console.get(reverse("console-slips", args=[game.pk])).content.decode()
    assert 'id="slips-complete-button"' in page
    console.post(reverse("console-slips-complete", args=[game.pk, 1]))
    round.refresh_from_db()
    (entry,) = completions(round)
    assert round.slips_complete and entry.actor == arbitrator and entry.reason == ""


def test_a_late_paper_slip_counts_as_entered(room, arbitrator):
    game, _ = room
    round = open_round(game)
    paper(round, arbitrator, 1)
    services.round_close(round=round)
    bob = game.tournament.players.get(table=2)
    services.slip_enter_late(round=round, player=bob, word="RETAINS", ref="H2", score=70, actor=arbitrator)
    assert Round.objects.get(pk=round.pk).slips_complete
    assert completions(round)[0].reason == SLIPS_COMPLETE_AUTO


def test_the_automatic_mark_reads_in_french_in_the_log(settings):
    from django.utils import translation

    with translation.override("fr"):
        text = log_reason_text(SLIPS_COMPLETE_AUTO)
    assert text != SLIPS_COMPLETE_AUTO and "automatique" in text
