"""A crowd of slips served after the close (arrived in time, queued past the deadline): each judged in its own
transaction, their log entries chained many at a time (services.logbook.log_pending / flush_pending)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tournaments import selectors, services
from tournaments.models import LogEntry, PendingLogEntry, Result, Round, Slip
from tournaments.services.logbook import flush_pending, log, log_pending

from .threads_support import race


def _closed_round(make_game, make_player, players: int):
    game = make_game(round_seconds=180)
    crowd = [make_player(game, f"Player {i}")[0] for i in range(players)]
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"),
                               now=timezone.now() - timedelta(seconds=181))
    assert services.game_close_if_due(game_id=game.pk) is True
    return game, Round.objects.select_related("game__tournament").get(pk=rnd.pk), crowd


def _chain_holds(game) -> list[LogEntry]:
    check = selectors.log_check(game=game)
    assert check.ok, check.broken
    entries = list(LogEntry.objects.filter(game=game).order_by("seq"))
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    return entries


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
@pytest.mark.parametrize("deferred", [False, True], ids=["queued", "deferred"])
def test_a_crowd_served_after_the_close_is_judged_side_by_side_and_logged_once_each(make_game, make_player,
                                                                                     settings, deferred):
    settings.ARBITER_DEFER_LATE_SLIP_LOG = deferred
    game, rnd, crowd = _closed_round(make_game, make_player, 16)
    arrived = rnd.deadline - timedelta(milliseconds=200)  # stamped on arrival, served after the close
    answers = race([
        lambda i=i, player=player: services.slip_submit(round=rnd, player=player, word="MELANIC", ref="H4",
                                                        score=78 if i % 2 else 70, key=f"k{i}", now=arrived)
        for i, player in enumerate(crowd)
    ])

    assert all(isinstance(a, tuple) and a[1] for a in answers), answers
    for (slip, _), player in zip(answers, crowd, strict=True):
        result = Result.objects.get(round=rnd, player=player)
        assert result.slip_id == slip.pk and result.reason in ("ok", "wrong_score")
    assert not PendingLogEntry.objects.exists()
    late = [e for e in _chain_holds(game) if e.action == "slip_judged_late"]
    assert sorted(e.slip_id for e in late) == sorted(slip.pk for slip, _ in answers)
    assert all(e.before == {"result": {"paid": 0, "outcome": "zero", "reason": "no_slip"}} for e in late)
    assert all(e.after["by"] == "server" for e in late)  # the server judged them, as before

    # A phone that sends its slip again with the same key is answered with the slip held, and nothing is
    # judged or logged again.
    again = services.slip_submit(round=rnd, player=crowd[3], word="MELANIC", ref="H4", score=78, key="k3",
                                 now=arrived)
    assert again == (answers[3][0], False)
    assert LogEntry.objects.filter(game=game, action="slip_judged_late").count() == len(crowd)
    assert Slip.objects.filter(round=rnd).count() == len(crowd)


@pytest.mark.django_db
def test_pending_entries_join_the_chain_before_the_next_entry(make_game, make_player):
    game, rnd, (ann, bob) = _closed_round(make_game, make_player, 2)
    before = LogEntry.objects.filter(game=game).count()
    first = log_pending(game=game, round=rnd, player=ann, action="slip_judged_late", after={"n": 1}, by="player")
    log_pending(game=game, round=rnd, player=bob, action="slip_judged_late", after={"n": 2}, by="player")
    assert LogEntry.objects.filter(game=game).count() == before  # not chained yet

    log(game=game, round=rnd, action="round_note", after={"n": 3})
    entries = _chain_holds(game)
    assert [(e.action, e.after.get("n"), e.after["by"]) for e in entries[before:]] == [
        ("slip_judged_late", 1, "player"), ("slip_judged_late", 2, "player"), ("round_note", 3, "server")]
    assert not PendingLogEntry.objects.exists()
    assert flush_pending(game.pk, mine=first.pk) == 0  # already chained: nothing to do


@pytest.mark.django_db
def test_a_flush_chains_what_is_pending_in_the_order_written(make_game, make_player):
    game, rnd, (ann,) = _closed_round(make_game, make_player, 1)
    written = [log_pending(game=game, round=rnd, player=ann, action="slip_judged_late", after={"n": n},
                           by="player") for n in range(5)]
    assert flush_pending(game.pk, mine=written[2].pk) == 5
    entries = _chain_holds(game)
    assert [e.after["n"] for e in entries[-5:]] == [0, 1, 2, 3, 4]
    assert flush_pending(game.pk) == 0
