"""What a round costs the live read model, counted, never timed (bench/live_counts.py prints the same counts
for a hall; docs/operations.md, "The hall's live path"): a change that makes every slip rebuild the game's
snapshot, adds a query to a slip, or builds the closed round's snapshot twice fails here whatever the load of
the machine running it.

The counts are taken by wrapping the functions that do the work (each call goes on to the real one) and the
database cursor (every statement of every thread): nothing is stubbed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.backends import utils

from tournaments import reading, selectors, services
from tournaments.api import fast
from tournaments.live import snapshot as live
from tournaments.models import Result, Round
from tournaments.versions import game_version, progress_mark

from .api_support import asgi_post

pytestmark = pytest.mark.django_db(transaction=True)

RACK = "ACEILMN"
PLAYERS = 12
# SQL statements of a phone's accepted slip on the fast path (tournaments/api/fast.py): the token's player and
# the round in one query, the round's and the player's locks with the player's slips and the log chain's head (the
# receipt's) in one call, the insert. The embedded database (SQLite) takes the ORM's locking path: the round, the
# player, the slips, the chain's head, the insert.
SLIP_STATEMENTS = {"postgresql": 3, "sqlite": 7}


class Counts:
    def __init__(self, monkeypatch):
        self.builds = 0
        self.standings = 0
        self.statements = 0
        build, standings = live.build_snapshot, selectors.game_standings
        execute, executemany = utils.CursorWrapper.execute, utils.CursorWrapper.executemany

        def counted_build(game_id):
            self.builds += 1
            return build(game_id)

        def counted_standings(*args, **kwargs):
            self.standings += 1
            return standings(*args, **kwargs)

        def counted_execute(cursor, sql, params=None):
            self.statements += 1
            return execute(cursor, sql, params)

        def counted_executemany(cursor, sql, param_list):
            self.statements += 1
            return executemany(cursor, sql, param_list)

        monkeypatch.setattr(live, "build_snapshot", counted_build)
        monkeypatch.setattr(selectors, "game_standings", counted_standings)
        monkeypatch.setattr(utils.CursorWrapper, "execute", counted_execute)
        monkeypatch.setattr(utils.CursorWrapper, "executemany", counted_executemany)


@pytest.fixture
def hall(make_game, make_player, settings, isolated_cache, monkeypatch):
    settings.ALLOWED_HOSTS = ["localhost"]
    game = make_game(round_seconds=600)
    players = [make_player(game, f"Player {i + 1}") for i in range(PLAYERS)]
    round_ = services.round_compute_tops(round=services.round_start(round=services.round_draw(game=game, rack=RACK)))
    watcher_read(game.pk)  # the phones' streams opened before the round: its snapshot is there
    return {"game": game, "round": round_, "players": players, "counts": Counts(monkeypatch),
            "url": f"/api/games/{game.pk}/rounds/{round_.number}/slips"}


def watcher_read(game_id: int) -> dict:
    """What a live stream's watcher and a phone's /live poll read: the snapshot at the game's version, with its
    slip counts as of the progress mark."""
    snapshot = reading.game_snapshot(game_id)
    return live.with_progress(snapshot, progress_mark(game_id))


def slip(i: int) -> dict:
    return {"word": "MELANIC", "ref": "H4", "score": 78 if i % 3 else 70, "key": f"k{i}", "seq": i}


def hand_in(hall, i: int) -> None:
    _, token = hall["players"][i]
    before = fast.served["fast"]
    status, _, body = asgi_post(hall["url"], slip(i), f"Bearer {token}")
    assert (status, fast.served["fast"] - before) == (201, 1), body


def test_a_round_of_slips_rebuilds_no_snapshot_of_the_game_while_it_is_open(hall):
    """Slips move the progress mark, never the game's version: the snapshot built before the round serves
    every read while it is open, only its counts read again (README: 'no snapshot is rebuilt per slip')."""
    counts, game = hall["counts"], hall["game"]
    version = game_version(game.pk)
    for i in range(PLAYERS):
        hand_in(hall, i)
        shown = watcher_read(game.pk)
        assert shown["progress"]["received"] == i + 1  # each read saw the slip: the counts did move
    assert (counts.builds, counts.standings, game_version(game.pk)) == (0, 0, version)


def test_an_accepted_slip_on_the_fast_path_costs_its_few_statements(hall):
    counts = hall["counts"]
    for i in range(PLAYERS):
        before = counts.statements
        hand_in(hall, i)
        assert counts.statements - before == SLIP_STATEMENTS[connection.vendor], f"slip {i}"


def test_the_close_builds_the_snapshot_and_the_standings_once_for_all_their_readers(hall):
    """At the close every phone asks for the new state and its own line, the projector for the whole
    standings: one snapshot built, one standings computed. A slip that arrived in time and is served after the
    close changes the results: one more of each, not one per reader."""
    counts, game, round_ = hall["counts"], hall["game"], hall["round"]
    for i in range(PLAYERS - 1):
        hand_in(hall, i)
    deadline = Round.objects.get(pk=round_.pk).deadline
    # The clock's close at the deadline (the worker's task), the slips already in.
    assert services.round_close_if_due(round_id=round_.pk, now=deadline + timedelta(seconds=1))

    def everyone_reads():
        for _ in range(3):
            assert watcher_read(game.pk)["round_status"] == "closed"
        for player, _ in hall["players"]:
            assert live.player_view(game.pk, player.pk)["last_round"] == 1
        assert len(live.hall_standings(game.pk)["standings"]) == PLAYERS
        assert reading.live_body(game.pk)["round_status"] == "closed"

    everyone_reads()
    assert (counts.builds, counts.standings) == (1, 1)
    # The last player's slip, arrived before the end, served after the close: judged at once.
    last, _ = hall["players"][-1]
    closed = Round.objects.get(pk=round_.pk)
    services.slip_submit(round=closed, player=last, word="MELANIC", ref="H4", score=78, key="late-served",
                         now=closed.closed_at - timedelta(seconds=1))
    assert Result.objects.get(round=round_, player=last).paid == 78
    everyone_reads()
    assert (counts.builds, counts.standings) == (2, 2)
    assert live.player_view(game.pk, last.pk)["result"]["paid"] == 78
