"""A record larger than ARBITER_RECORD_INLINE_BYTES is played back by the worker: the request checks it and
answers 202 at once with a job; GET /api/imports/{id} shows its progress, then the game made or the refusal.

The task runs here in this process (Celery's own apply: the embedded default has no worker in the tests), and
through a real worker on PostgreSQL and Redis (the last test, skipped without them)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tournaments import selectors
from tournaments.exports import export_record
from tournaments.models import Game, RecordImport, Tournament

from .stack import wait_for
from .test_record_restore import _by_table, play_first_game

STANDINGS = ("name", "table", "total", "rank")


def _standings(game: Game) -> list[tuple]:
    return sorted(tuple(row[key] for key in STANDINGS) for row in selectors.game_standings(game=game))


@pytest.fixture
def assistant(django_user_model):
    return django_user_model.objects.create_user(username="assistant-import", password="x" * 12, is_staff=True)


def _post(client, tournament_id: int, record: dict):
    return client.post(f"/api/tournaments/{tournament_id}/imports/record", json.dumps(record),
                       content_type="application/json")


@pytest.mark.django_db
@pytest.mark.usefixtures("isolated_cache")
def test_a_large_record_is_queued_then_played_back_with_its_progress(make_tournament, arbitrator, assistant,
                                                                      arbitrator_client, settings):
    from tournaments.tasks import import_record

    original = play_first_game(make_tournament(name="Queued"), arbitrator, assistant)
    record = export_record(original)
    settings.ARBITER_RECORD_INLINE_BYTES = 1000  # this record is larger

    response = _post(arbitrator_client, original.tournament_id, record)

    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "queued" and response["Location"] == job["url"] == f"/api/imports/{job['id']}"
    assert job["players"] == {"done": 0, "total": 3} and job["rounds"] == {"done": 0, "total": 2}
    kept = RecordImport.objects.get(pk=job["id"])
    assert json.loads(kept.record) == record and kept.size == len(json.dumps(record).encode())
    assert not Game.objects.filter(tournament=original.tournament).exclude(pk=original.pk).exists()

    assert import_record.apply(args=[job["id"]]).get() == "done"
    assert import_record.apply(args=[job["id"]]).get() == "done"  # a second delivery does nothing

    done = arbitrator_client.get(job["url"]).json()
    assert done["status"] == "done" and done["error"] is None
    assert done["players"] == {"done": 3, "total": 3} and done["rounds"] == {"done": 2, "total": 2}
    game = Game.objects.get(pk=done["game"])
    assert done["record_seal"] == game.record_seal == "this_server"
    assert _by_table(game) == _by_table(original)
    assert Game.objects.filter(tournament=original.tournament).count() == 2
    assert RecordImport.objects.get(pk=job["id"]).record == ""  # not kept once played back


@pytest.mark.django_db
@pytest.mark.usefixtures("isolated_cache")
def test_a_queued_record_that_cannot_be_played_back_ends_refused_with_nothing_imported(
        make_tournament, arbitrator, assistant, arbitrator_client, settings):
    from tournaments.tasks import import_record

    original = play_first_game(make_tournament(name="Refused later"), arbitrator, assistant)
    record = json.loads(json.dumps(export_record(original)))
    record["rounds"][1].update(rack="QQQQQQQ", typed=True)
    del record["seal"]
    settings.ARBITER_RECORD_INLINE_BYTES = 1000
    games = Game.objects.count()
    job = _post(arbitrator_client, original.tournament_id, record).json()

    assert import_record.apply(args=[job["id"]]).get() == "refused"

    body = arbitrator_client.get(job["url"]).json()
    assert body["status"] == "refused" and body["game"] is None
    assert body["error"]["code"] == "not_in_bag" and body["error"]["message"]
    assert Game.objects.count() == games


@pytest.mark.django_db
def test_a_record_refused_by_its_checks_is_answered_at_once_and_not_queued(make_tournament, arbitrator, assistant,
                                                                           arbitrator_client, settings):
    original = play_first_game(make_tournament(name="Refused at once"), arbitrator, assistant)
    record = json.loads(json.dumps(export_record(original)))
    record["players"][0]["name"] = "Mallory"  # the seal no longer matches
    settings.ARBITER_RECORD_INLINE_BYTES = 1000
    response = _post(arbitrator_client, original.tournament_id, record)
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_seal"
    assert not RecordImport.objects.exists()


@pytest.mark.django_db
def test_only_the_arbitrator_who_sent_it_follows_an_import(make_tournament, arbitrator, assistant,
                                                          arbitrator_client, client, api_client, settings):
    original = play_first_game(make_tournament(name="Private"), arbitrator, assistant)
    settings.ARBITER_RECORD_INLINE_BYTES = 1000
    job = _post(arbitrator_client, original.tournament_id, export_record(original)).json()
    assert api_client.get(job["url"]).status_code == 401
    client.force_login(assistant)
    answer = client.get(job["url"])
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "import_not_found"
    assert arbitrator_client.get("/api/imports/8d5b1c9e-0000-4000-8000-000000000000").status_code == 404


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql" or not settings.BROKER.redis_url,
                    reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)")
def test_a_real_worker_plays_a_queued_record_back(worker, make_tournament, arbitrator, assistant,
                                                  arbitrator_client, settings):
    original = play_first_game(make_tournament(name="By the worker"), arbitrator, assistant)
    settings.ARBITER_RECORD_INLINE_BYTES = 1000
    started = time.monotonic()
    response = _post(arbitrator_client, original.tournament_id, export_record(original))
    assert response.status_code == 202, response.content
    url = response.json()["url"]
    done = wait_for(lambda: (body := arbitrator_client.get(url).json())["status"] in ("done", "refused") and body,
                    60)  # a bound, not a timing
    assert done, f"the worker did not finish the import in 60 s ({time.monotonic() - started:.1f} s)"
    assert done["status"] == "done", done
    game = Game.objects.get(pk=done["game"])
    assert game.tournament_id == original.tournament_id and _by_table(game) == _by_table(original)
    assert _standings(game) == _standings(original)
    assert Tournament.objects.filter(pk=original.tournament_id).exists()


# --------------------------------------------------------------------------------------------------
# The console's form


def _upload(record: dict, name: str = "record.json"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, json.dumps(record).encode(), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.usefixtures("isolated_cache")
def test_the_console_restores_a_small_record_and_the_game_says_whose_seal_it_bore(make_tournament, arbitrator,
                                                                                   assistant, console):
    original = play_first_game(make_tournament(name="Console restore"), arbitrator, assistant)
    url = f"/console/tournaments/{original.tournament_id}/restore/"
    assert 'href="' + url + '"' in console.get(f"/console/tournaments/{original.tournament_id}/").content.decode()
    response = console.post(url, {"file": _upload(export_record(original))})
    assert response.status_code == 302, response.content[:2000]
    game = Game.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert game.record_seal == "this_server"
    page = console.get(response["Location"]).content.decode()
    assert 'id="game-restored" data-seal="this_server"' in page and "Restored from a record sealed by this server" in page

    unsigned = json.loads(json.dumps(export_record(original)))
    del unsigned["seal"]
    page = console.get(console.post(url, {"file": _upload(unsigned)})["Location"]).content.decode()
    assert "Restored from an unsigned record" in page

    edited = json.loads(json.dumps(export_record(original)))
    edited["players"][1]["name"] = "Mallory"
    games = Game.objects.count()
    refused = console.post(url, {"file": _upload(edited)})
    assert refused.status_code == 400 and "changed after it was sealed" in refused.content.decode()
    assert Game.objects.count() == games


@pytest.mark.django_db
@pytest.mark.usefixtures("isolated_cache")
def test_the_console_follows_a_large_record_played_back_by_the_worker(make_tournament, arbitrator, assistant,
                                                                      console, settings):
    from tournaments.tasks import import_record

    original = play_first_game(make_tournament(name="Console job"), arbitrator, assistant)
    settings.ARBITER_RECORD_INLINE_BYTES = 1000
    response = console.post(f"/console/tournaments/{original.tournament_id}/restore/",
                            {"file": _upload(export_record(original))})
    assert response.status_code == 302 and response["Location"].startswith("/console/imports/")
    page = console.get(response["Location"]).content.decode()
    assert 'data-status="queued"' in page and 'http-equiv="refresh"' in page and "0 / 3" in page
    job_id = response["Location"].rstrip("/").rsplit("/", 1)[1]
    assert import_record.apply(args=[job_id]).get() == "done"
    page = console.get(response["Location"]).content.decode()
    game = RecordImport.objects.get(pk=job_id).game
    assert 'data-status="done"' in page and 'http-equiv="refresh"' not in page and "3 / 3" in page
    assert f'href="/console/games/{game.pk}/"' in page


@pytest.mark.worker
def test_on_the_embedded_default_a_real_worker_plays_a_queued_record_back(tmp_path):
    """In a process of its own, on a scratch DATA_DIR: a SQLite file and the filesystem broker, as make run."""
    import os
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "PYTEST_XDIST_WORKER")}
    env.update(DATA_DIR=str(tmp_path), DEBUG="1")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "tests" / "tournaments" / "embedded_import.py")], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    body = json.loads(done.stdout.strip().splitlines()[-1])
    log = (tmp_path / "worker.log").read_text()
    assert body["status"] == "done", (body, log[-3000:])
    assert body["players"] == {"done": 5, "total": 5} and body["record_seal"] == "this_server"
    assert "tournaments.tasks.import_record" in log and "succeeded" in log
