"""After a change to the results of a game played from a sealed pack (a round closed, a correction of a closed
round, the game's end), the worker keeps a new version of the centre's results file and pushes it to the
organiser (tournaments/centre_results.py): queued by name once the change is committed."""

from __future__ import annotations

from django.db import transaction

from .schedule import schedule_results
from .sealed import is_sealed


def results_changed(game_id: int) -> None:
    if is_sealed(game_id):
        transaction.on_commit(lambda: schedule_results(game_id))
