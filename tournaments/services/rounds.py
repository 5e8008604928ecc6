"""The round in play, the end of a game, and the message of a result that reads late."""

from __future__ import annotations

from django.utils import timezone

from tournaments.models import Game, Round
from tournaments.versions import notify_game_changed

from .logbook import log
from .results_hooks import results_changed


def late_message(late_by: float) -> str:
    """The message of a result that reads late."""
    return f"the slip arrived {late_by:.1f} s after the end call"


def round_in_play(game: Game) -> Round | None:
    return game.rounds.in_play().first()


def end_game(game: Game, reason: str, actor=None) -> None:
    game.status = Game.Status.OVER
    game.end_reason = reason
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "end_reason", "ended_at"])
    log(game=game, action="game_end", actor=actor, after={"reason": reason})
    notify_game_changed(game.pk)
    results_changed(game.pk)  # a sealed pack game's final results file
