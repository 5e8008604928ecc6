"""The Celery application: configuration comes from Django settings (CELERY_* names)."""

import os

from celery import Celery, signals

from . import broker  # noqa: F401 - registers the embedded broker's transport (arbiterfs://)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")

app = Celery("arbiter")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def prepare_broker_folders() -> None:
    """The embedded (filesystem) broker needs its folders before the first message."""
    from pathlib import Path

    options = app.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@signals.worker_process_init.connect
def warm_up_search(**_):
    """Each pool process (forked: nothing was loaded before) loads the compiled move search in a thread,
    so that its first round's tops do not wait for it."""
    from engine.movegen import warm_up_in_background

    return warm_up_in_background()


@signals.worker_ready.connect
def start_heartbeat(**_):
    """The worker's main process, once ready to take tasks, writes its heartbeat in the shared cache every
    ARBITER_WORKER_HEARTBEAT_SECONDS (arbiter/heartbeat.py: /healthz reports a silent worker)."""
    from django.conf import settings

    from arbiter.heartbeat import start_beating

    return start_beating(settings.ARBITER_WORKER_HEARTBEAT_SECONDS)


@signals.worker_init.connect
def hold_the_data_folder(**_):
    """The worker marks its data folder as served while it runs (arbiter/running.py: no restore under it)."""
    from arbiter.backups import embedded_database
    from arbiter.running import hold

    if embedded_database() is not None:
        hold()
