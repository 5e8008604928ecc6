"""Topping's reads: each player's time in each round and the game's standings by time (docs/rules.md 7.5).

A try is a slip: every try a player hands in is kept (each new one replaces the one before, which stays on
record, linked), timed on the server's clock at arrival (``Slip.received_at``). A round's result for a player
is the whole seconds from the round's start to the try that scored the top, or the round's time (with the
arbitrator's extension) plus ``topping_penalty`` when no try did; each wrong try adds
``topping_wrong_try_seconds`` (``engine.rules.Rules.topping_seconds``). The lowest total wins.
"""

from __future__ import annotations

import dataclasses
import math

from tournaments.models import Game, Result, Round, Slip


def is_topping(tournament) -> bool:
    """Whether the tournament plays topping. Topping is chosen by naming the variant (never a rules
    override): the variant's name is read first, so that every other tournament's slip costs no rules."""
    return tournament.variant == "topping" and bool(tournament.rules.topping)


def seconds_after_start(round: Round, arrived) -> int:
    """Whole seconds from the round's start to ``arrived`` (rounded down; never below 0)."""
    if round.started_at is None:
        return 0
    return max(0, math.floor((arrived - round.started_at).total_seconds()))


def round_rules(tournament, round: Round):
    """The tournament's rules with this round's time (its extensions added)."""
    rules = tournament.rules
    return dataclasses.replace(rules, round_seconds=rules.round_seconds + (round.extended_seconds or 0))


def round_time(tournament, round: Round, *, found_after: int | None, wrong_tries: int) -> int:
    rules = round_rules(tournament, round)
    if found_after is not None:
        found_after = min(found_after, rules.round_seconds)
    return rules.topping_seconds(found_after, wrong_tries)


def round_times(*, game: Game, rounds=None) -> dict[int, dict[int, dict]]:
    """{round id: {player id: {"found_after": seconds or None, "wrong_tries": n, "seconds": result}}} over
    the game's closed rounds (or ``rounds``), for every player of the game: a player without a slip never
    found the top. A round's found try is the player's current slip when its result paid the top."""
    from tournaments.models import Player

    tournament = game.tournament
    if rounds is None:
        rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    players = list(Player.objects.in_game(game).values_list("id", flat=True))
    tries: dict[tuple[int, int], int] = {}
    for round_id, player_id in Slip.objects.filter(round__in=rounds, several=False).values_list("round_id",
                                                                                                  "player_id"):
        tries[(round_id, player_id)] = tries.get((round_id, player_id), 0) + 1
    found: dict[tuple[int, int], object] = {}
    tops = {r.pk: r.top_score for r in rounds}
    for round_id, player_id, paid, arrived in Result.objects.filter(
        round__in=rounds, slip__isnull=False, slip__several=False,
    ).values_list("round_id", "player_id", "paid", "slip__received_at"):
        if tops[round_id] is not None and paid == tops[round_id]:
            found[(round_id, player_id)] = arrived
    times: dict[int, dict[int, dict]] = {}
    for r in rounds:
        row = times[r.pk] = {}
        for pid in players:
            arrived = found.get((r.pk, pid))
            after = None if arrived is None else seconds_after_start(r, arrived)
            wrong = tries.get((r.pk, pid), 0) - (1 if arrived is not None else 0)
            row[pid] = {"found_after": after, "wrong_tries": wrong,
                        "seconds": round_time(tournament, r, found_after=after, wrong_tries=wrong)}
    return times


def player_seconds(*, game: Game) -> dict[int, dict]:
    """{player id: {"seconds": total over the closed rounds, "found": rounds whose top they found,
    "round_seconds": [per round, in order]}}."""
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    times = round_times(game=game, rounds=rounds)
    totals: dict[int, dict] = {}
    for r in rounds:
        for pid, t in times[r.pk].items():
            row = totals.setdefault(pid, {"seconds": 0, "found": 0, "round_seconds": []})
            row["seconds"] += t["seconds"]
            row["found"] += t["found_after"] is not None
            row["round_seconds"].append(t["seconds"])
    return totals


def round_finders(*, round: Round) -> list[dict]:
    """Who has found the round's top so far (open or closed), first finder first, without the top:
    [{"player", "name", "table", "found_after"}]. A current slip is judged against the round's board."""
    from tournaments.setting import judge, setting_of

    if not round.tops_ready or round.top_score is None:
        return []
    setting = setting_of(round.game.tournament)
    judged: dict[tuple, bool] = {}
    finders = []
    slips = (Slip.objects.filter(round=round, current=True, several=False)
             .select_related("player").order_by("received_at", "id"))
    for slip in slips:
        content = (slip.word, slip.ref, slip.claimed)
        if content not in judged:
            judged[content] = judge(setting, round, slip).paid == round.top_score
        if judged[content]:
            finders.append({"player": slip.player_id, "name": slip.player.name, "table": slip.player.table,
                            "found_after": seconds_after_start(round, slip.received_at)})
    return finders


def progress_finders(round: Round) -> dict:
    """For the projector's and the console's progress of an open round: {"finders": [names, first finder
    first]} in a topping tournament (who has found the top, never what it is); {} in any other."""
    if not is_topping(round.game.tournament):
        return {}
    return {"finders": [f["name"] for f in round_finders(round=round)]}
