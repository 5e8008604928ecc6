"""The Celery application: configuration comes from Django settings (CELERY_* names)."""

import logging
import signal
import warnings

import click
from celery import Celery, bootsteps, signals
from celery.exceptions import SecurityWarning
from celery.worker.consumer import Consumer as CeleryConsumer

from . import broker  # noqa: F401 - registers the embedded broker's transport (arbiterfs://)


def django_fixup(app):
    """Celery's Django fix-up (the tasks of the installed apps, Django set up in the worker, its database
    connections closed around each task), installed whatever the environment holds at this import: celery's
    own installs it only when DJANGO_SETTINGS_MODULE is already set, and importing this module chooses no
    settings (arbiter/settings/__init__.py)."""
    from celery.fixups.django import DjangoFixup

    return DjangoFixup(app).install()


app = Celery("arbiter", fixups=[django_fixup])


@app.on_configure.connect
def choose_settings(**_):
    """The settings are chosen when the configuration is first read, not at import: a worker started by hand
    without DJANGO_SETTINGS_MODULE runs the safe settings; the launcher's worker inherits its launcher's."""
    from arbiter.settings import choose

    choose()


app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class ThreadedBeat(bootsteps.StartStopStep):
    """``worker --beat-thread``: the beat scheduler (the sweep of overdue rounds) in a thread of the worker,
    where celery's ``--beat`` forks a process of its own (90 MiB more, and no fork on Windows). The launcher
    (rundemo.worker_command) starts the worker so."""

    label = "Beat (thread)"
    conditional = True

    def __init__(self, w, beat_thread=False, **kwargs):
        self.enabled = bool(beat_thread)
        super().__init__(w, **kwargs)

    def create(self, w):
        from celery.beat import EmbeddedService

        return EmbeddedService(w.app, thread=True, schedule_filename=w.schedule_filename, scheduler_cls=w.scheduler)


app.user_options["worker"].add(click.Option(
    ["--beat-thread"], is_flag=True, default=False,
    help="run the beat scheduler in a thread of this worker (no process of its own)"))
app.steps["worker"].add(ThreadedBeat)


class Consumer(CeleryConsumer):
    """The worker's consumer (CELERY_WORKER_CONSUMER), which outlives the loss of its broker.

    When Redis goes while the worker holds a message not yet acknowledged (a round's close, held until its
    deadline; a task running, acknowledged at its end), Celery closes the lost connection a second time after
    kombu had already let go of its address; the Redis channel then asks for that address to put the message
    back, and the AttributeError ('NoneType' object has no attribute 'hostname') went up to the worker, which
    stopped: "Unrecoverable error", in the middle of a round. Here that close cannot end the worker: its error
    is logged, and the consumer reconnects as after any other loss. The message could not be put back anyway
    (Redis is gone): a Redis that kept it gives it back after the visibility timeout, and the closes of the
    open rounds are queued again on the new connection (QueueOpenCloses)."""

    def on_connection_error_after_connected(self, exc):
        lost = self.connection
        if lost is not None:
            lost.close = lost.release = _closer_of(lost)  # what Celery calls on the lost connection
        return super().on_connection_error_after_connected(exc)


def _closer_of(connection):
    plain = type(connection).close

    def close():
        try:
            plain(connection)
        except Exception as error:
            logging.getLogger(__name__).warning(
                "the lost broker connection did not close cleanly (%s: %s); reconnecting all the same",
                type(error).__name__, error)

    return close


class QueueOpenCloses(bootsteps.StartStopStep):
    """On each connection to the broker, the first and every one after a loss, the worker queues again the
    close of every open round at its deadline (tournaments/services/schedule.py, schedule_open_closes): the
    closes it held were dropped with the lost connection, and a Redis started again may have none of them.
    The rounds are read and the tasks sent from a thread, so a slow database never holds the consumer."""

    requires = ("celery.worker.consumer.tasks:Tasks",)
    label = "Open rounds' closes"

    def start(self, c):
        from tournaments.services.schedule import schedule_open_closes

        schedule_open_closes()


app.steps["consumer"].add(QueueOpenCloses)


class LeaveCtrlCToTheLauncher(bootsteps.StartStopStep):
    """``worker --launched``: the worker the launcher starts (rundemo) ignores Ctrl-C. In a terminal Ctrl-C
    reaches every process of the foreground group, the worker too, which would begin its own warm shutdown
    (and its messages) while the launcher stops it anyway, with SIGTERM. Started after celery's own
    handlers are installed (Worker.on_start), before the consumer, which runs until the end."""

    label = "Ctrl-C left to the launcher"
    conditional = True

    def __init__(self, w, launched=False, **kwargs):
        self.enabled = bool(launched)
        super().__init__(w, **kwargs)

    def start(self, w):
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:  # not the main thread: Ctrl-C stays celery's
            pass


app.user_options["worker"].add(click.Option(
    ["--launched"], is_flag=True, default=False,
    help="started by the launcher (make run, arbiter run): Ctrl-C is the launcher's, which stops this worker; "
         "no warning about running as the superuser"))
app.steps["worker"].add(LeaveCtrlCToTheLauncher)


@signals.celeryd_init.connect
def quiet_when_launched(options=None, **_):
    """The launcher's worker does not warn that it runs as the superuser (a laptop whose user is root, a
    container): the launcher serves the same account's web server in its own process without such a
    warning. A worker started by hand, or compose's, still warns."""
    if (options or {}).get("launched"):
        warnings.filterwarnings("ignore", category=SecurityWarning)


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
    from engine.search import warm_up_in_background

    return warm_up_in_background()


@signals.worker_ready.connect
def warm_up_search_in_threads(sender=None, **_):
    """A worker of threads (or solo: no pool process, no worker_process_init) loads the compiled search in
    its own process, once it is ready to take tasks."""
    worker = getattr(sender, "controller", None)
    pool = getattr(worker, "pool_cls", None)
    module = pool if isinstance(pool, str) else getattr(pool, "__module__", "")
    if not module.endswith("prefork"):
        from engine.search import warm_up_in_background

        return warm_up_in_background()


@signals.worker_ready.connect
def start_heartbeat(**_):
    """The worker's main process, once ready to take tasks, writes its heartbeat in the shared cache every
    ARBITER_WORKER_HEARTBEAT_SECONDS (arbiter/heartbeat.py: /healthz reports a silent worker)."""
    from django.conf import settings

    from arbiter.heartbeat import start_beating

    return start_beating(settings.ARBITER_WORKER_HEARTBEAT_SECONDS)


@signals.worker_ready.connect
def start_relay_link(**_):
    """A centre with an organiser set (ARBITER_ORGANISER_URL, _EVENT, _TOKEN) follows the organiser's live game
    from its worker: the link's loop in a thread of the worker's main process (tournaments/relay.py), so that
    `make run` / `arbiter run` start it with nothing more to run."""
    from tournaments.relay import start_link_thread

    return start_link_thread()


@signals.worker_init.connect
def hold_the_data_folder(**_):
    """The worker marks its data folder as served while it runs (arbiter/running.py: no restore under it)."""
    from arbiter.backups import embedded_database
    from arbiter.running import hold

    if embedded_database() is not None:
        hold()
