"""Functions that read: plain dicts and lists, ready for JSON or templates.

Before a round closes nobody sees its tops, its master or other players' slips: only the round detail
of a closed round carries them.
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import NamedTuple

from django.db import connection
from django.db.models import Count, F, Q
from django.utils import timezone

from engine.notation import labels
from tournaments.formats import brief, iso
from tournaments.models import Game, Player, Result, Round, Slip, Tournament, hash_token
from tournaments.versions import game_version

NOT_PLAYED = ("no_slip", "absent")


def _plausible_token(token) -> bool:
    """Whether ``token`` could be a player's token at all (a string, not empty, 200 characters at most)."""
    return bool(token) and isinstance(token, str) and len(token) <= 200


def player_for_token(*, game_id: int, token: str) -> Player | None:
    """The player a bearer token belongs to, if that player takes part in this game."""
    if not _plausible_token(token):
        return None
    if not _in_range(game_id):
        return None
    # Every slip of a hall goes through here: one plain query, no ORM compilation. The token's player,
    # if the game is of their tournament and not before the game they joined in.
    fields = Player._meta.concrete_fields
    columns = ", ".join(f'p."{field.column}"' for field in fields)
    player, game = Player._meta.db_table, Game._meta.db_table
    sql = (f'SELECT {columns} FROM "{player}" p JOIN "{game}" g ON g."tournament_id" = p."tournament_id" '
           f'AND g."id" = %s JOIN "{game}" f ON f."id" = p."first_game_id" '
           f'WHERE p."token_hash" = %s AND f."number" <= g."number" LIMIT 1')
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id, hash_token(token)])
        row = cursor.fetchone()
    return None if row is None else _load(Player, fields, row)


def is_tournament_player(*, tournament_id: int, token: str | None) -> bool:
    """Whether a bearer token belongs to a player of this tournament, whichever of its games they joined."""
    return _plausible_token(token) and Player.objects.filter(tournament_id=tournament_id,
                                                             token_hash=hash_token(token)).exists()


def round_with_game(*, game_id: int, number: int) -> Round | None:
    """A round that is not cancelled, with its game and tournament loaded, in one plain query."""
    if not (_in_range(game_id) and _in_range(number)):
        return None
    models = (Round, Game, Tournament)
    fields = [model._meta.concrete_fields for model in models]
    columns = ", ".join(f'{alias}."{f.column}"' for alias, group in zip("rgt", fields, strict=True) for f in group)
    sql = (f'SELECT {columns} FROM "{Round._meta.db_table}" r JOIN "{Game._meta.db_table}" g ON g."id" = r."game_id" '
           f'JOIN "{Tournament._meta.db_table}" t ON t."id" = g."tournament_id" '
           f'WHERE r."game_id" = %s AND r."number" = %s AND r."status" <> %s LIMIT 1')
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id, number, Round.Status.CANCELLED])
        row = cursor.fetchone()
    if row is None:
        return None
    loaded, start = [], 0
    for model, group in zip(models, fields, strict=True):
        loaded.append(_load(model, group, row[start:start + len(group)]))
        start += len(group)
    round, game, tournament = loaded
    game.tournament = tournament
    round.game = game
    return round


def player_and_round(*, game_id: int, number: int, token: str) -> tuple[Player, Round] | None:
    """The token's player (as player_for_token finds it) and the round (as round_with_game loads it, with
    its game and tournament) in one plain query: a phone's slip at a festival's deadline. None when either
    is missing (the caller then asks each, to say which)."""
    if not (_plausible_token(token) and _in_range(game_id) and _in_range(number)):
        return None
    sql, groups = _player_and_round_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id, number, Round.Status.CANCELLED, hash_token(token)])
        row = cursor.fetchone()
    if row is None:
        return None
    loaded, start = [], 0
    for model, group in groups:
        loaded.append(_load(model, group, row[start:start + len(group)]))
        start += len(group)
    player, round, game, tournament = loaded
    game.tournament = tournament
    round.game = game
    return player, round


_sql: dict[str, tuple] = {}


def _player_and_round_sql() -> tuple[str, list]:
    """The query of player_and_round and its models' fields, made once per process."""
    found = _sql.get("player_and_round")
    if found is None:
        groups = [(model, model._meta.concrete_fields) for model in (Player, Round, Game, Tournament)]
        columns = ", ".join(f'{alias}."{f.column}"' for alias, (_, group) in zip("prgt", groups, strict=True)
                            for f in group)
        sql = (f'SELECT {columns} FROM "{Round._meta.db_table}" r JOIN "{Game._meta.db_table}" g ON g."id" = '
               f'r."game_id" JOIN "{Tournament._meta.db_table}" t ON t."id" = g."tournament_id" '
               f'JOIN "{Player._meta.db_table}" p ON p."tournament_id" = g."tournament_id" '
               f'JOIN "{Game._meta.db_table}" f ON f."id" = p."first_game_id" '
               f'WHERE r."game_id" = %s AND r."number" = %s AND r."status" <> %s AND p."token_hash" = %s '
               f'AND f."number" <= g."number" LIMIT 1')
        found = _sql["player_and_round"] = (sql, groups)
    return found


def _in_range(value) -> bool:
    """An id a database column can hold (the ORM answers 'none' beyond; a plain query would fail)."""
    return isinstance(value, int) and -(2**63) <= value < 2**63


_converters: dict[tuple, list] = {}


def _load(model, fields, values):
    """A model instance from a plain query's row, the values converted as the ORM would (JSON text,
    SQLite's dates and booleans...)."""
    key = (model, connection.vendor)
    found = _converters.get(key)
    if found is None:
        found = []
        for field in fields:
            column = field.get_col(model._meta.db_table)
            found.append((column, connection.ops.get_db_converters(column) + column.get_db_converters(connection)))
        _converters[key] = found
    converted = []
    for (column, converters), value in zip(found, values, strict=True):
        for converter in converters:
            value = converter(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def current_round(game: Game) -> Round | None:
    """The round in play, else the last one closed (cancelled rounds are skipped)."""
    return game.rounds.current().first()


def coordinate_labels(labelling: str) -> dict:
    rows, cols = labels(labelling)
    return {"rows": list(rows), "cols": list(cols)}


def game_state(*, game: Game) -> dict:
    """The body of GET /api/games/{id}: the board, the bag and the current round (never its tops)."""
    tournament = game.tournament
    round = current_round(game)
    return {
        "id": game.pk,
        "tournament": tournament.pk,
        "tournament_name": tournament.name,
        "number": game.number,
        "status": game.status,
        "end_reason": game.end_reason,
        "join_code": game.join_code,
        "round": round.number if round else None,
        "round_status": round.status if round else None,
        "rack": round.rack if round else None,
        "kept": round.kept if round else None,
        "drawn": round.drawn if round else None,
        "rejected": list(round.rejected) if round else [],
        "deadline": iso(round.deadline) if round else None,
        "board": list(game.board),
        "bag_count": len(game.bag),
        "pending_rejected": list(game.pending_rejected),  # physical draws rejected before the next rack
        "coordinates": tournament.coordinates,
        "labels": coordinate_labels(tournament.coordinates),
        "lexicon": tournament.lexicon,
        "tileset": tournament.tileset,
        "ruleset": tournament.ruleset,
        "round_seconds": tournament.round_seconds,
        "variant": tournament.variant,  # the variant and timing played (engine.rules.variant_rules)
        "timing": tournament.timing,
        "players": Player.objects.in_game(game).count(),
        "version": game_version(game.pk),
        "server_time": timezone.now().isoformat(),
        "restored": restored_from(game),
    }


def restored_from(game: Game) -> dict | None:
    """A game played back from a record: when, and whose seal the record bore (``this_server``,
    ``trusted``, ``unknown_key``, ``unsigned``) with the signer's key; None for a game played here."""
    if game.restored_at is None:
        return None
    return {"at": iso(game.restored_at), "seal": game.record_seal, "signer": game.record_signer}


def overdue(body: dict, now=None) -> bool:
    """A live body (or snapshot) that shows an open round whose deadline has passed: it must be closed."""
    if body.get("round_status") != "open" or not body.get("deadline") or body.get("paused"):
        return False  # a paused round never closes
    deadline = body["deadline"]
    if isinstance(deadline, str):
        deadline = datetime.fromisoformat(deadline)
    return deadline <= (now or timezone.now())


def _slip_body(slip: Slip) -> dict:
    return {"id": slip.pk, "word": slip.word, "ref": slip.ref, "claimed": slip.claimed,
            "received_at": iso(slip.received_at)}


def _result_row(result: Result, top_score: int | None) -> dict:
    slip, player = result.slip, result.player
    return {
        "player": player.pk,
        "name": player.name,
        "table": player.table,
        "word": slip.word if slip else None,
        "ref": slip.ref if slip else None,
        "claimed": slip.claimed if slip else None,
        "paid": result.paid,
        "outcome": result.outcome,
        "reason": result.reason,
        "message": result.message,
        "placement": result.placement,
        "top": top_score is not None and result.paid == top_score,
        "corrected": result.corrected,
    }


def _result_values(row: tuple, top_score: int | None) -> dict:
    """_result_row from a values_list row of round_detail."""
    player, name, table, word, ref, claimed, slip_id, paid, outcome, reason, message, placement, corrected = row
    has_slip = slip_id is not None
    return {
        "player": player,
        "name": name,
        "table": table,
        "word": word if has_slip else None,
        "ref": ref if has_slip else None,
        "claimed": claimed if has_slip else None,
        "paid": paid,
        "outcome": outcome,
        "reason": reason,
        "message": message,
        "placement": placement,
        "top": top_score is not None and paid == top_score,
        "corrected": corrected,
    }


def round_detail(*, round: Round, player: Player | None = None, arbitrator: bool = False) -> dict:
    """The body of GET /api/games/{id}/rounds/{n}. Tops, master and results only once the round is closed;
    before, a player sees their own slip and the arbitrator only whether the tops are ready."""
    closed = round.status == Round.Status.CLOSED
    body = {
        "number": round.number,
        "status": round.status,
        "rack": round.rack,
        "kept": round.kept,
        "drawn": round.drawn,
        "rejected": list(round.rejected),
        "board": list(round.board),
        "deadline": iso(round.deadline),
        "started_at": iso(round.started_at),
        "closed_at": iso(round.closed_at),
        "top_score": round.top_score if closed else None,
        "tops": [brief(top) for top in round.tops] if closed else None,
        "master": brief(round.master) if closed else None,
        "results": None,
    }
    # The same in the tiles' labels (Catalan L·L is stored as W, Spanish CH as Θ): what a client shows.
    tiles = round.game.tournament.tiles
    body["rack_labels"] = tiles.labels(round.rack)
    body["board_labels"] = [tiles.labels(row) for row in round.board]
    for play in ([*(body["tops"] or []), body["master"]] if closed else []):
        if play is not None:
            play["word_labels"] = tiles.show(play["word"])
    if closed:
        # Plain rows (a festival's round has a thousand): what _result_row reads, nothing more.
        rows = (Result.objects.filter(round=round).order_by("player_id")
                .values_list("player_id", "player__name", "player__table", "slip__word", "slip__ref",
                             "slip__claimed", "slip_id", "paid", "outcome", "reason", "message", "placement",
                             "corrected"))
        body["results"] = [_result_values(row, round.top_score) for row in rows]
    if player is not None:
        slip = Slip.objects.filter(round=round, player=player, current=True).first()
        body["slip"] = _slip_body(slip) if slip else None
    if arbitrator:
        body["late"] = [
            {"id": late.pk, "player": late.player_id, "name": late.player.name, "table": late.player.table,
             "word": late.word, "ref": late.ref, "claimed": late.claimed, "received_at": iso(late.received_at),
             "late_by": late.late_by, "sent_at": iso(late.sent_at), "sent_before": _sent_before(round, late),
             "admitted": late.admitted_id is not None}
            for late in round.late_slips.select_related("player").order_by("received_at", "id")
        ]
        body["tops_ready"] = round.tops_ready
        body["no_play"] = round.tops_ready and round.top_score is None
        body["progress"] = round_progress(round=round)
    return body


def _sent_before(round: Round, late) -> float | None:
    """How many seconds before the end call (the deadline, or an earlier close) the phone says it sent the
    late slip; None when it did not say, or said a time after the end call."""
    if late.sent_at is None or round.deadline is None:
        return None
    end = round.closed_at if round.closed_at is not None and round.closed_at < round.deadline else round.deadline
    seconds = (end - late.sent_at).total_seconds()
    return builtins.round(seconds, 3) if seconds > 0 else None


def round_counts(*, round: Round) -> dict:
    """How many slips are in, out of how many players: two counts, no rows (the live snapshot is built
    again at every first slip of a player, a hundred times a second at a festival's deadline)."""
    received = Slip.objects.filter(round=round, current=True).count()
    return {"received": received, "players": Player.objects.in_game(round.game).count()}


def found_top(*, rounds) -> dict[int, dict]:
    """How many players found each closed round's top, out of how many: ``{round id: {"found": N,
    "players": M}}``, for every round given (one query for them all). The review and the solutions sheet
    both say it from here.

    M, the round's players: every player of the game at that round, with a slip or without one (no slip, a
    late slip, a zero all count); not a player who joined the game later (their results of the rounds before
    read ``absent``). N: of them, those paid the round's top score (none when the round's top is 0 or not
    known)."""
    counts = {r.pk: {"found": 0, "players": 0} for r in rounds}
    rows = (Result.objects.filter(round__in=list(counts)).exclude(reason="absent").values("round_id")
            .annotate(players=Count("id"),
                      found=Count("id", filter=Q(round__top_score__gt=0, paid=F("round__top_score")))))
    for row in rows:
        counts[row["round_id"]] = {"found": row["found"], "players": row["players"]}
    return counts


def round_progress(*, round: Round) -> dict:
    """How many slips are in and who is missing, never their content."""
    players = list(Player.objects.in_game(round.game))
    with_slip = set(Slip.objects.filter(round=round, current=True).values_list("player_id", flat=True))
    missing = [{"id": p.pk, "name": p.name, "table": p.table} for p in players if p.pk not in with_slip]
    return {"received": len(with_slip), "players": len(players), "missing": missing}


def game_progress(*, game: Game) -> dict:
    """The body of GET /api/games/{id}/progress: the current round (None before the first draw), its status
    and deadline, how many slips are in and who is missing."""
    round = current_round(game)
    if round is None:
        players = list(Player.objects.in_game(game))
        counts = {"received": 0, "players": len(players),
                  "missing": [{"id": p.pk, "name": p.name, "table": p.table} for p in players]}
    else:
        counts = round_progress(round=round)
    return {
        "round": round.number if round else None,
        "status": round.status if round else None,
        "deadline": iso(round.deadline) if round else None,
        **counts,
    }


# --------------------------------------------------------------------------------------------------
# Standings


class _Paid(NamedTuple):
    """What the standings read of a result."""

    paid: int
    outcome: str
    reason: str


# The federation's identity (tournaments/federation.py) the standings' rows carry, as the federation's own
# rankings print it. The date of birth is not among them: the standings go to every phone and the projector,
# and the category already says the age; the arbitrator's CSV adds it (birth_dates).
IDENTITY = ("licence", "club", "category")
RECORD_IDENTITY = (*IDENTITY, "birth_date")  # what a game record keeps, and a restore gives back


def identity_of(player: Player, *, birth_date: bool = False) -> dict:
    """The player's federation identity as the standings' rows carry it; with ``birth_date``, also the date of
    birth in ISO form, as the game record keeps it."""
    identity = {"licence": player.licence, "club": player.club, "category": player.category}
    if birth_date:
        identity["birth_date"] = player.birth_date.isoformat() if player.birth_date else ""
    return identity


def birth_dates(game: Game) -> dict[int, str]:
    """Each player's date of birth in ISO form ("" when not given), for the arbitrator's files only."""
    return {pk: born.isoformat() if born else ""
            for pk, born in Player.objects.in_game(game).values_list("id", "birth_date")}


def _game_table(game: Game) -> dict:
    """Everything the standings of one game need, computed once."""
    from engine.tally import count_solos, solo_bonuses, solos_count, warning_deduction

    rules = game.tournament.rules
    players = list(Player.objects.in_game(game).only("id", "name", "table", "series", *IDENTITY))
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number")
                  .only("id", "number", "top_score"))
    paid: dict[int, dict[int, _Paid]] = {r.pk: {} for r in rounds}
    # Plain rows: a festival's game has a thousand players times its rounds.
    for round_id, player_id, amount, outcome, reason in Result.objects.filter(round__in=rounds).values_list(
        "round_id", "player_id", "paid", "outcome", "reason"
    ):
        paid[round_id][player_id] = _Paid(amount, outcome, reason)
    round_scores = [{p.pk: (paid[r.pk][p.pk].paid if p.pk in paid[r.pk] else 0) for p in players} for r in rounds]
    played = {
        pid for r in rounds for pid, result in paid[r.pk].items() if result.reason not in NOT_PLAYED
    }
    solos = count_solos(round_scores) if solos_count(len(played), rules) else {}
    bonuses = solo_bonuses(round_scores, len(played), rules)
    over = game.status == Game.Status.OVER
    sum_tops = sum(r.top_score or 0 for r in rounds)
    rows = []
    for p in players:
        results = [paid[r.pk].get(p.pk) for r in rounds]
        scores = [res.paid if res else 0 for res in results]
        warnings = sum(1 for res in results if res and res.outcome == Result.Outcome.WARNING)
        deduction = warning_deduction(warnings, rules) if over else 0
        bonus = bonuses.get(p.pk, 0) if over else 0
        total = sum(scores) + bonus - deduction
        rows.append({
            "player": p.pk,
            "name": p.name,
            "table": p.table,
            "series": p.series,
            **identity_of(p),
            "total": total,
            "diff": total - sum_tops,
            "percent": round(100 * total / sum_tops, 2) if sum_tops else 0.0,
            "tops": sum(1 for r, s in zip(rounds, scores, strict=True) if r.top_score and s == r.top_score),
            "solos": solos.get(p.pk, 0),
            "solo_points": bonus,
            "warnings": warnings,
            "warning_points": deduction,
            "penalties": sum(1 for res in results if res and res.outcome == Result.Outcome.PENALTY),
            "rounds": len(rounds),
            "_scores": scores,
        })
    return {"rows": rows, "sum_tops": sum_tops, "rounds": rounds}


def _rank(rows: list[dict], key) -> None:
    """Competition ranking (1, 1, 3): rows with equal keys share a rank. Sorts ``rows`` in place."""
    rows.sort(key=lambda row: (key(row), -row["player"]), reverse=True)
    previous, rank = None, 0
    for i, row in enumerate(rows, start=1):
        k = key(row)
        if k != previous:
            rank, previous = i, k
        row["rank"] = rank
    _series_rank(rows, key)


def _series_rank(rows: list[dict], key) -> None:
    by_series: dict[str, list[dict]] = {}
    for row in rows:
        by_series.setdefault(row.get("series") or "", []).append(row)
    for group in by_series.values():
        previous, rank = None, 0
        for i, row in enumerate(group, start=1):
            k = key(row)
            if k != previous:
                rank, previous = i, k
            row["series_rank"] = rank


def game_standings(*, game: Game) -> list[dict]:
    """Rows of GET /api/games/{id}/standings, best first; solos and warning deductions count once the game
    is over. ``diff`` is the total minus the sum of the tops (negative); ties share a rank."""
    table = _game_table(game)
    rows = table["rows"]
    from tournaments.topping_selectors import is_topping, player_seconds

    if is_topping(game.tournament):  # topping: times, the lowest total first (docs/rules.md 7.5)
        times = player_seconds(game=game)
        for row in rows:
            row["seconds"] = times.get(row["player"], {}).get("seconds", 0)
            row["tops"] = times.get(row["player"], {}).get("found", 0)
        _rank(rows, key=lambda row: -row["seconds"])
    else:
        _rank(rows, key=lambda row: row["total"])
    for row in rows:
        row.pop("_scores")
    return rows


def standings_provisional(game: Game) -> bool:
    """Whether the game's standings are provisional: its last closed round still waits for paper slips
    (the arbitrator has not marked its slips complete). A game whose players all joined by phone never is."""
    last = (game.rounds.filter(status=Round.Status.CLOSED).order_by("-number")
            .values_list("slips_complete", flat=True).first())
    return last is not None and not last


def tournament_standings(*, tournament: Tournament) -> list[dict]:
    """Totals over the tournament's games. Ties are broken by the last game, then its last round, then the
    round before, and so on back through the earlier games; players still tied share a rank."""
    games = list(tournament.games.order_by("number"))
    tables = [_game_table(g) for g in games]
    rows: dict[int, dict] = {}
    for player in Player.objects.filter(tournament=tournament).order_by("id"):
        rows[player.pk] = {
            "player": player.pk, "name": player.name, "table": player.table, "series": player.series,
            **identity_of(player), "total": 0, "games": [], "sum_tops": 0, "tops": 0, "solos": 0, "warnings": 0, "penalties": 0,
            "_tiebreak": [],
        }
    for game, table in zip(games, tables, strict=True):
        seen = set()
        for r in table["rows"]:
            row = rows[r["player"]]
            seen.add(r["player"])
            row["total"] += r["total"]
            row["games"].append({"game": game.pk, "number": game.number, "total": r["total"]})
            row["tops"] += r["tops"]
            row["solos"] += r["solos"]
            row["warnings"] += r["warnings"]
            row["penalties"] += r["penalties"]
            # Later games come first in the tie-break: prepend this game's total and its rounds, last first.
            row["_tiebreak"] = [r["total"], *reversed(r["_scores"]), *row["_tiebreak"]]
        for pid, row in rows.items():
            if pid not in seen:
                row["games"].append({"game": game.pk, "number": game.number, "total": 0})
                row["_tiebreak"] = [0] * (1 + len(table["rounds"])) + row["_tiebreak"]
            row["sum_tops"] += table["sum_tops"]
    result = list(rows.values())
    for row in result:
        row["diff"] = row["total"] - row["sum_tops"]
        row["percent"] = round(100 * row["total"] / row["sum_tops"], 2) if row["sum_tops"] else 0.0
    from tournaments.topping_selectors import is_topping, player_seconds

    if is_topping(tournament):  # topping: the total time over the games, the lowest first
        times = [player_seconds(game=g) for g in games]
        for row in result:
            row["seconds"] = sum(t.get(row["player"], {}).get("seconds", 0) for t in times)
            # Each game's time beside its points (None: the player was not in that game).
            for entry, t in zip(row["games"], times, strict=True):
                entry["seconds"] = t[row["player"]]["seconds"] if row["player"] in t else None
        _rank(result, key=lambda row: -row["seconds"])
    else:
        _rank(result, key=lambda row: (row["total"], *row["_tiebreak"]))
    for row in result:
        row.pop("_tiebreak")
    return result


# --------------------------------------------------------------------------------------------------
# Sheets


def player_rounds(*, game: Game, player: Player) -> list[dict]:
    """A player's score sheet: per closed round the rack, the slip, what was paid and the top, with running
    totals of the player and of the tops."""
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    results = {r.round_id: r for r in Result.objects.filter(round__in=rounds, player=player).select_related("slip")}
    rows, total, total_tops = [], 0, 0
    for r in rounds:
        result = results.get(r.pk)
        slip = result.slip if result else None
        paid = result.paid if result else 0
        total += paid
        total_tops += r.top_score or 0
        rows.append({
            "number": r.number,
            "rack": r.rack,
            "word": slip.word if slip else None,
            "ref": slip.ref if slip else None,
            "claimed": slip.claimed if slip else None,
            "paid": paid,
            "outcome": result.outcome if result else "zero",
            "reason": result.reason if result else "absent",
            "message": result.message if result else "",
            "placement": result.placement if result else "",
            "top": brief(r.master),
            "top_score": r.top_score,
            "total": total,
            "top_total": total_tops,
        })
    return rows


def game_record(*, game: Game) -> dict:
    """The game's record (feuille de partie): per round the rack, rejected draws, master and running top
    total; cancelled rounds are listed too. Ends with the final board. The seed and the bag are given once
    the game is over (before, the next racks would follow from them)."""
    rows, total_tops = [], 0
    for r in game.rounds.order_by("number", "id"):
        closed = r.status == Round.Status.CLOSED
        if closed:
            total_tops += r.top_score or 0
        rows.append({
            "number": r.number,
            "status": r.status,
            "rack": r.rack,
            "kept": r.kept,
            "drawn": r.drawn,
            "rejected": list(r.rejected),
            "master": brief(r.master) if closed else None,
            "top_score": r.top_score if closed else None,
            "tops": len(r.tops) if closed else None,
            "top_total": total_tops,
            "incidents": list(r.incidents),  # paused, resumed, extended, rack replaced, cancelled (who, why)
            "cancel_reason": r.cancel_reason,
        })
    tournament = game.tournament
    return {
        "game": game.pk,
        "number": game.number,
        "tournament": tournament.name,
        "status": game.status,
        "seed": game.seed if game.status == Game.Status.OVER else None,
        "lexicon": tournament.lexicon,
        "lexicon_sha256": tournament.lexicon_sha256,
        "coordinates": tournament.coordinates,
        "labels": coordinate_labels(tournament.coordinates),
        "rounds": rows,
        "top_total": total_tops,
        "board": list(game.board),
        "bag": game.bag if game.status == Game.Status.OVER else None,
    }


# The arbitration log's chain (tournaments/logchain.py).


def log_chain_heads(*, game: Game) -> dict:
    """What a game record prints of the log's chain: for each round, the last entry about it (its close, or
    a correction after it), and the last entry of the game; each as its place (``seq``) and ``hash``. Any
    one of them vouches for every entry before it: ``log_check`` finds whether the log still passes
    through them."""
    from tournaments.logchain import CHAIN_VERSION
    from tournaments.models import LogEntry

    rows = list(LogEntry.objects.filter(game=game).order_by("seq").values_list("seq", "hash", "round__number"))
    last_of_round: dict[int, tuple[int, str]] = {}
    for seq, digest, number in rows:
        if number is not None:
            last_of_round[number] = (seq, digest)
    return {
        "version": CHAIN_VERSION,
        "rounds": [{"round": number, "seq": seq, "hash": digest}
                   for number, (seq, digest) in sorted(last_of_round.items())],
        "head": {"seq": rows[-1][0], "hash": rows[-1][1]} if rows else None,
    }


def log_head(game_id: int) -> tuple[int, str]:
    """The game's log chain head: its last entry's place and hash (0 and the genesis value for an empty log)."""
    from tournaments.logchain import GENESIS
    from tournaments.models import LogEntry

    last = LogEntry.objects.filter(game_id=game_id).order_by("-seq").values_list("seq", "hash").first()
    return (last[0], last[1]) if last else (0, GENESIS)


def chain_heads_text(games) -> str:
    """The chain heads of ``games`` as printed (logchain.head_text), one after the other."""
    from tournaments.logchain import head_text

    return "  ".join(head_text(game.pk, *log_head(game.pk)) for game in games)


def closed_rounds_head_text(game: Game) -> str:
    """The game's chain head after its last closed round, as printed: its last entry about a closed round
    (the close, or a correction after it); "" before any."""
    from tournaments.logchain import head_text
    from tournaments.models import LogEntry

    last = (LogEntry.objects.filter(game=game, round__status=Round.Status.CLOSED).order_by("-seq")
            .values_list("seq", "hash").first())
    return head_text(game.pk, *last) if last else ""


class LogBreak(NamedTuple):
    seq: int  # the first place in the chain that does not hold
    problem: str  # missing, altered, link, rewritten
    message: str
    entry_id: int | None = None


class LogCheck(NamedTuple):
    game_id: int
    entries: int
    head: dict | None  # {"seq", "hash"} of the last entry found
    heads_checked: int  # how many printed heads were compared
    broken: LogBreak | None

    @property
    def ok(self) -> bool:
        return self.broken is None


def record_heads(record: dict) -> list[dict]:
    """The chain heads a game record printed (its rounds' and the game's), in order of place."""
    chain = record.get("log_chain") if isinstance(record, dict) else None
    if not isinstance(chain, dict):
        return []
    heads = [head for head in chain.get("rounds") or [] if isinstance(head, dict)]
    if isinstance(chain.get("head"), dict):
        heads.append(chain["head"])
    return sorted((h for h in heads if isinstance(h.get("seq"), int) and isinstance(h.get("hash"), str)),
                  key=lambda h: h["seq"])


def log_check(*, game: Game, heads: list[dict] | None = None, rows: bool = True) -> LogCheck:
    """Walk the game's log chain from the start and report the first place where it does not hold: an entry
    missing (a gap in the numbering), one whose content no longer matches its hash, one that does not link
    to the entry before (an entry moved), or, against ``heads`` printed earlier (on a record, a receipt, a
    sheet, the public results, a results file), a place now empty or holding a different entry (the log cut
    at its end, emptied, or rewritten with fresh hashes).

    With ``rows``, then, the rows that decide a score (``_rows_check``): each slip, result and late slip must
    match the digest last chained for it, and every slip and result of a round closed with digests must
    have one."""
    from tournaments.logchain import GENESIS, hash_of
    from tournaments.models import LogEntry

    expected, previous, count, last = 1, GENESIS, 0, None
    found: dict[int, str] = {}
    digests: dict[tuple[str, int], tuple[str, int]] = {}  # (kind, id): the last digest chained, and its place
    closes: dict[int, bool] = {}  # round id: whether its close chained the round's rows
    broken = None
    for entry in LogEntry.objects.filter(game=game).order_by("seq").iterator(chunk_size=2000):
        count += 1
        if broken is None:
            if entry.seq != expected:
                broken = LogBreak(expected, "missing",
                                  f"entries {expected} to {entry.seq - 1} are missing" if entry.seq > expected + 1
                                  else f"entry {expected} is missing", None)
            elif entry.prev_hash != previous:
                broken = LogBreak(entry.seq, "link", f"entry {entry.seq} does not follow the entry before it"
                                  " (removed, moved or written again)", entry.pk)
            elif hash_of(entry) != entry.hash:
                broken = LogBreak(entry.seq, "altered", f"entry {entry.seq} was changed after it was written",
                                  entry.pk)
        _chained_rows(entry, digests, closes)
        found[entry.seq] = entry.hash
        expected, previous, last = entry.seq + 1, entry.hash, {"seq": entry.seq, "hash": entry.hash}
    printed = heads or []
    for head in printed:
        if broken is not None and broken.seq <= head["seq"]:
            break
        held = found.get(head["seq"])
        if head["seq"] == 0:
            continue  # printed before the first entry: it vouches for nothing
        if held is None and count == 0:
            broken = LogBreak(head["seq"], "emptied",
                              f"the log is empty, but entry {head['seq']} was printed: the log was emptied")
        elif held is None and last is not None and head["seq"] > last["seq"]:
            broken = LogBreak(head["seq"], "missing",
                              f"the log ends at entry {last['seq']}, but entry {head['seq']} was printed: "
                              "the log was cut at its end")
        elif held is None:
            broken = LogBreak(head["seq"], "missing",
                              f"entry {head['seq']}, printed on the record, is missing from the log")
        elif held != head["hash"]:
            broken = LogBreak(head["seq"], "rewritten",
                              f"entry {head['seq']} is not the one printed on the record: the log was rewritten")
    if broken is None and rows:
        broken = _rows_check(game, digests, closes)
    return LogCheck(game.pk, count, last, len(printed), broken)


def _chained_rows(entry, digests: dict, closes: dict) -> None:
    """Note the row digests an entry (or a pending entry) chained: the later one of a row replaces the earlier."""
    if entry.action == "round_close" and entry.round_id is not None and entry.round_id not in closes:
        closes[entry.round_id] = entry.rows is not None
    for kind, items in (entry.rows or {}).items():
        for pk, digest in items.items():
            digests[(kind, int(pk))] = (digest, entry.seq)


def _rows_check(game: Game, digests: dict, closes: dict) -> LogBreak | None:
    """The first row that decides a score and does not match the chain: rewritten (its digest differs from
    the one last chained for it), deleted (chained, gone), or never chained (a slip or result of a round
    closed with digests, or of a closed round whose close is not in the log: inserted behind the log's
    back, or the entries that chained it cut). A round closed before rows were chained (its close carries
    none) holds no rows to check."""
    from tournaments.logchain import row_digest
    from tournaments.models import LateSlip, PendingLogEntry

    for pending in PendingLogEntry.objects.filter(game=game).order_by("id"):  # not chained yet: what they say
        pending.seq = 0
        _chained_rows(pending, digests, {})
    closed = set(Round.objects.filter(game=game, status=Round.Status.CLOSED).values_list("pk", flat=True))
    required = {pk for pk in closed if closes.get(pk, True)} | {pk for pk, chained in closes.items() if chained}
    names = {"slip": "slip", "result": "result", "late": "late slip"}
    seen = set()
    for kind, rows in (("slip", Slip.objects.filter(round__game=game)),
                       ("result", Result.objects.filter(round__game=game)),
                       ("late", LateSlip.objects.filter(round__game=game))):
        for row in rows.order_by("id").iterator(chunk_size=2000):
            seen.add((kind, row.pk))
            chained = digests.get((kind, row.pk))
            if chained is None:
                if kind != "late" and row.round_id in required:
                    return LogBreak(0, "unchained", f"{names[kind]} {row.pk} is on no log entry: written behind "
                                    "the log's back, or the entries that chained it were cut")
            elif row_digest(kind, row) != chained[0]:
                return LogBreak(chained[1], "row_rewritten", f"{names[kind]} {row.pk} no longer matches what entry "
                                f"{chained[1]} chained: it was rewritten")
    for (kind, pk), (_, seq) in digests.items():
        if (kind, pk) not in seen:
            return LogBreak(seq, "row_missing", f"{names[kind]} {pk}, chained by entry {seq}, is gone")
    return None
