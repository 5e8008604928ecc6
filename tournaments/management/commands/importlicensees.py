"""``python manage.py importlicensees GAME FILE``: a centre's players from the federation's file of licensees
(CSV), imported as the console imports it (the same service): the whole file or nothing, every bad row listed
with its number and reason; a licensee already registered is updated, never registered twice."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.limits import LICENSEES_BYTES_MAX
from tournaments.models import Game


class Command(BaseCommand):
    help = ("Register a game's players from a CSV of licensees (columns named in the first line: licence, name, "
            "club, series, category, birth date; ; or , separated; UTF-8 or Latin-1).")

    def add_arguments(self, parser):
        parser.add_argument("game", type=int, help="the game's id: its tournament's players are matched by licence")
        parser.add_argument("file", help="the CSV file, or - for standard input")

    def handle(self, *args, **options):
        game = Game.objects.filter(pk=options["game"]).first()
        if game is None:
            raise CommandError(f"no game {options['game']}")
        source = options["file"]
        try:
            if source == "-":
                raw = sys.stdin.buffer.read(LICENSEES_BYTES_MAX + 1)
            else:
                with Path(source).open("rb") as handle:
                    raw = handle.read(LICENSEES_BYTES_MAX + 1)
        except OSError as error:
            raise CommandError(f"cannot read {source}: {error.strerror}") from None
        try:
            done = services.licensees_import(game=game, data=raw)
        except services.LicenseesRefused as error:
            for number, row_error in error.rows:
                self.stderr.write(f"row {number}: {row_error.code}: {row_error.message}")
            raise CommandError(f"{error.code}: {error.message}") from None
        except ServiceError as error:
            raise CommandError(f"{error.code}: {error.message}") from None
        self.stdout.write(self.style.SUCCESS(
            f"{len(done.registered)} registered, {len(done.updated)} updated, {done.unchanged} unchanged"))
