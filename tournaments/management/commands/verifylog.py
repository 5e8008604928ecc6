"""Check the arbitration log's hash chain (tournaments/logchain.py) of one game or of every game.

With ``--record``, a game record written earlier (the JSON export) is the proof held outside the database:
the log must still pass through every chain head it printed, so a log cut short by a TRUNCATE, or deleted
and written again with fresh hashes, is found even though the chain left in the database holds together.
Exits with an error when any chain is broken.
"""

import json

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Walk each game's log chain and report the first broken entry; --record checks a record's heads."

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="*", type=int, help="the games to check (default: all)")
        parser.add_argument("--record", help="a game record (JSON export) whose printed chain heads must hold")

    def handle(self, *args, game_ids, record, **options):
        from tournaments.models import Game
        from tournaments.selectors import log_check, record_heads

        heads = None
        if record:
            if len(game_ids) != 1:
                raise CommandError("--record checks one game: give its id")
            try:
                with open(record, encoding="utf-8") as stream:
                    heads = record_heads(json.load(stream))
            except (OSError, ValueError) as exc:
                raise CommandError(f"cannot read the record {record}: {exc}") from None
            if not heads:
                raise CommandError(f"the record {record} prints no log chain heads")
        games = Game.objects.order_by("pk")
        if game_ids:
            games = games.filter(pk__in=game_ids)
            missing = sorted(set(game_ids) - set(games.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"no game {', '.join(map(str, missing))}")
        broken = 0
        for game in games:
            check = log_check(game=game, heads=heads)
            if check.ok:
                against = f", {check.heads_checked} printed heads found" if heads else ""
                head = check.head["hash"] if check.head else "-"
                self.stdout.write(f"game {game.pk}: {check.entries} entries, chain holds{against}; head {head}")
            else:
                broken += 1
                self.stdout.write(f"game {game.pk}: BROKEN at entry {check.broken.seq} "
                                  f"({check.broken.problem}): {check.broken.message}")
        if broken:
            raise CommandError(f"{broken} game(s) with a broken log chain")
