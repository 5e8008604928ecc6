"""What the database itself refuses: the constraints declared on the models and the append-only log."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from tournaments import services
from tournaments.models import LogEntry, Result, Round, Slip

pytestmark = pytest.mark.django_db


def refused(make, error=IntegrityError):
    """``make`` is refused by the database with ``error`` (a broken constraint: IntegrityError), and nothing
    is written."""
    with pytest.raises(error), transaction.atomic():
        make()


@pytest.fixture
def open_round(game):
    return services.round_start(round=services.round_draw(game=game))


def slip(rnd, player, **fields):
    values = {"word": "HELLO", "ref": "H4", "claimed": 8, "key": "k", "received_at": timezone.now()}
    values.update(fields)
    return Slip.objects.create(round=rnd, player=player, **values)


def test_slip_constraints(open_round, make_player):
    player, _ = make_player(open_round.game)
    refused(lambda: slip(open_round, player, claimed=-1))
    first = slip(open_round, player)
    refused(lambda: slip(open_round, player))  # same key
    refused(lambda: slip(open_round, player, key="other"))  # a second current slip
    replaced = slip(open_round, player, key="other", current=False)
    assert replaced.pk != first.pk


def test_one_round_in_play_per_game_and_numbers_unique(game):
    rnd = services.round_draw(game=game)
    refused(lambda: Round.objects.create(game=game, number=2, rack="ABCDEFG"))
    refused(lambda: Round.objects.create(game=game, number=1, rack="ABCDEFG", status="closed"))
    refused(lambda: Round.objects.filter(pk=rnd.pk).update(status="open"))  # open needs a deadline
    Round.objects.create(game=game, number=1, rack="ABCDEFG", status="cancelled")  # cancelled ones may repeat


def test_result_constraints(open_round, make_player):
    player, _ = make_player(open_round.game)
    refused(lambda: Result.objects.create(round=open_round, player=player, paid=5, outcome="zero", reason="x"))
    refused(lambda: Result.objects.create(round=open_round, player=player, paid=0, outcome="great", reason="x"))
    Result.objects.create(round=open_round, player=player, paid=0, outcome="zero", reason="no_slip")
    refused(lambda: Result.objects.create(round=open_round, player=player, paid=3, outcome="ok", reason="ok"))


def test_log_is_append_only(game):
    services.round_draw(game=game)
    entry = LogEntry.objects.get(action="round_draw")
    entry.reason = "rewritten"
    with pytest.raises(ValueError):
        entry.save()
    with pytest.raises(ValueError):
        entry.delete()
    if connection.vendor == "postgresql":
        # The append-only trigger raises its own error, not a constraint's.
        refused(lambda: LogEntry.objects.filter(pk=entry.pk).update(reason="rewritten"), DatabaseError)
        refused(lambda: LogEntry.objects.filter(pk=entry.pk).delete(), DatabaseError)
    entry.refresh_from_db()
    assert entry.reason == ""
