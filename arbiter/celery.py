"""The Celery application: configuration comes from Django settings (CELERY_* names)."""

import os

from celery import Celery

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
