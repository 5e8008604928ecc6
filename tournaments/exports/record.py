"""The complete record of a game as JSON: enough to play the game back (``restore.restore_record``) and get
the same results and standings.

It holds the tournament's settings, the game's seed, the players (with the round after which each
arrived), and per round the rack as drawn (kept and new letters, rejected draws, random or typed), its
times, every slip handed in (replaced ones too, in order), the slips that came late and the arbitrator's
admissions of them, the arbitrator's corrections with their reasons, the master, and the results as judged;
then the final board and the standings, for checking; the game's arbitrators and its whole log.

Players are named by their id (``key``): two players of one name stay two players. The record is sealed by
the server that wrote it (``seal``: tournaments/seal.py, over everything else in the record), so that an
import can tell a record this server or a trusted one wrote from one edited since.
"""

from __future__ import annotations

from django.utils import timezone

from tournaments import seal, selectors
from tournaments.formats import brief, iso
from tournaments.models import Game, GameArbitrator, LateSlip, LogEntry, Player, Result, Round, Slip
from tournaments.selectors import identity_of

RECORD_FORMAT = "duplicate-arbiter/game-record"
RECORD_VERSION = 1
CORRECTION_KEY = "correction:"
ADMITTED_KEY = "admitted:"
SEAL_KEY = "seal"


def _players(game: Game) -> list[dict]:
    rows = []
    for player in Player.objects.in_game(game).select_related("first_game"):
        arrived_here = player.first_game_id == game.pk
        rows.append(
            {
                "key": player.pk,
                "name": player.name,
                "table": player.table,
                "series": player.series,
                "arrival_round": player.arrival_round if arrived_here else 0,
                # The federation's identity, where given (a record of players without one is as before).
                **{key: value for key, value in identity_of(player, birth_date=True).items() if value},
            }
        )
    return rows


def _late(late: LateSlip, admissions: dict[int, LogEntry]) -> dict:
    """A slip that came after the end call, and the arbitrator's admission of it (the slip it became is not
    among the round's slips: a restore admits it again)."""
    entry = admissions.get(late.admitted_id) if late.admitted_id else None
    return {
        "player": late.player_id, "word": late.word, "ref": late.ref, "claimed": late.claimed, "key": late.key,
        "seq": late.seq, "received_at": iso(late.received_at), "late_by": late.late_by,
        "sent_at": iso(late.sent_at),  # when the phone says it sent it (information only), or null
        "entered": late.entered_by_id is not None,
        "admitted": None if late.admitted_id is None else {
            "reason": entry.reason if entry else "",
            "at": iso(entry.at) if entry else None,
            "by": entry.actor.get_username() if entry and entry.actor else None,
        },
    }


def _round(round: Round, slips: list[Slip], reasons: dict[int, LogEntry], results: list[Result],
           late: list[dict] | None = None) -> dict:
    handed_in, corrections = [], []
    for slip in slips:
        body = {"player": slip.player_id, "word": slip.word, "ref": slip.ref, "claimed": slip.claimed}
        if slip.key.startswith(ADMITTED_KEY):
            continue  # an admitted late slip: under "late_slips"
        if slip.key.startswith(CORRECTION_KEY):
            entry = reasons.get(slip.pk)
            corrections.append(
                {
                    **body,
                    "reason": entry.reason if entry else "",
                    "at": iso(entry.at) if entry else None,
                    "by": entry.actor.get_username() if entry and entry.actor else None,
                }
            )
        else:
            handed_in.append(
                {
                    **body,
                    "key": slip.key,
                    "received_at": iso(slip.received_at),
                    "entered": slip.entered_by_id is not None,
                }
            )
    return {
        "number": round.number,
        "status": round.status,
        "rack": round.rack,
        "kept": round.kept,
        "drawn": round.drawn,
        "rejected": list(round.rejected),
        "typed": round.typed,
        "drawn_at": iso(round.drawn_at),
        "started_at": iso(round.started_at),
        "deadline": iso(round.deadline),
        "closed_at": iso(round.closed_at),
        "top_score": round.top_score,
        "tops": [brief(top) for top in round.tops],
        "master": brief(round.master),
        # Incidents: the clock paused (and how long was left), resumed, extended; a rack replaced; the
        # round cancelled, with who and why (restore.py plays them back).
        "paused_at": iso(round.paused_at),
        "time_left": round.time_left,
        "extended_seconds": round.extended_seconds,
        "cancel_reason": round.cancel_reason,
        "incidents": list(round.incidents),
        "slips": handed_in,
        "late_slips": late or [],
        "corrections": corrections,
        "results": [
            {
                "player": r.player_id,
                "paid": r.paid,
                "outcome": r.outcome,
                "reason": r.reason,
                "corrected": r.corrected,
            }
            for r in results
        ],
    }


def _log(game: Game, rounds: list[Round]) -> list[dict]:
    """The game's arbitration log, in order: who did what, when and why (rounds by number, players by id)."""
    numbers = {r.pk: r.number for r in rounds}
    return [
        {"at": iso(entry.at), "action": entry.action, "by": entry.actor.get_username() if entry.actor else None,
         "round": numbers.get(entry.round_id), "player": entry.player_id, "before": entry.before,
         "after": entry.after, "reason": entry.reason}
        for entry in LogEntry.objects.filter(game=game).select_related("actor").order_by("id")
    ]


def _tile_labels(tournament) -> dict[str, str]:
    tiles = tournament.tiles
    if tiles.plain:
        return {}
    return {letter.letter: letter.shown for letter in tiles.letters if letter.shown != letter.letter}


def seal_record(record: dict) -> dict:
    """The record with this server's seal over everything else in it."""
    body = {key: value for key, value in record.items() if key != SEAL_KEY}
    return {**body, SEAL_KEY: seal.sign(body)}


def export_record(game: Game) -> dict:
    """The game's complete record, sealed by this server, ready for ``json.dumps``."""
    return seal_record(withheld_in_play(_record(game), game))


def _record(game: Game) -> dict:
    tournament = game.tournament
    rounds = list(game.rounds.order_by("number", "id"))
    slips: dict[int, list[Slip]] = {r.pk: [] for r in rounds}
    for slip in Slip.objects.filter(round__game=game).order_by("id"):
        slips[slip.round_id].append(slip)
    results: dict[int, list[Result]] = {r.pk: [] for r in rounds}
    for result in Result.objects.filter(round__game=game).order_by("player_id"):
        results[result.round_id].append(result)
    reasons = {
        entry.slip_id: entry
        for entry in LogEntry.objects.filter(game=game, action="slip_correct")
        .select_related("actor")
        .order_by("id")
    }
    admissions = {
        entry.slip_id: entry
        for entry in LogEntry.objects.filter(game=game, action="late_admit").select_related("actor").order_by("id")
    }
    late: dict[int, list[dict]] = {r.pk: [] for r in rounds}
    for slip in LateSlip.objects.filter(round__game=game).order_by("received_at", "id"):
        late[slip.round_id].append(_late(slip, admissions))
    standings = selectors.game_standings(game=game)
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "exported_at": timezone.now().isoformat(),
        "tournament": {
            "id": tournament.pk,
            "name": tournament.name,
            "lexicon": tournament.lexicon,
            "lexicon_sha256": tournament.lexicon_sha256,
            "tileset": tournament.tileset,
            "ruleset": tournament.ruleset,
            "rule_overrides": dict(tournament.rule_overrides),
            "round_seconds": tournament.round_seconds,
            "coordinates": tournament.coordinates,
            # The variant and timing (engine.rules.variant_rules); a record without them is a classic game.
            "variant": tournament.variant,
            "timing": tournament.timing,
            # Racks, boards and words keep one storage character a tile (Θ is Spanish CH); a set whose tiles
            # are not all their letters names each label, for a reader of the file (English, French: none).
            **({"tile_labels": labels} if (labels := _tile_labels(tournament)) else {}),
        },
        "game": {
            "id": game.pk,
            "number": game.number,
            "seed": game.seed,
            "status": game.status,
            "end_reason": game.end_reason,
            "created_at": iso(game.created_at),
            "ended_at": iso(game.ended_at),
            "board": list(game.board),
            "bag": game.bag,
            "restored_at": iso(game.restored_at),
            "record_seal": game.record_seal,
        },
        "players": _players(game),
        "arbitrators": [
            {"user": row.user.get_username(), "role": row.role}
            for row in GameArbitrator.objects.filter(game=game).select_related("user").order_by("id")
        ],
        "rounds": [_round(r, slips[r.pk], reasons, results[r.pk], late[r.pk]) for r in rounds],
        "log": _log(game, rounds),
        # Each round's last log entry and the game's, by place and hash (tournaments/logchain.py): a copy of
        # this record proves the log unaltered up to them (manage.py verifylog --record).
        "log_chain": selectors.log_chain_heads(game=game),
        "standings": [
            {
                key: row.get(key)
                for key in (
                    "rank",
                    "player",
                    "name",
                    "table",
                    "series",
                    "total",
                    "diff",
                    "percent",
                    "tops",
                    "solos",
                    "warnings",
                    "penalties",
                )
            }
            # Topping: the total time in seconds, by which the rows are ranked (docs/rules.md 7.5).
            | ({"seconds": row["seconds"]} if "seconds" in row else {})
            for row in standings
        ],
    }


IN_PLAY = (Round.Status.DRAWN, Round.Status.OPEN)


def withheld_in_play(record: dict, game: Game) -> dict:
    """A record of a game in play keeps the game's secrets: the seed and the bag until the game is over (the
    next racks follow from them), and a drawn or open round's tops, master and slips (nobody sees them
    before its close), with the log entries that carry them (slips by a player, the bag). ``withheld`` says
    what was left out; the closed rounds restore as usual (their racks typed when no seed draws them)."""
    if game.status == Game.Status.OVER:
        return record
    playing = {row["number"] for row in record["rounds"] if row["status"] in IN_PLAY}
    rounds = [
        {**row, "top_score": None, "tops": [], "master": None, "slips": [], "late_slips": [], "corrections": [],
         "results": []} if row["status"] in IN_PLAY else row
        for row in record["rounds"]
    ]
    log = [
        {**entry, **{part: _without_bag(entry.get(part)) for part in ("before", "after")}}
        for entry in record.get("log", [])
        if not (entry.get("round") in playing and entry.get("player") is not None)
    ]
    withheld = ["seed", "bag"] + [f"round {number}: tops, master, slips" for number in sorted(playing)]
    result = {**record, "game": {**record["game"], "seed": None, "bag": None}, "rounds": rounds,
              "withheld": withheld}
    if "log" in record:
        result["log"] = log
    return result


def _without_bag(part):
    return {key: value for key, value in part.items() if key != "bag"} if isinstance(part, dict) else part
