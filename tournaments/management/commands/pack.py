"""Pre-drawn games and sealed packs on the command line (tournaments/packs.py; the organiser's steps in
docs/packs.md).

    manage.py pack draw --seed 2026 --max-rounds 20 --out game.json    # a game played alone from a seed
    manage.py pack import record.json --out game.json                   # a game from a game record
    manage.py pack profile game.json                                    # rounds, tops, bingos, hardest rounds
    manage.py pack seal game.json --event "SF 2026" --game-id G3 --out pack.json --key-out G3.key
    manage.py pack verify pack.json [--trust FINGERPRINT|KEY]           # signature, changes, word list
    manage.py pack unlock pack.json --key "XXXX-XXXX-..." [--trust FINGERPRINT|KEY] [--out game.json]
    manage.py pack assign --event E1 --event E2 --pack a.json --pack b.json [--beacon VALUE]
    manage.py pack key                                                  # this installation's public key

``--trust`` takes the organiser's fingerprint as read out on the phone (``TZZS-RS6M-RVQJ-AS31``) or its whole
public key, and adds it to the organisers this installation trusts (the setting, its own key, and those trusted
at the console). A value beginning with ``-`` (one public key in 64 does) is taken as the value, as
``--trust=KEY`` is.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.errors import ServiceError


def _read_json(path: str):
    try:
        return json.loads(Path(path).read_bytes())
    except (OSError, ValueError) as error:
        raise CommandError(f"cannot read {path}: {error}") from None


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error}") from None


def _write(path: str, data: bytes, private: bool = False) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def _rule(text: str) -> tuple[str, object]:
    name, _, value = text.partition("=")
    if not name or not value:
        raise CommandError(f"--rule takes name=value, not {text!r}")
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return name.strip(), lowered == "true"
    try:
        return name.strip(), int(value)
    except ValueError:
        raise CommandError(f"--rule {name}: {value!r} is not a number nor true/false") from None


VALUED = ("--trust", "--key")  # options whose value may begin with "-"


def _joined(args) -> list[str]:
    """``--trust -AbC...`` as ``--trust=-AbC...``: argparse takes a word beginning with "-" for an option, so a
    public key beginning with "-" would leave ``--trust`` with no value ("expected one argument")."""
    args, out, i = [str(a) for a in args], [], 0
    while i < len(args):
        if args[i] in VALUED and i + 1 < len(args) and args[i + 1].startswith("-"):
            out.append(f"{args[i]}={args[i + 1]}")
            i += 2
        else:
            out.append(args[i])
            i += 1
    return out


class Command(BaseCommand):
    help = "Draw, profile, seal, verify and unlock pre-drawn games (sealed packs), and draw which goes to which event."

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parse_args = parser.parse_args

        def parse(args=None, namespace=None):
            return parse_args(None if args is None else _joined(args), namespace)

        parser.parse_args = parse
        return parser

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        draw = sub.add_parser("draw", help="play a whole game alone from a seed")
        draw.add_argument("--seed", type=int, required=True)
        draw.add_argument("--lexicon", default="TWL06")
        draw.add_argument("--tileset", default="english")
        draw.add_argument("--ruleset", default="fisf")
        draw.add_argument("--variant", default="duplicate",
                          help="duplicate, joker, explosive, seven_of_eight, seven_and_eight or topping")
        draw.add_argument("--timing", default="normal", help="normal, semi_rapid or blitz")
        draw.add_argument("--rule", action="append", default=[], help="a rule's value: name=value (repeatable)")
        draw.add_argument("--labelling", default="rows-letters", choices=("rows-letters", "rows-numbers"))
        draw.add_argument("--max-rounds", type=int)
        draw.add_argument("--out", required=True, help="the game file to write (secret until the event)")
        imported = sub.add_parser("import", help="a game from a game record (record.json)")
        imported.add_argument("record")
        imported.add_argument("--out", required=True)
        profile = sub.add_parser("profile", help="a game file's figures")
        profile.add_argument("game")
        profile.add_argument("--hardest", type=int, default=3)
        profile.add_argument("--json", dest="as_json", action="store_true")
        seal = sub.add_parser("seal", help="seal a game file into a pack")
        seal.add_argument("game")
        seal.add_argument("--event", required=True)
        seal.add_argument("--game-id", required=True)
        seal.add_argument("--out", required=True)
        seal.add_argument("--key-out", help="also write the key to this file (readable by its owner only)")
        verify = sub.add_parser("verify", help="check a pack's signature, content and word list")
        verify.add_argument("pack")
        trust_help = ("an organiser to trust: its fingerprint as read out on the phone, or its public key "
                      "(repeatable)")
        verify.add_argument("--trust", action="append", default=[], help=trust_help)
        unlock = sub.add_parser("unlock", help="open a pack with its key")
        unlock.add_argument("pack")
        unlock.add_argument("--key", required=True, help="the key as typed, or the QR code's text")
        unlock.add_argument("--trust", action="append", default=[], help=trust_help)
        unlock.add_argument("--out", help="write the game file here")
        assign = sub.add_parser("assign", help="which pack goes to which event, from a public random value")
        assign.add_argument("--event", action="append", required=True, help="an event, in the published order")
        assign.add_argument("--pack", action="append", required=True, help="a pack file, or its SHA-256")
        assign.add_argument("--beacon", help="the public random value (e.g. the drand round's randomness)")
        sub.add_parser("key", help="this installation's public key and its fingerprint (its packs' and results "
                       "files' signer)")

    def handle(self, *args, action, **options):
        try:
            getattr(self, f"_{action}")(**options)
        except ServiceError as error:
            hint = ""
            if error.code == "pack_untrusted":
                hint = f"; once checked, give it: --trust {error.params['fingerprint']}"
            raise CommandError(f"{error.code}: {error.message}{hint}") from None

    def _trusted(self, trust) -> dict:
        """The organisers trusted here (the setting, this installation's key, those trusted at the console) and
        those given with ``--trust``: keys, and fingerprints read out on the phone."""
        from django.db import DatabaseError

        from tournaments import centre, packs

        try:
            keys = centre.trusted_keys()
        except DatabaseError as error:  # no database here: the setting and --trust only
            self.stderr.write(f"the organisers trusted at the console are not read (no database: {error})")
            keys = packs.trusted_keys()
        fingerprints = set()
        for text in trust:
            try:
                kind, value = packs.trust_value(text)
            except ValueError as error:
                raise CommandError(f"--trust: {error}") from None
            (keys if kind == "key" else fingerprints).add(value)
        return {"trusted": keys, "fingerprints": frozenset(fingerprints)}

    def _draw(self, *, seed, lexicon, tileset, ruleset, rule, labelling, max_rounds, out, **options):
        variant, timing = options.get("variant") or "duplicate", options.get("timing") or "normal"
        from engine.rules import variant_rules
        from tournaments import packs

        try:
            rules = variant_rules(variant, ruleset=ruleset, timing=timing, **dict(_rule(text) for text in rule))
        except ValueError as error:
            raise CommandError(str(error)) from None
        game = packs.draw_game_file(seed=seed, lexicon=lexicon, tileset=tileset, rules=rules, labelling=labelling,
                                    max_rounds=max_rounds)
        _write(out, json.dumps(game.as_dict(), indent=1).encode(), private=True)
        self._print_profile(game, 3)
        self.stdout.write(f"seed {seed}; written to {out}")

    def _import(self, *, record, out, **_):
        from tournaments import packs

        game = packs.game_file_from_record(_read_json(record))
        _write(out, json.dumps(game.as_dict(), indent=1).encode(), private=True)
        self._print_profile(game, 3)
        self.stdout.write(f"written to {out}")

    def _profile(self, *, game, hardest, as_json: bool = False, **_):
        from engine.pregame import profile
        from tournaments import packs

        read = packs.read_game_file(_read_json(game))
        if as_json:
            self.stdout.write(json.dumps(profile(read.game, read.rules, read.labelling, hardest), indent=1))
            return
        self._print_profile(read, hardest)

    def _print_profile(self, game, hardest: int) -> None:
        from engine.pregame import master_text, profile

        figures = profile(game.game, game.rules, game.labelling, hardest)
        self.stdout.write(f"{figures['rounds']} rounds, sum of the tops {figures['tops_sum']}, "
                          f"{figures['bingos']} bingos, {figures['blanks']} blanks played "
                          f"({figures['racks_with_blank']} racks with a blank), {figures['rejected']} rejected draws; "
                          f"word list {game.lexicon}, tiles {game.tileset}, rules {game.rules.preset}")
        for r in game.game.rounds:
            self.stdout.write(f"{r.number:>3}  {' '.join([*r.rejected, r.rack]):<24} "
                              f"{master_text(r.master, game.labelling):<24} tied {r.tied_tops:>2} of {r.plays} plays")
        self.stdout.write("hardest rounds (fewest plays scoring the top): " + ", ".join(
            f"{row['round']} ({row['tied_tops']} of {row['plays']})" for row in figures["hardest"]))

    def _seal(self, *, game, event, game_id, out, key_out, **_):
        from tournaments import packs

        pack, key = packs.seal_pack(packs.read_game_file(_read_json(game)), event=event, game_id=game_id)
        data = packs.pack_bytes(pack)
        _write(out, data)
        sha = packs.pack_sha256(pack)
        if key_out:
            _write(key_out, (packs.key_text(key) + "\n").encode(), private=True)
        self.stdout.write(f"pack written to {out}\nSHA-256 (publish it now): {sha}\n"
                          f"key (give it out at the start time): {packs.key_text(key)}\n"
                          f"QR code text: {packs.key_qr_text(key, sha)}")

    def _verify(self, *, pack, trust, **_):
        from tournaments import packs

        verified = packs.verify_pack(_read_bytes(pack), **self._trusted(trust))
        header = verified.header
        self.stdout.write(f"pack of event {header['event']!r}, game {header['game_id']!r}; word list "
                          f"{header['lexicon']['name']} (SHA-256 {header['lexicon']['sha256']}), tiles "
                          f"{header['tileset']}, rules {header['rules']['preset']}\nsigned by the organiser key "
                          f"{verified.signer} (fingerprint {verified.fingerprint})\nSHA-256 {verified.sha256}\n"
                          "the pack holds: its rounds are sealed until the key is given")

    def _unlock(self, *, pack, key, trust, out, **_):
        from tournaments import packs

        game = packs.unlock_pack(_read_bytes(pack), key, **self._trusted(trust))
        if out:
            _write(out, json.dumps(game.as_dict(), indent=1).encode(), private=True)
        self._print_profile(game, 3)

    def _assign(self, *, event, pack, beacon, **_):
        from tournaments import packs

        hashes = []
        for item in pack:
            path = Path(item)
            hashes.append(packs.verify_pack(path.read_bytes()).sha256 if path.exists() else item.strip().lower())
        text = packs.commitment(hashes, event)
        self.stdout.write(text + f"commitment SHA-256: {hashlib.sha256(text.encode()).hexdigest()}")
        if beacon:
            for name, sha in packs.assign(hashes, event, beacon):
                self.stdout.write(f"{name}\t{sha}")

    def _key(self, **_):
        from tournaments import packs, seal
        from tournaments.centre_results import centre_identity

        key = seal.public_key()
        self.stdout.write(f"public key {key}\nfingerprint {packs.fingerprint(key)}\n"
                          f"centre id {centre_identity()['id']}\n"
                          "It signs the packs this installation seals (as an organiser: the centres trust it) and "
                          "the results files it sends (as a centre: the organiser registers it with the centre id).")
