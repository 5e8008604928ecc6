"""A large game record played back by the worker, not within the request that brought it.

A record of 20,000 players takes minutes to play back: no request should be held that long (a proxy or the
client gives up, and a work slot of the server stays taken). The request checks the record's shape and seal
at once (a refusal is answered then, nothing queued), keeps the record's text in its ``RecordImport`` row
(the database: the web and worker containers share nothing else) and answers 202 with the job to follow; the worker's task (``tournaments.tasks.import_record``) plays it back
through ``restore.restore_record``, in one transaction as ever, telling its progress (players registered,
rounds played of the totals) through the shared cache, since the transaction's own writes are seen by nobody
until it commits. It ends with the new game, or with the refusal, which the job keeps.

A record of at most ``ARBITER_RECORD_INLINE_BYTES`` is played back within its request, answered 201 as
before. A job is run once: a second delivery of its task finds it no longer queued and does nothing; a
worker killed while it ran leaves nothing imported (the transaction) and the job ``running``: the
arbitrator sends the record again.
"""

from __future__ import annotations

import json
import logging
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.formats import iso
from tournaments.models import Player, RecordImport, Tournament

from .restore import restore_record

logger = logging.getLogger(__name__)

PROGRESS_SECONDS = 24 * 3600


def _progress_key(job_id) -> str:
    return f"record-import:{job_id}"


def inline_bytes() -> int:
    return int(getattr(settings, "ARBITER_RECORD_INLINE_BYTES", 1024 * 1024))


def queue_import(*, record: dict, tournament: Tournament, actor, size: int) -> RecordImport:
    """Keep the record (already checked: restore.check_record, check_seal) and queue its playback."""
    from tournaments.services import schedule_import

    job_id = uuid.uuid4()
    job = RecordImport.objects.create(
        id=job_id, tournament=tournament, actor=actor if getattr(actor, "is_authenticated", False) else None,
        record=json.dumps(record, ensure_ascii=False), size=size, players_total=len(record["players"]),
        rounds_total=len(record["rounds"]),
    )
    transaction.on_commit(lambda: schedule_import(str(job_id)))
    return job


def run_import(job_id: str) -> str:
    """The worker's part: play the kept record back; the job's status afterwards."""
    claimed = RecordImport.objects.filter(pk=job_id, status=RecordImport.Status.QUEUED).update(
        status=RecordImport.Status.RUNNING, started_at=timezone.now())
    job = RecordImport.objects.filter(pk=job_id).select_related("tournament", "actor").first()  # with its text
    if job is None or not claimed:
        return job.status if job is not None else "missing"

    def progress(players: int, rounds: int) -> None:
        cache.set(_progress_key(job.pk), {"players": players, "rounds": rounds}, timeout=PROGRESS_SECONDS)

    try:
        record = json.loads(job.record)
        game = restore_record(record=record, tournament=job.tournament, actor=job.actor, progress=progress)
    except ServiceError as refused:
        _finish(job, RecordImport.Status.REFUSED, error={"code": refused.code, "message": refused.message,
                                                          "fields": refused.fields, "params": refused.params})
    except Exception as error:  # the job must end, and say why
        logger.exception("record import %s failed", job.pk)
        _finish(job, RecordImport.Status.REFUSED, error={"code": "import_failed", "message": f"{type(error).__name__}",
                                                          "fields": {}, "params": {}})
    else:
        job.game = game
        job.players_done = Player.objects.in_game(game).count()
        job.rounds_done = job.rounds_total
        _finish(job, RecordImport.Status.DONE)
    return job.status


def _finish(job: RecordImport, status: str, error: dict | None = None) -> None:
    job.status, job.error, job.finished_at, job.record = status, error, timezone.now(), ""
    job.save(update_fields=["status", "error", "finished_at", "game", "players_done", "rounds_done", "record"])
    cache.delete(_progress_key(job.pk))


def job_body(job: RecordImport) -> dict:
    """GET /api/imports/{id}: where the playback is, then the game made or the refusal."""
    done = {"players": job.players_done, "rounds": job.rounds_done}
    if job.status == RecordImport.Status.RUNNING:
        done.update(cache.get(_progress_key(job.pk)) or {})
    game = job.game
    return {
        "id": str(job.pk),
        "url": f"/api/imports/{job.pk}",
        "tournament": job.tournament_id,
        "status": job.status,
        "size": job.size,
        "players": {"done": done["players"], "total": job.players_total},
        "rounds": {"done": done["rounds"], "total": job.rounds_total},
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "finished_at": iso(job.finished_at),
        "game": game.pk if game is not None else None,
        "number": game.number if game is not None else None,
        "record_seal": game.record_seal if game is not None else None,
        "error": {key: job.error.get(key) for key in ("code", "message", "fields")} if job.error else None,
    }
