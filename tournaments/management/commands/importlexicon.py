"""``python manage.py importlexicon FILE --name ODS9 --tileset french``: a club's word list, imported as the
console imports it (the same service): the entries refused are reported and the list's SHA-256 recorded."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.lexicons import word_list_lines

SHOWN = 20  # refused entries printed; --rejected FILE writes them all


class Command(BaseCommand):
    help = "Import a word list (one word per line, UTF-8 or Latin-1; accents are folded) under a name."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the word list, or - for standard input")
        parser.add_argument("--name", required=True, help="the lexicon's name, e.g. ODS9")
        parser.add_argument("--tileset", default="english", help="the tile set its words are played with")
        parser.add_argument("--rejected", metavar="FILE", help="write every refused entry to FILE")

    def handle(self, *args, **options):
        source = options["file"]
        try:
            raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        except OSError as error:
            raise CommandError(f"cannot read {source}: {error.strerror}") from None
        try:
            lexicon, rejected = services.lexicon_import(
                name=options["name"], words=word_list_lines(raw), tileset=options["tileset"])
        except ServiceError as error:
            raise CommandError(f"{error.code}: {error.message}") from None
        self.stdout.write(self.style.SUCCESS(
            f"{lexicon.name}: {lexicon.word_count} words ({lexicon.tileset} tiles), sha256 {lexicon.sha256}"))
        self.stdout.write(f"refused: {len(rejected)} entr{'y' if len(rejected) == 1 else 'ies'}")
        for entry in rejected[:SHOWN]:
            self.stdout.write(f"  {entry}")
        if len(rejected) > SHOWN:
            self.stdout.write(f"  ... and {len(rejected) - SHOWN} more" +
                              ("" if options["rejected"] else " (--rejected FILE writes them all)"))
        if options["rejected"]:
            Path(options["rejected"]).write_text("".join(f"{entry}\n" for entry in rejected), encoding="utf-8")
