"""After a change to the results of a game played from a sealed pack or following a multiplex (a round closed,
a correction of a closed round, the game's end), the worker keeps a new version of the centre's results file and
pushes it to the organiser (tournaments/centre_results.py): queued by name once the change is committed."""

from __future__ import annotations

from django.db import transaction

from .schedule import schedule_results
from .sealed import is_sealed


def follows_relay(game_id: int) -> bool:
    """A game of this centre following an organiser's live game (a multiplex: tournaments/relay.py)."""
    from tournaments.relay_models import RelayLink

    return RelayLink.objects.filter(game_id=game_id).exists()


def results_changed(game_id: int) -> None:
    if is_sealed(game_id) or follows_relay(game_id):
        transaction.on_commit(lambda: schedule_results(game_id))
