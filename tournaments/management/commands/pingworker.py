"""Send a task to the Celery worker and wait for it to run: proves the broker and a worker are alive."""

import time
import uuid

from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Send a ping task through the broker and wait until a worker has run it."

    def add_arguments(self, parser):
        parser.add_argument("--timeout", type=float, default=20.0)

    def handle(self, *args, timeout, **options):
        from arbiter.celery import prepare_broker_folders
        from tournaments.tasks import ping

        prepare_broker_folders()
        token = uuid.uuid4().hex
        ping.delay(token)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cache.get(f"ping:{token}") == "pong":
                self.stdout.write(self.style.SUCCESS(f"worker answered ping {token}"))
                return
            time.sleep(0.2)
        raise CommandError(f"no worker ran ping {token} within {timeout:g} s")
