"""The services' one way to the worker: the Celery tasks are queued here by their registered names
(tournaments/tasks.py registers them), so that no service imports the tasks and the tasks alone import the
services. Each is queued from a thread of its own, after the change was saved and answered."""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from celery import current_app

logger = logging.getLogger(__name__)

# The names the tasks are registered under (tournaments/tasks.py, @shared_task(name=...)).
CLOSE_ROUND = "tournaments.tasks.close_round"
COMPUTE_TOPS = "tournaments.tasks.compute_tops"
BACKUP_DATABASE = "tournaments.tasks.backup_database"
IMPORT_RECORD = "tournaments.tasks.import_record"
CENTRE_RESULTS = "tournaments.tasks.centre_results"
PUSH_RESULTS = "tournaments.tasks.push_centre_results"

_sender: ThreadPoolExecutor | None = None
_sender_pid: int | None = None


def send_in_background(send, what: str) -> None:
    """Queue a task from a thread of its own, after the change was saved and answered: a broker that is
    down or hung never holds a request. A task that cannot be queued is logged; nothing depends on it
    alone (the close computes missing tops, the sweep and the first request after the deadline close)."""
    global _sender, _sender_pid
    if _sender is None or _sender_pid != os.getpid():  # one per process (Celery's workers are forked)
        _sender, _sender_pid = ThreadPoolExecutor(max_workers=1, thread_name_prefix="task-sender"), os.getpid()

    def run():
        try:
            send()
        except Exception:
            logger.exception("could not queue %s", what)

    _sender.submit(run)


def _send(name: str, *, args: list, what: str, **options) -> None:
    send_in_background(lambda: current_app.send_task(name, args=args, **options), what)


def schedule_close(round_id: int, deadline: datetime) -> None:
    """The clock: the round's close, delivered at its deadline."""
    _send(CLOSE_ROUND, args=[round_id], eta=deadline, what=f"the close of round {round_id}")


def schedule_open_closes() -> None:
    """The close of every open round (its clock running) queued again, at its deadline: the worker calls this on
    each connection to the broker (arbiter/celery.py, QueueOpenCloses). A worker that lost its broker dropped
    the closes it held until their deadline, and a Redis started again may have kept none of them; a round
    already past its deadline is closed at once. A close queued twice closes nothing twice."""

    def send() -> None:
        from django.db import connections

        from tournaments.models import Round

        try:
            open_rounds = list(Round.objects.filter(status=Round.Status.OPEN, paused_at__isnull=True,
                                                    deadline__isnull=False).values_list("pk", "deadline"))
        finally:
            connections.close_all()  # this thread's own connection: it goes back now, not when the worker ends
        for round_id, deadline in open_rounds:
            current_app.send_task(CLOSE_ROUND, args=[round_id], eta=deadline)
        if open_rounds:
            logger.info("the close of %d open round(s) queued again", len(open_rounds))

    send_in_background(send, "the closes of the open rounds")


def schedule_tops(round_id: int) -> None:
    """The tops of a round just drawn, computed by the worker so they are ready when it closes."""
    _send(COMPUTE_TOPS, args=[round_id], what=f"the tops of round {round_id}")


def schedule_backup() -> None:
    """A copy of the embedded database (arbiter/backups.py)."""
    _send(BACKUP_DATABASE, args=[], what="a backup of the database")


def schedule_import(job_id: str) -> None:
    """The play-back of a game record kept by its import request (tournaments/exports/imports.py)."""
    _send(IMPORT_RECORD, args=[str(job_id)], what="record import")


def schedule_results(game_id: int) -> None:
    """A new version of a sealed pack game's results file, kept and pushed to the organiser
    (tournaments/centre_results.py)."""
    _send(CENTRE_RESULTS, args=[int(game_id)], what=f"the results file of game {game_id}")


def schedule_push(results_id: int) -> None:
    """A kept results file pushed to the organiser again (its first attempt)."""
    _send(PUSH_RESULTS, args=[int(results_id), 1], what=f"the push of results file {results_id}")
