"""Time of a large game record's import: the request, and the whole playback, within the request (as before)
and by the worker's task (a record above ARBITER_RECORD_INLINE_BYTES: the request answers 202 at once).

A game of one round is played (rack ACEILMN typed, three players); its record is widened to --players
players, each handing in a slip in the round, and imported over Django's test client (no server, no
network) into the same tournament twice:
- inline: ARBITER_RECORD_INLINE_BYTES above the record's size: the request plays it back and answers 201;
- queued: the default size: the request checks the record, keeps it and answers 202; the task then runs in
  this process (as a worker would) and GET /api/imports/{id} shows it done.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_import REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/import_record.py [--players 20000]

The database named in DATABASE_URL is dropped and created again (it must not be a real one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=20000)
    parser.add_argument("--skip-inline", action="store_true", help="time the queued import only")
    args = parser.parse_args()
    args.players = max(3, min(args.players, 50000))
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        raise SystemExit("set DATABASE_URL to a scratch PostgreSQL database (it is dropped)")
    name, base = url.rsplit("/", 1)[1], url.rsplit("/", 1)[0]
    subprocess.run(["psql", f"{base}/postgres", "-qc", f'DROP DATABASE IF EXISTS "{name}"'], check=True)
    subprocess.run(["psql", f"{base}/postgres", "-qc", f'CREATE DATABASE "{name}"'], check=True)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client
    from django.utils import timezone

    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    cache.clear()

    from tournaments import services
    from tournaments.exports import export_record
    from tournaments.models import Game, Player
    from tournaments.tasks import import_record

    user = get_user_model().objects.create_user(username="bench", password="x" * 12, is_staff=True)
    tournament = services.tournament_create(name="Import bench", round_seconds=180)
    game = services.game_create(tournament=tournament, seed=7)
    for i in range(3):
        services.player_register(game=game, name=f"Seed {i}")
    start = timezone.now().replace(microsecond=0) - timedelta(hours=1)
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"), now=start)
    services.round_close(round=rnd, now=rnd.deadline)
    services.game_end(game=game)
    game.refresh_from_db()
    record = json.loads(json.dumps(export_record(game)))
    del record["seal"]  # widened below: an unsigned record (imported and marked so)
    received = (start + timedelta(seconds=30)).isoformat()
    for i in range(args.players - 3):
        key = 10_000_000 + i
        record["players"].append({"key": key, "name": f"Player {i:05d}", "table": None, "series": "",
                                  "arrival_round": 0})
        record["rounds"][0]["slips"].append({"player": key, "word": "MELANIC", "ref": "H4", "claimed": 78,
                                             "key": f"s{i}", "received_at": received, "entered": False})
    body = json.dumps(record)
    print(f"record: {len(record['players'])} players, {len(record['rounds'][0]['slips'])} slips, "
          f"{len(body) / 1e6:.1f} MB")
    client = Client()
    client.force_login(user)
    path = f"/api/tournaments/{tournament.pk}/imports/record"

    if not args.skip_inline:
        settings.ARBITER_RECORD_INLINE_BYTES = len(body) + 1
        t0 = time.perf_counter()
        response = client.post(path, body, content_type="application/json")
        inline = time.perf_counter() - t0
        assert response.status_code == 201, response.content[:500]
        print(f"inline (201): the request took {inline:.1f} s, the whole import with it")

    settings.ARBITER_RECORD_INLINE_BYTES = min(1024 * 1024, len(body) - 1)
    t0 = time.perf_counter()
    response = client.post(path, body, content_type="application/json")
    request = time.perf_counter() - t0
    assert response.status_code == 202, response.content[:500]
    job = response.json()
    t1 = time.perf_counter()
    assert import_record.apply(args=[job["id"]]).get() == "done"
    task = time.perf_counter() - t1
    done = client.get(job["url"]).json()
    played = Game.objects.get(pk=done["game"])
    print(f"queued (202): the request took {request:.2f} s; the task {task:.1f} s; "
          f"{done['players']['done']} players, {Player.objects.in_game(played).count()} in the game")


if __name__ == "__main__":
    main()
