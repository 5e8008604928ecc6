"""Start the whole service on this machine: migrate, demo data, web server and Celery worker together.

Ctrl-C (or SIGTERM) stops both processes cleanly.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Migrate, create the demo arbitrator and tournament, then run the web server and a Celery worker."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo data")

    def handle(self, *args, host, port, no_demo, **options):
        from arbiter.celery import prepare_broker_folders
        from tournaments.demo import create_demo

        settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
        prepare_broker_folders()
        call_command("migrate", interactive=False, verbosity=0)
        if not no_demo:
            for line in create_demo():
                self.stdout.write(line)

        env = dict(os.environ)
        python = sys.executable
        web = subprocess.Popen(
            [python, "-m", "uvicorn", "arbiter.asgi:application", "--host", host, "--port", str(port),
             "--log-level", "warning"],
            env=env,
        )
        worker = subprocess.Popen(
            [python, "-m", "celery", "-A", "arbiter", "worker", "--beat", "--loglevel", "warning",
             "--concurrency", "2", "--schedule", str(settings.DATA_DIR / "celerybeat-schedule")],
            env=env,
        )
        children = [web, worker]
        self.stdout.write(self.style.SUCCESS(f"Arbiter running at http://{host}:{port}/  (Ctrl-C stops)"))
        self.stdout.write(f"  console: http://{host}:{port}/console/   health: http://{host}:{port}/healthz")

        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.3)
        except KeyboardInterrupt:
            pass
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
        self.stdout.write("Stopped.")
