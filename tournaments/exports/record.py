"""The complete record of a game as JSON: enough to play the game back (``restore.restore_record``) and get
the same results and standings.

It holds the tournament's settings, the game's seed, the players (with the round after which each
arrived), and per round the rack as drawn (kept and new letters, rejected draws, random or typed), its
times, every slip handed in (replaced ones too, in order), the arbitrator's corrections with their reasons,
the master, and the results as judged; then the final board and the standings, for checking.
"""

from __future__ import annotations

from django.utils import timezone

from tournaments import selectors
from tournaments.formats import brief, iso
from tournaments.models import Game, LogEntry, Player, Result, Round, Slip

RECORD_FORMAT = "duplicate-arbiter/game-record"
RECORD_VERSION = 1
CORRECTION_KEY = "correction:"


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
            }
        )
    return rows


def _round(round: Round, slips: list[Slip], reasons: dict[int, LogEntry], results: list[Result]) -> dict:
    handed_in, corrections = [], []
    for slip in slips:
        body = {"player": slip.player_id, "word": slip.word, "ref": slip.ref, "claimed": slip.claimed}
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


def export_record(game: Game) -> dict:
    """The game's complete record, ready for ``json.dumps`` (a game in play: its secrets withheld)."""
    return withheld_in_play(_record(game), game)


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
    standings = selectors.game_standings(game=game)
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "exported_at": timezone.now().isoformat(),
        "tournament": {
            "name": tournament.name,
            "lexicon": tournament.lexicon,
            "lexicon_sha256": tournament.lexicon_sha256,
            "tileset": tournament.tileset,
            "ruleset": tournament.ruleset,
            "rule_overrides": dict(tournament.rule_overrides),
            "round_seconds": tournament.round_seconds,
            "coordinates": tournament.coordinates,
        },
        "game": {
            "number": game.number,
            "seed": game.seed,
            "status": game.status,
            "end_reason": game.end_reason,
            "created_at": iso(game.created_at),
            "ended_at": iso(game.ended_at),
            "board": list(game.board),
            "bag": game.bag,
        },
        "players": _players(game),
        "rounds": [_round(r, slips[r.pk], reasons, results[r.pk]) for r in rounds],
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
