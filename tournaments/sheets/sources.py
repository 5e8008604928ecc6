"""The sheets' plain data, read from the selectors: the only module of the sheets that knows the models."""

from __future__ import annotations

from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from engine import notation
from tournaments import selectors
from tournaments.models import Game, Player, Result, Round, Tournament

from .data import (
    GameRecord,
    Header,
    RecordRound,
    RecordTimes,
    Scoresheet,
    ScoresheetRound,
    StandingRow,
    Standings,
)
from .incidents import incident_lines


def _day(moment) -> str:
    """The day as the sheet's language writes it: ISO in English (2026-11-21), "21 novembre 2026" in French."""
    if not moment:
        return ""
    day = timezone.localdate(moment)
    return formats.date_format(day, "j F Y") if translation.get_language() == "fr" else day.isoformat()


def is_provisional(game: Game) -> bool:
    """The game's figures may still change: it is still in play, or its last closed round's paper slips are
    not all entered (the arbitrator has not marked them complete)."""
    if game.status != Game.Status.OVER:
        return True
    last = game.rounds.filter(status=Round.Status.CLOSED).order_by("-number").first()
    return last is not None and not last.slips_complete


def game_day(game: Game) -> str:
    """The day the game was played: its first draw, else its creation."""
    first = game.rounds.order_by("drawn_at").values_list("drawn_at", flat=True).first()
    return _day(first or game.created_at)


def header_for(tournament: Tournament, game: Game | None = None) -> Header:
    """The header of a sheet of ``game`` (or of the whole tournament), its words in the tournament's language."""
    with translation.override(tournament.language):
        if game is None:
            games = list(tournament.games.order_by("number"))
            day = game_day(games[-1]) if games else _day(tournament.created_at)
            label = ngettext("%(n)s game", "%(n)s games", len(games)) % {"n": len(games)}
            provisional = any(is_provisional(each) for each in games)
        else:
            day, label = game_day(game), _("Game %(number)s") % {"number": game.number}
            provisional = is_provisional(game)
            games = [game]
    return Header(
        tournament=tournament.name,
        game=label,
        date=day,
        lexicon=tournament.lexicon,
        lexicon_sha256=tournament.lexicon_sha256,
        ruleset=tournament.ruleset,
        variant=tournament.variant,
        timing=tournament.timing,
        coordinates=tournament.coordinates,
        tileset=tournament.tileset,
        language=tournament.language,
        provisional=provisional,
        chain=selectors.chain_heads_text(games),
    )


def _standing_row(row: dict) -> StandingRow:
    return StandingRow(
        rank=row["rank"],
        name=row["name"],
        table=row.get("table"),
        series=row.get("series") or "",
        total=row["total"],
        diff=row["diff"],
        percent=row["percent"],
        tops=row["tops"],
        solos=row["solos"],
        warnings=row["warnings"],
        penalties=row["penalties"],
        game_totals=tuple(entry["total"] for entry in row.get("games", ())),
        series_rank=row.get("series_rank"),
        seconds=row.get("seconds"),
        game_seconds=tuple(entry.get("seconds") for entry in row.get("games", ()) if "seconds" in entry),
    )


def _sum_of_tops(rows: list[dict]) -> int:
    return rows[0]["total"] - rows[0]["diff"] if rows else 0


def game_standings_sheet(game: Game) -> Standings:
    rows = selectors.game_standings(game=game)
    return Standings(
        header=header_for(game.tournament, game),
        rows=tuple(_standing_row(row) for row in rows),
        top_total=_sum_of_tops(rows),
        timed=any("seconds" in row for row in rows),
    )


def tournament_standings_sheet(tournament: Tournament) -> Standings:
    rows = selectors.tournament_standings(tournament=tournament)
    numbers = list(tournament.games.order_by("number").values_list("number", flat=True))
    return Standings(
        header=header_for(tournament),
        rows=tuple(_standing_row(row) for row in rows),
        top_total=_sum_of_tops(rows),
        game_labels=_game_labels(tournament, numbers),
        timed=any("seconds" in row for row in rows),
    )


def _game_labels(tournament: Tournament, numbers: list[int]) -> tuple[str, ...]:
    """The per-game columns' titles: G1, G2... (P1, P2... in French)."""
    with translation.override(tournament.language):
        return tuple(pgettext("sheet column: game number", "G%(number)s") % {"number": n} for n in numbers)


def rack_display(kept: str, drawn: str, tiles=None) -> str:
    """The rack as announced: the kept letters, a +, then the new ones (no + on a fresh rack). With the
    tournament's tile set, each tile by its label, a label of several letters in brackets ([CH]AEI): English
    and French racks are their letters, as ever."""
    if tiles is not None:
        kept, drawn = tiles.typed(kept), tiles.typed(drawn)
    return f"{kept}+{drawn}" if kept else drawn


def _shown(tiles, stored: str) -> str:
    """A word or a rack stored one character a tile, as players read it (the tiles' labels)."""
    return tiles.show(stored) if stored else stored


def _racks(game: Game) -> dict[int, str]:
    tiles = game.tournament.tiles
    closed = game.rounds.filter(status=Round.Status.CLOSED).values_list("number", "kept", "drawn", "rack")
    return {
        number: rack_display(kept, drawn, tiles) if kept or drawn else tiles.typed(rack)
        for number, kept, drawn, rack in closed
    }


def _marks(game: Game, player: Player | None = None) -> dict[tuple[int, int], str]:
    """(player id, round number) -> the scoresheet's mark of that result: "late" for a late slip admitted,
    "corrected" for a slip the arbitrator corrected or a result they ruled on. A paper slip typed after the
    close (added, judged as written) is no correction: no mark."""
    results = Result.objects.filter(round__game=game, round__status=Round.Status.CLOSED)
    if player is not None:
        results = results.filter(player=player)
    marks = {}
    rows = results.values_list("player_id", "round__number", "corrected", "slip__key", "slip__late")
    for player_id, number, corrected, key, late in rows:
        if late is not None:
            marks[(player_id, number)] = "late"
        elif corrected and not (key or "").startswith("added:"):
            marks[(player_id, number)] = "corrected"
    return marks


def _topping_times(game: Game) -> dict[tuple[int, int], dict] | None:
    """Topping: (player id, round number) -> {"seconds", "found_after", ...} over the closed rounds
    (tournaments/topping_selectors.py); None in any other game."""
    from tournaments.topping_selectors import is_topping, round_times

    if not is_topping(game.tournament):
        return None
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    times = round_times(game=game, rounds=rounds)
    return {(pid, r.number): t for r in rounds for pid, t in times[r.pk].items()}


def _scoresheet(
    game: Game, player: Player, header: Header, standing: dict | None, players: int, racks: dict[int, str],
    marks: dict[tuple[int, int], str], times: dict[tuple[int, int], dict] | None = None,
) -> Scoresheet:
    lines = []
    labelling = game.tournament.coordinates
    tiles = game.tournament.tiles
    total_seconds = 0
    for row in selectors.player_rounds(game=game, player=player):
        top = row.get("top") or {}
        timed = {}
        if times is not None:
            time = times.get((player.pk, row["number"]), {})
            total_seconds += time.get("seconds", 0)
            timed = {"seconds": time.get("seconds"), "found_after": time.get("found_after"),
                     "total_seconds": total_seconds}
        lines.append(
            ScoresheetRound(
                number=row["number"],
                rack=racks.get(row["number"], tiles.typed(row["rack"])),
                word=_shown(tiles, row.get("word") or ""),
                ref=notation.canonical_ref(row.get("ref"), labelling, strict=False),
                claimed=row.get("claimed"),
                paid=row["paid"],
                outcome=row["outcome"],
                reason=row["reason"],
                top_word=_shown(tiles, top.get("word") or ""),
                top_ref=top.get("ref") or "",
                top_score=row.get("top_score") or 0,
                total=row["total"],
                top_total=row["top_total"],
                mark=marks.get((player.pk, row["number"]), ""),
                **timed,
            )
        )
    return Scoresheet(
        header=header,
        name=player.name,
        table=player.table,
        series=player.series,
        rounds=tuple(lines),
        summary=_standing_row(standing) if standing else None,
        players=players,
        top_total=lines[-1].top_total if lines else 0,
        solo_points=(standing or {}).get("solo_points", 0),
        warning_points=(standing or {}).get("warning_points", 0),
        timed=times is not None,
    )


def scoresheet_for(game: Game, player: Player) -> Scoresheet:
    standings = selectors.game_standings(game=game)
    standing = next((row for row in standings if row["player"] == player.pk), None)
    return _scoresheet(
        game, player, header_for(game.tournament, game), standing, len(standings), _racks(game), _marks(game, player),
        _topping_times(game),
    )


def scoresheets_for(game: Game) -> list[Scoresheet]:
    """Every player of the game, in table order (players without a table last, by name)."""
    standings = {row["player"]: row for row in selectors.game_standings(game=game)}
    header = header_for(game.tournament, game)
    racks = _racks(game)
    players = sorted(
        Player.objects.in_game(game), key=lambda p: (p.table is None, p.table or 0, p.name.casefold(), p.pk)
    )
    marks = _marks(game)
    times = _topping_times(game)
    return [_scoresheet(game, p, header, standings.get(p.pk), len(standings), racks, marks, times) for p in players]


def _in_language(tournament: Tournament, function, *args):
    """``function(*args)`` with the tournament's language active: a sheet's words are the tournament's, never
    those of the request that asked for it."""
    with translation.override(tournament.language):
        return function(*args)


def game_record_sheet(game: Game) -> GameRecord:
    record = selectors.game_record(game=game)
    tiles = game.tournament.tiles
    lines = []
    for row in record["rounds"]:
        master = row.get("master") or {}
        lines.append(
            RecordRound(
                number=row["number"],
                rack=rack_display(row.get("kept") or "", row.get("drawn") or "", tiles) or tiles.typed(row["rack"]),
                rejected=tuple(_shown(tiles, rejected) for rejected in row.get("rejected") or ()),
                master_word=_shown(tiles, master.get("word") or ""),
                master_ref=master.get("ref") or "",
                master_score=master.get("score") or 0,
                top_total=row["top_total"],
                tops=row.get("tops") or 1,
                cancelled=row.get("status") == Round.Status.CANCELLED,
                incidents=_in_language(game.tournament, incident_lines, row.get("incidents")),
            )
        )
    return GameRecord(
        header=header_for(game.tournament, game),
        rounds=tuple(lines),
        board=tuple(record["board"]),
        tileset=game.tournament.tileset,
        status="over" if game.status == Game.Status.OVER else "",
        log_heads=_log_heads(game),
        **_record_times(game),
    )


def _record_times(game: Game) -> dict:
    """Topping: the game record's times, {"time_rounds", "times"}: each player's seconds in each closed round,
    in the order of the game's standings (the lowest total first); {} in any other game."""
    times = _topping_times(game)
    if times is None:
        return {}
    numbers = tuple(sorted({number for _pid, number in times}))
    rows = tuple(
        RecordTimes(rank=row["rank"], name=row["name"],
                    seconds=tuple(times.get((row["player"], n), {}).get("seconds", 0) for n in numbers),
                    total=row["seconds"])
        for row in selectors.game_standings(game=game)
    )
    return {"time_rounds": numbers, "times": rows}


def _log_heads(game: Game) -> tuple[tuple[int, int, str], ...]:
    chain = selectors.log_chain_heads(game=game)
    heads = [(head["round"], head["seq"], head["hash"]) for head in chain["rounds"]]
    if chain["head"]:
        heads.append((0, chain["head"]["seq"], chain["head"]["hash"]))
    return tuple(heads)
