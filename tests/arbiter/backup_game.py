"""Run in a process of its own by test_backups.py, on the embedded default of DATA_DIR (SQLite):

    python tests/arbiter/backup_game.py play       migrate, play a short game (sheets_support.play_game)
    python tests/arbiter/backup_game.py standings  print every game's standings and round states as JSON
"""

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "tournaments")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402


def play() -> None:
    from sheets_support import play_game

    from arbiter.celery import prepare_broker_folders
    from tournaments import services

    prepare_broker_folders()
    call_command("migrate", interactive=False, verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="head", defaults={"is_staff": True})
    tournament = services.tournament_create(name=os.environ.get("TOURNAMENT", "Backup open"), created_by=user)
    played = play_game(tournament, user, rounds=int(os.environ.get("ROUNDS", "2")), end=False)
    print(json.dumps({"game": played.game.pk}))


def standings() -> None:
    from tournaments.models import Game
    from tournaments.selectors import game_standings

    out = {}
    for game in Game.objects.order_by("pk"):
        out[game.pk] = {"standings": game_standings(game=game),
                        "rounds": list(game.rounds.order_by("number").values_list("number", "status", "rack"))}
    print(json.dumps(out, default=str, sort_keys=True))


if __name__ == "__main__":
    {"play": play, "standings": standings}[sys.argv[1]]()
