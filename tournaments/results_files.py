"""A centre's results file and the organiser's checks of it (issue 25, part 4); the merged standings from the
files accepted (engine/merge.py, part 5).

A **results file** (``duplicate-arbiter/results``) is what a centre sends the organiser after a round and at the
end: the event, the game's id and the pack's SHA-256; the centre's identity; every player's identity (name,
licence, club, series, category) with their slip and the centre's verdict round by round, and their total paid and
warnings; the centre's corrections, with who made them and why; its ``sequence`` (a later version of the same
centre's game replaces an earlier one, which stays in the history) and whether it is ``final``. It is signed with
the centre's own Ed25519 key (tournaments/seal.py, the installation's key) over its canonical JSON, and named by
its content hash (the SHA-256 of the whole file, seal included: ``results_sha256``).

The organiser checks it (``verify_results``) against the centre's registered public key and the unlocked pack's
game (tournaments/packs.py ``GameFile``): the signature (``results_altered``; a sound signature by another key:
``results_forged``), the event, game and pack (``results_wrong_event``), a file already accepted
(``results_replayed``), totals that add up (``results_totals``); then every slip is judged again on the pack's
board of its round, and a verdict differing from the centre's is listed for review (``differences``), never
changed. A ``JudgeCache`` judges each distinct slip (round, word, reference, claimed score) once across all files.

``ResultsInbox`` is the organiser's side in memory: the centres' keys, the games' packs, the files accepted (the
latest version of each centre's game, and the history), and the merged standings of what was accepted.
"""

from __future__ import annotations

import binascii
import hashlib
import json
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.utils import timezone

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip, zero
from engine.merge import Entry, EventGame, merge_standings
from engine.tiles import load_tileset
from tournaments import seal
from tournaments.errors import ServiceError
from tournaments.packs import GameFile, _lexicon, fingerprint, public_text

FORMAT = "duplicate-arbiter/results"
VERSION = 1
SEAL_KEY = "seal"
IDENTITY = ("name", "licence", "club", "series", "category")  # a player's fields, read with "" when missing
SLIP_FIELDS = ("word", "ref", "claimed")
VERDICT_FIELDS = ("paid", "outcome", "reason")


def _get(item, name, default=""):
    value = item.get(name, default) if isinstance(item, dict) else getattr(item, name, default)
    return default if value is None else value


def _slip(slip) -> dict | None:
    if slip is None:
        return None
    out = {"word": str(_get(slip, "word")), "ref": str(_get(slip, "ref")), "claimed": _get(slip, "claimed", None)}
    for flag in ("late", "several"):
        if _get(slip, flag, False):
            out[flag] = True
    return out


def player_results(player, rounds) -> dict:
    """One player's part of the file: their identity (``IDENTITY``, read from a dict or a Player, "" when the
    field is missing) and ``rounds``, each ``{"round", "slip": {word, ref, claimed[, late, several]} | None,
    "verdict": {paid, outcome, reason}}``; their total paid and warnings are added up here."""
    played = []
    for r in rounds:
        verdict = _get(r, "verdict", {})
        played.append({"round": int(_get(r, "round", 0)), "slip": _slip(_get(r, "slip", None)),
                       "verdict": {"paid": int(_get(verdict, "paid", 0)), "outcome": str(_get(verdict, "outcome")),
                                   "reason": str(_get(verdict, "reason"))}})
    played.sort(key=lambda r: r["round"])
    return {
        "id": str(_get(player, "id", "") or _get(player, "pk", "")),
        **{name: str(_get(player, name)) for name in IDENTITY},
        "rounds": played,
        "total": sum(r["verdict"]["paid"] for r in played),
        "warnings": sum(1 for r in played if r["verdict"]["outcome"] == "warning"),
    }


def make_results_file(*, event: str, game_id: str, pack_sha256: str, centre: dict, players, corrections=(),  # noqa: PLR0913 - keyword-only: each argument is named at the call
                      sequence: int = 1, final: bool = False, signer: Ed25519PrivateKey | None = None,
                      chain: str = "") -> dict:
    """A centre's results file, signed with ``signer`` (default: this installation's key). ``players`` are
    ``player_results`` values; ``corrections`` each ``{round, player, by, why, at, before, after}``;
    ``centre`` ``{"id", "name"}``. ``chain``: the head of the centre's log chain as the file is made
    (logchain.head_text), signed with the rest: the centre's proof of its log (``manage.py verifylog --held``)."""
    body = {
        "format": FORMAT, "version": VERSION, "event": str(event), "game_id": str(game_id),
        "pack_sha256": str(pack_sha256), "centre": {"id": str(centre["id"]), "name": str(centre.get("name", ""))},
        "sequence": int(sequence), "final": bool(final), "made_at": timezone.now().isoformat(),
        "players": list(players), "corrections": [dict(c) for c in corrections],
        **({"log_chain": str(chain)} if chain else {}),
    }
    signer = signer or seal.server_key()[0]
    return {**body, SEAL_KEY: {"alg": seal.ALGORITHM, "key": public_text(signer),
                               "sig": seal._b64(signer.sign(seal.canonical(body)))}}


def results_bytes(results: dict) -> bytes:
    """The file as written: its canonical JSON."""
    return seal.canonical(results)


def results_sha256(results: dict) -> str:
    """The file's content hash: what identifies it (a file sent twice is the same hash)."""
    return hashlib.sha256(results_bytes(results)).hexdigest()


# --------------------------------------------------------------------------------------------------
# Judging again


class JudgeCache:
    """Each distinct slip of a game judged once: (round, word, reference, claimed score) -> (paid, outcome,
    reason). The claimed score is part of the slip: it decides a wrong score's warning and a penalty."""

    def __init__(self, game_file: GameFile):
        self.game_file = game_file
        self.lexicon = _lexicon(game_file.lexicon)
        self.tileset = load_tileset(game_file.tileset)
        self.rounds = {r.number: r for r in game_file.game.rounds}
        self.boards = {n: Board.from_rows(r.board) for n, r in self.rounds.items()}
        self.verdicts: dict[tuple, tuple[int, str, str]] = {}
        self.judged = 0
        self.asked = 0

    def verdict(self, number: int, slip: dict | None) -> tuple[int, str, str]:
        self.asked += 1
        if slip is None:
            found = zero("no_slip")
            return (found.paid, found.outcome, found.reason)
        if slip.get("several"):
            return (0, "zero", "several_slips")
        if slip.get("late"):
            return (0, "zero", "late")
        key = (number, slip.get("word"), slip.get("ref"), slip.get("claimed"))
        kept = self.verdicts.get(key)
        if kept is None:
            self.judged += 1
            game_round = self.rounds[number]
            found = judge_slip(self.boards[number], game_round.rack, number,
                               EngineSlip(slip.get("word") or None, slip.get("ref") or None, slip.get("claimed")),
                               self.lexicon, self.tileset, self.game_file.rules, labelling=self.game_file.labelling)
            kept = self.verdicts[key] = (found.paid, found.outcome, found.reason)
        return kept


# --------------------------------------------------------------------------------------------------
# Verifying


@dataclass(frozen=True)
class VerifiedResults:
    results: dict
    sha256: str
    centre: str
    game_id: str
    sequence: int
    final: bool
    differences: tuple = field(default=())  # verdicts the organiser's judge gives otherwise: listed for review

    def entries(self) -> list[Entry]:
        """The file's players as the merge reads them, with the centre's verdicts (never the organiser's)."""
        out = []
        for p in self.results["players"]:
            verdicts = [r["verdict"] for r in p["rounds"]]
            out.append(Entry(centre=self.centre, game=self.game_id, final=self.final,
                             **{name: p.get(name, "") or "" for name in IDENTITY},
                             paid=tuple(v["paid"] for v in verdicts), outcomes=tuple(v["outcome"] for v in verdicts),
                             reasons=tuple(v["reason"] for v in verdicts)))
        return out


def read_results(raw) -> dict:
    """A results file parsed (bytes, text or a dict); 400 ``bad_results`` when it is not one."""
    if isinstance(raw, bytes | bytearray | str):
        try:
            raw = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise ServiceError("bad_results", params={"why": "json"}) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ServiceError("bad_results", params={"why": "format"})
    if raw.get("version") != VERSION:
        raise ServiceError("bad_results", params={"why": "version", "version": VERSION})
    try:
        ok = (isinstance(raw[SEAL_KEY], dict) and isinstance(raw["centre"], dict) and isinstance(raw["centre"]["id"], str)
              and isinstance(raw["players"], list) and isinstance(raw["corrections"], list)
              and isinstance(raw["sequence"], int) and all(isinstance(raw[n], str)
                                                          for n in ("event", "game_id", "pack_sha256")))
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise ServiceError("bad_results", params={"why": "format"})
    return raw


def _check_signature(results: dict, centre_key: str) -> None:
    body = {name: value for name, value in results.items() if name != SEAL_KEY}
    mark = results[SEAL_KEY]
    try:
        if mark.get("alg") != seal.ALGORITHM:
            raise ValueError("not an ed25519 seal")
        public = Ed25519PublicKey.from_public_bytes(seal._unb64(mark.get("key", "")))
        public.verify(seal._unb64(mark.get("sig", "")), seal.canonical(body))
    except (InvalidSignature, ValueError, TypeError, binascii.Error):
        raise ServiceError("results_altered") from None
    signer = public_text(public)
    if signer != str(centre_key).strip().rstrip("="):
        raise ServiceError("results_forged", params={"centre": results["centre"]["id"],
                                                     "fingerprint": fingerprint(signer)})


def _sound_round(r) -> bool:
    slip, verdict = r.get("slip"), r.get("verdict")
    return (isinstance(r.get("round"), int) and isinstance(verdict, dict) and isinstance(verdict.get("paid"), int)
            and (slip is None or (isinstance(slip, dict) and isinstance(slip.get("word"), str)
                                  and isinstance(slip.get("ref"), str)
                                  and (slip.get("claimed") is None or isinstance(slip.get("claimed"), int)))))


def _check_players(results: dict, rounds: set[int]) -> None:
    for player in results["players"]:
        try:
            if not all(_sound_round(r) for r in player["rounds"]):
                raise TypeError("a round is not a slip and a verdict")
            played = player["rounds"]
            numbers = [r["round"] for r in played]
            paid = sum(int(r["verdict"]["paid"]) for r in played)
            warnings = sum(1 for r in played if r["verdict"]["outcome"] == "warning")
            name = str(player["name"])
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ServiceError("bad_results", params={"why": "format"}) from None
        if len(set(numbers)) != len(numbers) or not set(numbers) <= rounds:
            raise ServiceError("bad_results", params={"why": "rounds", "name": name})
        if paid != player.get("total") or warnings != player.get("warnings"):
            raise ServiceError("results_totals", params={"name": name, "total": player.get("total"), "sum": paid})


def verify_results(raw, *, centre_key: str, game_file: GameFile, event: str, pack_sha256: str,
                   accepted=frozenset(), cache: JudgeCache | None = None) -> VerifiedResults:
    """Check a centre's results file (see the module's docstring): refused (ServiceError) when it is not one,
    altered, signed by another key than ``centre_key``, of another event or pack, already ``accepted`` (its
    content hash) or with totals that do not add up; otherwise every slip is judged again with ``cache`` (made
    here when not given) and the verdicts that differ from the centre's are listed, unchanged in the file."""
    results = read_results(raw)
    _check_signature(results, centre_key)
    if results["event"] != event:
        raise ServiceError("results_wrong_event", params={"event": results["event"]})
    if results["pack_sha256"] != pack_sha256:
        raise ServiceError("results_wrong_event", params={"why": "pack", "game": results["game_id"]})
    digest = results_sha256(results)
    if digest in accepted:
        raise ServiceError("results_replayed", params={"sha256": digest[:16]})
    cache = cache or JudgeCache(game_file)
    _check_players(results, set(cache.rounds))
    differences = []
    for player in results["players"]:
        for r in player["rounds"]:
            paid, outcome, reason = cache.verdict(r["round"], r["slip"])
            given = r["verdict"]
            if (paid, outcome, reason) != (given["paid"], given["outcome"], given["reason"]):
                differences.append({"player": player.get("id", ""), "name": player["name"], "round": r["round"],
                                    "slip": r["slip"], "centre_verdict": dict(given),
                                    "judged": {"paid": paid, "outcome": outcome, "reason": reason}})
    return VerifiedResults(results, digest, results["centre"]["id"], results["game_id"], results["sequence"],
                           bool(results.get("final")), tuple(differences))


# --------------------------------------------------------------------------------------------------
# The organiser's inbox


@dataclass
class _Game:
    game_file: GameFile
    pack_sha256: str
    cache: JudgeCache


class ResultsInbox:
    """The organiser's results of one event: ``register_centre``, ``add_game``, then ``accept`` each file (a
    later ``sequence`` of a centre's game replaces the one held, kept in ``history``; an earlier or equal one is
    refused ``results_outdated``), and ``standings``."""

    def __init__(self, event: str, rules=None):
        self.event = event
        self.rules = rules
        self.centres: dict[str, str] = {}  # centre id -> public key
        self.games: dict[str, _Game] = {}
        self.current: dict[tuple[str, str], VerifiedResults] = {}
        self.history: list[VerifiedResults] = []
        self.hashes: set[str] = set()

    def register_centre(self, centre: str, public_key: str) -> None:
        self.centres[str(centre)] = str(public_key).strip().rstrip("=")

    def add_game(self, game_id: str, game_file: GameFile, pack_sha256: str) -> None:
        self.games[str(game_id)] = _Game(game_file, pack_sha256, JudgeCache(game_file))
        if self.rules is None:
            self.rules = game_file.rules

    def accept(self, raw) -> VerifiedResults:
        results = read_results(raw)
        centre, game_id = results["centre"]["id"], results["game_id"]
        if centre not in self.centres:
            raise ServiceError("results_unknown_centre", params={"centre": centre})
        game = self.games.get(game_id)
        if game is None:
            raise ServiceError("results_wrong_event", params={"why": "game", "game": game_id})
        verified = verify_results(results, centre_key=self.centres[centre], game_file=game.game_file,
                                  event=self.event, pack_sha256=game.pack_sha256, accepted=self.hashes,
                                  cache=game.cache)
        held = self.current.get((centre, game_id))
        if held is not None and verified.sequence <= held.sequence:
            raise ServiceError("results_outdated", params={"sequence": verified.sequence, "held": held.sequence})
        self.current[(centre, game_id)] = verified
        self.history.append(verified)
        self.hashes.add(verified.sha256)
        return verified

    def differences(self) -> list[dict]:
        return [{"centre": v.centre, "game": v.game_id, **d} for v in self.current.values() for d in v.differences]

    def standings(self, event_solos: bool | None = None) -> dict:
        games = [EventGame(game_id, tuple(r.master.score if r.master else 0 for r in g.game_file.game.rounds),
                           tuple(self.centres)) for game_id, g in self.games.items()]
        entries = [entry for verified in self.current.values() for entry in verified.entries()]
        return merge_standings(games, entries, self.rules, event_solos=event_solos, reported=set(self.current))
