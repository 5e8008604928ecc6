"""Run in a process of its own by test_backups.py, on the embedded default of DATA_DIR (SQLite):

    python tests/arbiter/backup_game.py play       migrate, play a short game (sheets_support.play_game)
    python tests/arbiter/backup_game.py standings  print every game's standings and round states as JSON
    python tests/arbiter/backup_game.py receipt    print the receipt of the first game's first slip (JSON)
    python tests/arbiter/backup_game.py check      check the receipt read from stdin (the console's check)
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


def receipt() -> None:
    from tournaments.models import Slip
    from tournaments.receipts import receipt_for

    slip = Slip.objects.select_related("round").order_by("round__game_id", "round__number", "pk").first()
    print(json.dumps(receipt_for(slip)))


def check() -> None:
    from tournaments.models import Game
    from tournaments.receipts import receipt_check

    shown = json.loads(sys.stdin.read())
    verdict = receipt_check(game=Game.objects.get(pk=shown["game"]), receipt=shown)
    print(json.dumps({name: verdict[name] for name in ("valid", "signer", "verdict")}))


if __name__ == "__main__":
    {"play": play, "standings": standings, "receipt": receipt, "check": check}[sys.argv[1]]()
