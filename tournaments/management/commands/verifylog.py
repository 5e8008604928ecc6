"""Check the arbitration log's hash chain (tournaments/logchain.py) of one game or of every game, and the rows
that decide a score against the digests the chain holds of them (a slip or result rewritten, deleted, or
written behind the log's back).

A proof held outside the database finds what the database alone cannot: a log cut at its end, emptied, or
deleted and written again with fresh hashes. ``--record``: a game record written earlier (the JSON export),
whose every printed chain head the log must still pass through. ``--held``: any one thing a player or a
centre holds: a slip's receipt (its JSON, sealed: the head at the slip's arrival), a sheet (the PDF, or the
head printed in its footer typed in), a results file, the public results' feed, the standings CSV or the
federation's results file as downloaded (their name carries the head: ``...-chain-GAME-SEQ-HASH.csv``), or a
printed head ``chain GAME/SEQ/HASH`` itself. Exits with an error when any chain is broken.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

HELD_MAX_BYTES = 64 * 1024 * 1024  # a sheet of a large event stays well below


class Command(BaseCommand):
    help = ("Walk each game's log chain and check the rows that decide a score; --record or --held checks "
            "the chain heads a record, receipt, sheet or results file printed.")

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="*", type=int, help="the games to check (default: all, or those "
                            "the held item names)")
        parser.add_argument("--record", help="a game record (JSON export) whose printed chain heads must hold")
        parser.add_argument("--held", help="a receipt (JSON), sheet (PDF), results file, public feed, a "
                            "standings CSV or results.txt named ...-chain-GAME-SEQ-HASH, or a printed head "
                            "'chain GAME/SEQ/HASH', whose chain heads must hold")

    def handle(self, *args, game_ids, record, held, **options):
        from tournaments.models import Game
        from tournaments.selectors import log_check, record_heads

        if record and held:
            raise CommandError("give --record or --held, not both")
        heads_of: dict[int, list[dict]] | None = None
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
            heads_of = {game_ids[0]: heads}
        elif held:
            heads_of = held_heads(held)
            if game_ids:
                heads_of = {pk: heads for pk, heads in heads_of.items() if pk in game_ids}
            else:
                game_ids = sorted(heads_of)
            if not heads_of:
                raise CommandError(f"{held} holds no chain head of the games asked for")
        games = Game.objects.order_by("pk")
        if game_ids:
            games = games.filter(pk__in=game_ids)
            missing = sorted(set(game_ids) - set(games.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"no game {', '.join(map(str, missing))}")
        broken = 0
        for game in games:
            heads = None if heads_of is None else heads_of.get(game.pk, [])
            check = log_check(game=game, heads=heads)
            if check.ok:
                against = f", {check.heads_checked} printed heads found" if heads else ""
                head = check.head["hash"] if check.head else "-"
                self.stdout.write(f"game {game.pk}: {check.entries} entries, chain holds{against}, rows match; "
                                  f"head {head}")
            else:
                broken += 1
                self.stdout.write(f"game {game.pk}: BROKEN at entry {check.broken.seq} "
                                  f"({check.broken.problem}): {check.broken.message}")
        if broken:
            raise CommandError(f"{broken} game(s) with a broken log chain")


def held_heads(held: str) -> dict[int, list[dict]]:
    """The chain heads, by game, of what a player or a centre holds: a file (a receipt's JSON, whose seal must
    hold; a record; any other file, a sheet's PDF included, read for the printed heads ``chain GAME/SEQ/HASH``)
    or the printed head itself."""
    from tournaments.logchain import heads_in, heads_in_name
    from tournaments.selectors import record_heads

    path = Path(held)
    if not path.is_file():
        found = heads_in(held) or heads_in_name(path.name)
        if not found:
            raise CommandError(f"{held} is neither a file nor a printed chain head (chain GAME/SEQ/HASH)")
        return _grouped(found)
    try:
        if path.stat().st_size > HELD_MAX_BYTES:
            raise CommandError(f"{held} is larger than {HELD_MAX_BYTES // 2**20} MiB")
        data = path.read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {held}: {exc}") from None
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        document = None
    if isinstance(document, dict) and "seal" in document and "slip" in document and "received_at" in document:
        return _receipt_heads(held, document)
    if isinstance(document, dict) and isinstance(document.get("log_chain"), dict):
        game = document.get("game", {}).get("id") if isinstance(document.get("game"), dict) else None
        if isinstance(game, int) and record_heads(document):
            return {game: record_heads(document)}
    # A PDF's metadata and text, a results file's JSON; the standings CSV and the federation's results file
    # carry the head in their name (...-chain-GAME-SEQ-HASH.csv), their formats having no room for it.
    found = heads_in(data.decode("latin-1")) + heads_in_name(path.name)
    if not found:
        raise CommandError(f"{held} prints no chain head (chain GAME/SEQ/HASH), nor does its name "
                           "(...-chain-GAME-SEQ-HASH)")
    return _grouped(found)


def _receipt_heads(held: str, receipt: dict) -> dict[int, list[dict]]:
    from tournaments import seal
    from tournaments.receipts import FIELDS

    if not isinstance(receipt.get("log_seq"), int) or not isinstance(receipt.get("log_hash"), str):
        raise CommandError(f"the receipt {held} carries no chain head (a receipt of version 1)")
    content = {name: receipt.get(name) for name in FIELDS}
    try:
        signer = seal.verify(content, receipt.get("seal"))
    except seal.BadSeal:
        signer = "forged"
    if signer not in (seal.THIS_SERVER, seal.TRUSTED):
        raise CommandError(f"the receipt {held} is not sealed by this server or one it trusts ({signer})")
    return {receipt["game"]: [{"seq": receipt["log_seq"], "hash": receipt["log_hash"]}]}


def _grouped(found: list[tuple[int, int, str]]) -> dict[int, list[dict]]:
    heads: dict[int, dict[int, str]] = {}
    for game, seq, digest in found:
        heads.setdefault(game, {})[seq] = digest
    return {game: [{"seq": seq, "hash": digest} for seq, digest in sorted(by_seq.items())]
            for game, by_seq in heads.items()}
