"""Training on a past game: whether the game is open to it (the reads and the judging of a trainee's slips
are tournaments/training.py's, and write nothing)."""

from __future__ import annotations

from tournaments.errors import ServiceError
from tournaments.models import Game

from .logbook import log
from .roles import act_as, require_head

TRAINING_CHOICES = tuple(Game.Training.values)


def training_set(*, game: Game, value: str, actor=None) -> Game:
    """Open the game to training (``everyone``, ``members``) or close it (``closed``); logged."""
    act_as(require_head, game.pk, actor)
    if value not in TRAINING_CHOICES:
        raise ServiceError("invalid_training", f"training is one of {', '.join(TRAINING_CHOICES)}",
                           fields={"open": [f"one of {', '.join(TRAINING_CHOICES)}"]},
                           params={"value": str(value)[:20], "choices": ", ".join(TRAINING_CHOICES)})
    before = game.training
    if before != value:
        Game.objects.filter(pk=game.pk).update(training=value)
        game.training = value
        log(game=game, action="training_set", actor=actor, before={"training": before}, after={"training": value})
    return game
