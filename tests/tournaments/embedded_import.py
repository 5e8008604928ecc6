"""Run by test_record_import_job.py in a process of its own, on the embedded default in a scratch DATA_DIR
(a SQLite file, the filesystem broker): a queued record import played back by a real Celery worker started
as ``make run`` starts it (``celery -A arbiter worker``). Prints the job's last body as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "arbiter.settings.dev"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.utils import timezone

    from arbiter.celery import prepare_broker_folders
    from tournaments import services
    from tournaments.exports import export_record

    assert settings.BROKER.redis_url is None and settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
    call_command("migrate", verbosity=0)
    prepare_broker_folders()
    settings.ALLOWED_HOSTS = ["*"]
    log = open(Path(settings.DATA_DIR) / "worker.log", "wb")  # noqa: SIM115 (the worker writes it)
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "arbiter", "worker", "--concurrency", "1",
                               "--loglevel", "info"], cwd=ROOT, env=dict(os.environ), stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        user = get_user_model().objects.create_user(username="embedded", password="x" * 12, is_staff=True)
        tournament = services.tournament_create(name="Embedded", round_seconds=180)
        game = services.game_create(tournament=tournament, seed=3)
        for i in range(5):
            services.player_register(game=game, name=f"P{i}")
        start = timezone.now() - timedelta(hours=1)
        rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"), now=start)
        services.round_close(round=rnd, now=rnd.deadline)
        services.game_end(game=game)
        game.refresh_from_db()
        settings.ARBITER_RECORD_INLINE_BYTES = 100
        client = Client()
        client.force_login(user)
        response = client.post(f"/api/tournaments/{tournament.pk}/imports/record",
                               json.dumps(export_record(game)), content_type="application/json")
        assert response.status_code == 202, response.content
        body = response.json()
        deadline = time.monotonic() + 90
        while body["status"] not in ("done", "refused") and time.monotonic() < deadline:
            time.sleep(0.2)
            body = client.get(body["url"]).json()
        print(json.dumps(body))
    finally:
        worker.terminate()
        worker.wait(20)


if __name__ == "__main__":
    main()
