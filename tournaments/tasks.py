"""Celery tasks: each takes ids, calls one service, and is safe to run twice."""

import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(name="tournaments.tasks.ping")
def ping(token: str) -> str:
    """Proves that a worker is consuming the broker: records the token in the shared cache."""
    from django.core.cache import cache

    cache.set(f"ping:{token}", "pong", timeout=300)
    return token


@shared_task(name="tournaments.tasks.compute_tops")
def compute_tops(round_id: int) -> None:
    """Compute the tops of a round just drawn, so they are ready when it closes."""
    from tournaments.models import Round
    from tournaments.services import round_compute_tops

    round = Round.objects.filter(pk=round_id).first()
    if round is not None:
        round_compute_tops(round=round)


@shared_task(name="tournaments.tasks.close_round")
def close_round(round_id: int) -> bool:
    """The clock: close the round at its deadline. A duplicate, early or late run closes nothing twice."""
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.models import Round
    from tournaments.services import round_close_if_due

    round = Round.objects.filter(pk=round_id, status=Round.Status.OPEN).only("deadline", "game_id").first()
    if round is None:
        return False
    now = timezone.now()
    if round.deadline > now:  # delivered early (clocks differ): come back at the deadline
        close_round.apply_async(args=[round_id], countdown=max(0.05, (round.deadline - now + timedelta(
            milliseconds=20)).total_seconds()))
        return False
    closed = round_close_if_due(round_id=round_id, now=now)
    if closed:
        _warm_snapshot(round.game_id)
    return closed


def _warm_snapshot(game_id: int) -> None:
    """Build the pages' snapshot of the closed round at once, so the live streams find it ready."""
    from tournaments.live.snapshot import game_snapshot

    try:
        game_snapshot(game_id)
    except Exception:  # only a head start: the streams build it themselves otherwise
        logger.exception("could not build the snapshot of game %s after its close", game_id)


@shared_task(name="tournaments.tasks.sweep_overdue_rounds")
def sweep_overdue_rounds() -> int:
    """Every few seconds (Celery beat): close any round whose deadline passed without a close."""
    from tournaments.services import rounds_close_overdue

    return rounds_close_overdue()


@shared_task(name="tournaments.tasks.import_record")
def import_record(job_id: str) -> str:
    """Play back a game record kept by its import request (tournaments/exports/imports.py); run once."""
    from tournaments.exports.imports import run_import

    return run_import(job_id)


@shared_task(name="tournaments.tasks.backup_database")
def backup_database() -> str:
    """Copy the embedded database to DATA_DIR/backups/ (after every closed round; arbiter/backups.py)."""
    from arbiter.backups import backup

    return str(backup())


@shared_task(name="tournaments.tasks.centre_results")
def centre_results(game_id: int) -> int | None:
    """A sealed pack game's results changed (a round closed, a correction, the end): keep a new version of its
    results file and push it to the organiser when one is set (tournaments/centre_results.py)."""
    from tournaments.centre_results import results_changed

    version = results_changed(game_id)
    if version is None:
        return None
    push_centre_results.delay(version.pk, 1)
    return version.pk


@shared_task(name="tournaments.tasks.push_centre_results")
def push_centre_results(results_id: int, attempt: int = 1) -> str:
    """One attempt to push a results file to the organiser; not acknowledged and not refused, tried again after
    centre_results.retry_delay(attempt), at most ARBITER_RESULTS_PUSH_ATTEMPTS attempts in all."""
    from django.conf import settings

    from tournaments.centre_results import push_results, retry_delay

    last = attempt >= settings.ARBITER_RESULTS_PUSH_ATTEMPTS
    pushed = push_results(results_id, last_attempt=last)
    if pushed.outcome == "retry" and not last:
        push_centre_results.apply_async(args=[results_id, attempt + 1], countdown=retry_delay(attempt))
    return pushed.outcome
