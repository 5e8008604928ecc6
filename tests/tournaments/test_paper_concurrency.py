"""Several arbitrators typing paper slips at once on PostgreSQL: 4 laptops, 50 tables each, 200 tables of one
round, and 10 tables typed again by a second arbitrator. Nothing is lost or doubled; each double entry is
caught (409 second_slip), whichever of the two arrives second."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection
from django.test import Client

from tournaments import services
from tournaments.models import GameArbitrator, LogEntry, Slip

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("isolated_cache"),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's"),
]

LAPTOPS = 4
TABLES = 200
DOUBLED = 10


def test_four_arbitrators_type_200_tables_and_the_10_double_entries_are_caught(
        make_game, make_player, arbitrator, django_user_model):
    game = make_game(round_seconds=3600)
    for table in range(1, TABLES + 1):
        make_player(game, f"Player {table}", table=table)
    rnd = services.round_start(round=services.round_draw(game=game, rack="EIRST?A"))
    # One head runs the clock; four assistants type the slips, each on a laptop of their own.
    assistants = [django_user_model.objects.create_user(username=f"assistant{i}", password="pw", is_staff=True)
                  for i in range(LAPTOPS)]
    for user in assistants:
        services.arbitrator_set(game=game, username=user.username, role="assistant", actor=arbitrator)
    assert GameArbitrator.objects.filter(game=game).count() == LAPTOPS + 1

    share = TABLES // LAPTOPS
    batches = [list(range(1 + i * share, 1 + (i + 1) * share)) for i in range(LAPTOPS)]
    # 10 tables typed again by the next laptop, at the same point of its own batch: the two entries race.
    doubled = [batches[i % LAPTOPS][5 * (i // LAPTOPS) + i] for i in range(DOUBLED)]
    plans = [[(table, 12) for table in batch] for batch in batches]
    for table in doubled:
        owner = (table - 1) // share
        other = (owner + 1) % LAPTOPS
        position = batches[owner].index(table)
        plans[other].insert(position, (table, 13))  # a different score: another slip for the same table

    answers: list[list] = [[] for _ in range(LAPTOPS)]
    barrier = threading.Barrier(LAPTOPS)

    def laptop(i: int) -> None:
        client = Client()
        client.force_login(assistants[i])
        try:
            barrier.wait()
            for table, score in plans[i]:
                response = client.post(f"/console/games/{game.pk}/slips/enter/",
                                       {"round": rnd.number, "table": table, "word": "TARES", "ref": "H4",
                                        "score": score, "key": f"laptop{i}:{table}"},
                                       HTTP_ACCEPT="application/json")
                answers[i].append((table, response.status_code, response.json()))
        except Exception as error:  # the test reads the failure, not a silent thread
            answers[i].append(("error", repr(error), None))
        finally:
            connection.close()

    threads = [threading.Thread(target=laptop, args=(i,)) for i in range(LAPTOPS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)

    flat = [answer for per_laptop in answers for answer in per_laptop]
    assert len(flat) == TABLES + DOUBLED, [a for a in flat if a[0] == "error"]
    statuses = Counter(status for _, status, _ in flat)
    assert statuses == {201: TABLES, 409: DOUBLED}, statuses
    caught = sorted(table for table, status, body in flat if status == 409)
    assert caught == sorted(doubled)
    assert all(body["error"]["code"] == "second_slip" for _, status, body in flat if status == 409)

    # Exactly 200 slips held, one per table; nothing replaced, nothing doubled.
    slips = Slip.objects.filter(round=rnd)
    assert slips.count() == TABLES
    assert slips.filter(current=True).count() == TABLES
    assert sorted(slips.values_list("player__table", flat=True)) == list(range(1, TABLES + 1))
    assert not slips.filter(several=True).exists()
    assert LogEntry.objects.filter(round=rnd, action="slip_enter").count() == TABLES
    assert set(slips.values_list("entered_by__username", flat=True)) == {user.username for user in assistants}
    # Each table's slip is from one of the two arbitrators who typed it.
    for table in doubled:
        owner = (table - 1) // share
        typed_by = slips.get(player__table=table).entered_by.username
        assert typed_by in (assistants[owner].username, assistants[(owner + 1) % LAPTOPS].username)
