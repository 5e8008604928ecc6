"""The merged standings of a simultaneous event (issue 25, part 5): one game, or several, played in many centres.

Pure: the centres' verified results (tournaments/results_files.py) come in as ``Entry`` values, one per player,
game and centre, with the paid score, outcome and reason of each round as the centre judged them (after a slip's
−5 penalty, before the end-of-game warning costs). ``merge_standings`` gives:

- one ranking of every player of every centre: rank, total, gap to the top (``diff``: total − the sum of the
  tops) and % of the top, centre, series and category; and the same ranking within each centre, each series and
  each category (competition ranking: equal totals share a rank, 1, 1, 3);
- solos over the whole event when ``event_solos`` (``rules.event_solos`` when the rules have it, else on): a round's
  solo is a paid score strictly higher than every other player's of every centre, counted when the event's game
  has ``rules.solo_min_players`` players (engine.tally's rule); off, each centre's room has its own solos;
- warnings counted as usual, per game (engine.tally.warning_deduction);
- several games added up: a player is one licence number across centres and games, or, without one, one name
  in one centre;
- ``provisional`` while a centre expected for a game has not reported (``missing`` lists them) or has reported
  only part of the game (``unfinished``). Bonuses and warning costs of a game are counted once its centre's
  report is final, as a room's standings count them once the game is over.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from .tally import count_solos, solo_bonuses, solos_count, warning_deduction

NOT_PLAYED = ("no_slip", "absent")  # reasons of a round the player did not play (tournaments.selectors' too)
WARNING = "warning"
GROUPS = ("centre", "series", "category")


@dataclass(frozen=True)
class Entry:
    """One player's game at one centre, as the centre reported it."""

    centre: str
    game: str
    name: str
    licence: str = ""
    club: str = ""
    series: str = ""
    category: str = ""
    paid: tuple[int, ...] = ()  # round by round
    outcomes: tuple[str, ...] = ()  # "ok" | "warning" | "penalty" | "zero"
    reasons: tuple[str, ...] = ()
    final: bool = True  # the centre's report is of the whole game


@dataclass(frozen=True)
class EventGame:
    """A game of the event: its tops (the pack's masters' scores, round by round) and the centres that play it."""

    id: str
    tops: tuple[int, ...]
    centres: tuple[str, ...] = field(default=())


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text or "")).casefold()
    return " ".join(text.split())


def identity(entry: Entry) -> tuple:
    """Who a player is across the event: their licence number, else their name within their centre."""
    licence = "".join(str(entry.licence or "").split()).upper()
    return ("licence", licence) if licence else ("name", entry.centre, _fold(entry.name))


def _played(entry: Entry) -> bool:
    return any(reason not in NOT_PLAYED for reason in entry.reasons)


def _game_rows(game: EventGame, entries: list[Entry], rules, event_solos: bool) -> list[dict]:
    """Each entry's figures in this game: paid, solos and their bonus, warnings and their cost, total."""
    rounds = len(game.tops)
    scores = [tuple(list(e.paid[:rounds]) + [0] * (rounds - len(e.paid[:rounds]))) for e in entries]
    rooms: dict = {}
    for index, entry in enumerate(entries):
        rooms.setdefault(None if event_solos else entry.centre, []).append(index)
    solos: dict[int, int] = {}
    bonuses: dict[int, int] = {}
    for members in rooms.values():
        round_scores = [{i: scores[i][r] for i in members} for r in range(rounds)]
        played = sum(1 for i in members if _played(entries[i]))
        if solos_count(played, rules):
            solos.update(count_solos(round_scores))
        bonuses.update(solo_bonuses(round_scores, played, rules))
    rows = []
    for index, entry in enumerate(entries):
        warnings = sum(1 for outcome in entry.outcomes[:rounds] if outcome == WARNING)
        bonus = bonuses.get(index, 0) if entry.final else 0
        deduction = warning_deduction(warnings, rules) if entry.final else 0
        paid = sum(scores[index])
        rows.append({"paid": paid, "solos": solos.get(index, 0), "solo_points": bonus, "warnings": warnings,
                     "warning_points": deduction, "total": paid + bonus - deduction,
                     "tops": sum(1 for top, s in zip(game.tops, scores[index], strict=True) if top and s == top)})
    return rows


def _rank(rows: list[dict], rank_key: str) -> list[dict]:
    """Competition ranking by total, highest first; ties share a rank and are listed by name."""
    ordered = sorted(rows, key=lambda row: (-row["total"], _fold(row["name"]), row["key"]))
    previous, rank = None, 0
    for position, row in enumerate(ordered, start=1):
        if row["total"] != previous:
            rank, previous = position, row["total"]
        row[rank_key] = rank
    return ordered


def merge_standings(games, entries, rules, *, event_solos: bool | None = None, reported=None) -> dict:
    """The event's standings (see the module's docstring).

    ``games``: the ``EventGame`` of the event, in order. ``entries``: every ``Entry`` reported. ``reported``: the
    (centre, game) pairs that reported, when a centre reported no player at all (default: those of the entries).
    Returns ``rows`` (the ranking), ``sum_tops``, ``by_centre``, ``by_series``, ``by_category`` (each a name ->
    ranking), ``provisional``, ``missing`` ([{game, centre}] expected but not reported), ``missing_centres``
    and ``unfinished`` ([{game, centre}] reported part of the game only)."""
    if event_solos is None:
        event_solos = bool(getattr(rules, "event_solos", True))
    games = list(games)
    known = {game.id for game in games}
    by_game: dict[str, list[Entry]] = {game.id: [] for game in games}
    for entry in entries:
        if entry.game not in known:
            raise ValueError(f"no game {entry.game!r} in this event")
        by_game[entry.game].append(entry)
    reported = set(reported or ()) | {(e.centre, e.game) for e in entries}
    people: dict[tuple, dict] = {}
    for game in games:
        listed = by_game[game.id]
        for entry, figures in zip(listed, _game_rows(game, listed, rules, event_solos), strict=True):
            key = identity(entry)
            row = people.get(key)
            if row is None:
                row = people[key] = {
                    "key": key, "name": entry.name, "licence": entry.licence or "", "club": entry.club or "",
                    "centre": entry.centre, "centres": [], "series": entry.series or "",
                    "category": entry.category or "", "games": [], "total": 0, "paid": 0, "solos": 0,
                    "solo_points": 0, "warnings": 0, "warning_points": 0, "tops": 0,
                }
            for name in ("club", "series", "category"):
                row[name] = row[name] or (getattr(entry, name) or "")
            if entry.centre not in row["centres"]:
                row["centres"].append(entry.centre)
            row["games"].append({"game": game.id, "centre": entry.centre, **figures})
            for name in ("total", "paid", "solos", "solo_points", "warnings", "warning_points", "tops"):
                row[name] += figures[name]
    sum_tops = sum(sum(game.tops) for game in games)
    rows = list(people.values())
    for row in rows:
        row["diff"] = row["total"] - sum_tops
        row["percent"] = round(100 * row["total"] / sum_tops, 2) if sum_tops else 0.0
    ranking = _rank(rows, "rank")
    groups = {}
    for group in GROUPS:
        split: dict[str, list[dict]] = {}
        for row in ranking:
            split.setdefault(row[group], []).append(row)
        groups[f"by_{group}"] = {name: _rank(members, f"rank_{group}") for name, members in sorted(split.items())}
    missing = [{"game": game.id, "centre": centre} for game in games for centre in game.centres
               if (centre, game.id) not in reported]
    unfinished = sorted({(e.game, e.centre) for e in entries if not e.final})
    return {
        "rows": ranking,
        "sum_tops": sum_tops,
        **groups,
        "provisional": bool(missing or unfinished),
        "missing": missing,
        "missing_centres": sorted({m["centre"] for m in missing}),
        "unfinished": [{"game": g, "centre": c} for g, c in unfinished],
        "event_solos": event_solos,
    }
