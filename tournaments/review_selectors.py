"""A player's review of a game: per round what could be played and what the player did, and a summary.

A reader (below the services: it imports none; the setting and the judgement of a slip come from
tournaments/setting.py). The console's role of a user is the caller's to tell (``reviewer(arbitrator=...)``).

A round is open to review once it is closed and the game has moved on (a later round drawn) or the game is
over: nothing is ever shown of a round in play. What the engine finds on a round (its best plays, how many
legal plays there are, how their scores spread) is computed once per round and kept in the cache: a closed
round's rack and board never change. What depends on the player (their slip, its rank) is read for that
player alone.

Settings: ``ARBITER_REVIEW_BEST_PLAYS`` (the best plays listed per round, 10), ``ARBITER_REVIEW_LOSSES``
(the rounds listed in the summary as the largest losses against the top, 5), ``ARBITER_REVIEW_CACHE_SECONDS``
(how long a round's plays stay in the cache, a week), ``ARBITER_REVIEW_BUILD_WAIT_SECONDS`` (how long a request
waits for another one computing the same round, 10).
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

from engine.board import Board
from engine.notation import format_ref
from engine.search import best_plays, score_spread
from tournaments import selectors
from tournaments.errors import Conflict, Forbidden, NotFound, ServiceError
from tournaments.formats import brief
from tournaments.models import Game, Player, Result, Round
from tournaments.setting import judge, setting_of
from tournaments.topping_selectors import is_topping, round_times
from tournaments.versions import live_key

PLAYS_FORMAT = 2  # bumped when the cached body of a round's plays changes shape


def best_count() -> int:
    return int(getattr(settings, "ARBITER_REVIEW_BEST_PLAYS", 10))


def losses_count() -> int:
    return int(getattr(settings, "ARBITER_REVIEW_LOSSES", 5))


def cache_seconds() -> int:
    return int(getattr(settings, "ARBITER_REVIEW_CACHE_SECONDS", 7 * 24 * 3600))


def building_seconds() -> float:
    """At most this long a request waits for another one computing the same round's plays."""
    return float(getattr(settings, "ARBITER_REVIEW_BUILD_WAIT_SECONDS", 10))


WAIT_STEP = 0.1  # seconds between two looks at the cache while another request computes a round


# --------------------------------------------------------------------------------------------------
# Who may read a review


def reviewer(game: Game, *, player: Player | None = None, arbitrator: bool = False,
             asked_player: str | None = None) -> Player:
    """The player whose review is read.

    ``player``: the player a bearer token of this game belongs to (they read their own review only);
    ``arbitrator``: the console's user is an arbitrator of the game (a role in it), who names the player
    (``asked_player``)."""
    if player is not None:
        if asked_player not in (None, "") and str(asked_player) != str(player.pk):
            raise Forbidden("review_other_player", params={"player": asked_player})
        return player
    if not arbitrator:
        raise ServiceError("review_not_authenticated", status=401)
    if asked_player in (None, ""):
        raise ServiceError("review_player_needed", fields={"player": ["This field is required."]})
    try:
        player_id = int(asked_player)
    except (TypeError, ValueError):
        raise ServiceError("review_bad_player", fields={"player": ["A whole number."]}, params={"player": asked_player}) from None
    found = Player.objects.in_game(game).filter(pk=player_id).first() if abs(player_id) < 2**63 else None
    if found is None:
        raise NotFound("review_unknown_player", params={"player": player_id})
    return found


# --------------------------------------------------------------------------------------------------
# Which rounds may be reviewed


def reviewable_rounds(game: Game) -> list[Round]:
    """The closed rounds open to review, in order: all of them once the game is over, else those before
    the last round drawn (the game has moved on past them)."""
    rounds = list(game.rounds.counting().order_by("number"))
    if game.status == Game.Status.OVER:
        return [r for r in rounds if r.status == Round.Status.CLOSED]
    last = rounds[-1].number if rounds else 0
    return [r for r in rounds if r.status == Round.Status.CLOSED and r.number < last]


def review_round(game: Game, number, reviewable: list[Round]) -> Round:
    """The round ``number`` if it may be reviewed; a refusal that shows nothing of the round otherwise."""
    if not reviewable:
        raise Conflict("review_nothing_yet")
    if number in (None, ""):
        return reviewable[0]
    try:
        wanted = int(number)
    except (TypeError, ValueError):
        raise ServiceError("review_bad_round", fields={"round": ["A whole number."]}, params={"round": number}) from None
    for r in reviewable:
        if r.number == wanted:
            return r
    exists = game.rounds.counting().filter(number=wanted).exists()
    if not exists:
        raise NotFound("review_no_round", params={"round": wanted})
    raise Conflict("review_round_not_over", params={"round": wanted})


# --------------------------------------------------------------------------------------------------
# What the engine finds on a round (computed once, kept in the cache)


def _plays_key(round: Round) -> str:
    return live_key(round.game_id, "review", round.pk, PLAYS_FORMAT, best_count())


def round_plays(round: Round, setting=None) -> dict:
    """The round's best distinct plays, the number of legal plays and how many plays make each score:
    ``{"best": [{word, row, col, horizontal, score}], "tied_more": int, "count": int,
    "scores": [[score, plays], ...]}`` (scores best first). ``best`` holds the first
    ``ARBITER_REVIEW_BEST_PLAYS`` in the engine's order (score, then square, across first, word);
    ``tied_more`` counts the further plays tied with the last of them (two blanks on an empty board tie
    hundreds). From the cache when a review of the round was already read; while one request computes a
    round, the others wait for it (bounded) rather than compute it again."""
    key = _plays_key(round)
    found = cache.get(key)
    if found is not None:
        return found
    lock = f"{key}:building"
    if not cache.add(lock, 1, timeout=building_seconds()):
        waited = 0.0
        while waited < building_seconds():
            time.sleep(WAIT_STEP)
            waited += WAIT_STEP
            found = cache.get(key)
            if found is not None:
                return found
    try:
        body = _compute_plays(round, setting or setting_of(round.game.tournament))
        cache.set(key, body, timeout=cache_seconds())
    finally:
        cache.delete(lock)
    return body


def _compute_plays(round: Round, setting) -> dict:
    board = Board.from_rows(round.board)
    n = best_count()
    best = best_plays(board, round.rack, setting.lexicon, setting.tileset, setting.rules, n=n)
    spread = score_spread(board, round.rack, setting.lexicon, setting.tileset, setting.rules)
    return {
        "best": [{"word": p.word, "row": p.row, "col": p.col, "horizontal": p.horizontal, "score": p.score}
                 for p in best[:n]],
        "tied_more": max(0, len(best) - n),
        "count": sum(spread.values()),
        "scores": sorted(([score, count] for score, count in spread.items()), reverse=True),
    }


def rank_of(score: int, plays: dict) -> int:
    """The rank of a play scoring ``score`` among the round's legal plays: one more than the number of plays
    scoring more (tied plays share a rank)."""
    return 1 + sum(n for s, n in plays["scores"] if s > score)


# --------------------------------------------------------------------------------------------------
# The review


def found_top(round: Round) -> dict:
    """How many of the round's players found its top (were paid the top score): ``{"found", "players"}``,
    as the solutions sheet counts them (tournaments.selectors.found_top says who counts)."""
    return selectors.found_top(rounds=[round])[round.pk]


def _ref(play: dict, labelling: str) -> str:
    return format_ref(play["row"], play["col"], play["horizontal"], labelling)


def _same_play(play: dict, judged) -> bool:
    return judged is not None and (play["row"], play["col"], play["horizontal"], play["word"]) == (
        judged.row, judged.col, judged.horizontal, judged.word)


def _mine(round: Round, result: Result | None, plays: dict, setting):
    """The player's play in the round and its rank among the legal plays: ``(body, judged play)``."""
    slip = result.slip if result is not None else None
    if slip is None:
        return {"state": "no_slip", "rank": None, "score": None}, None
    judgement = judge(setting, round, slip)
    if judgement.play is None:
        return {"state": "not_legal", "rank": None, "score": None}, None
    score = judgement.play.score
    return {"state": "ranked", "rank": rank_of(score, plays), "score": score,
            "word": judgement.play.word, "ref": format_ref(judgement.play.row, judgement.play.col,
                                                           judgement.play.horizontal, setting.labelling)}, judgement.play


def round_review(round: Round, player: Player, setting=None) -> dict:
    """One round as the player reviews it: board before the round, rack, slip and result, tops and master,
    the best plays, the rank of the player's play, and how many players found the top."""
    setting = setting or setting_of(round.game.tournament)
    labelling = setting.labelling
    plays = round_plays(round, setting)
    result = Result.objects.filter(round=round, player=player).select_related("slip").first()
    mine, judged = _mine(round, result, plays, setting)
    slip = result.slip if result is not None else None
    return {
        "number": round.number,
        "board": list(round.board),
        "rack": round.rack,
        "kept": round.kept,
        "rejected": list(round.rejected),
        "slip": None if slip is None else {"word": slip.word, "ref": slip.ref, "claimed": slip.claimed},
        "result": None if result is None else {
            "paid": result.paid, "outcome": result.outcome, "reason": result.reason, "message": result.message,
            "placement": result.placement, "corrected": result.corrected,
        },
        "top_score": round.top_score,
        "tops": [brief(top) for top in round.tops],
        "master": brief(round.master),
        "best": [{"word": p["word"], "ref": _ref(p, labelling), "score": p["score"],
                  "rank": rank_of(p["score"], plays), "mine": _same_play(p, judged)} for p in plays["best"]],
        "tied_more": plays["tied_more"],
        "count": plays["count"],
        "mine": mine,
        "found_top": found_top(round),
        # Topping (docs/rules.md 7.5): the player's time in the round, as the standings count it.
        "topping": _time(round, player) if is_topping(round.game.tournament) else None,
    }


def _time(round: Round, player: Player) -> dict | None:
    """The player's time in a topping round: {"found_after": seconds or None, "wrong_tries", "seconds"}."""
    return round_times(game=round.game, rounds=[round])[round.pk].get(player.pk)


def summary(rounds: list[Round], player: Player) -> dict:
    """The whole review at a glance: totals, the rounds lost most against the top, the words found and
    missed. From the rounds and the player's results alone (no engine search)."""
    results = {r.round_id: r for r in Result.objects.filter(round__in=rounds, player=player).select_related("slip")}
    total = top_total = 0
    lines, found, missed = [], [], []
    for r in rounds:
        result = results.get(r.pk)
        paid = result.paid if result else 0
        top = r.top_score or 0
        total += paid
        top_total += top
        lines.append({"number": r.number, "paid": paid, "top_score": top, "loss": top - paid,
                      "master": brief(r.master)})
        if r.top_score is None:
            continue
        if paid == r.top_score:
            slip = result.slip
            found.append({"number": r.number, "word": slip.word if slip else "", "score": paid})
        else:
            missed.append({"number": r.number, "paid": paid, **(brief(r.master) or {})})
    losses = sorted((line for line in lines if line["loss"] > 0), key=lambda line: (-line["loss"], line["number"]))
    times = None
    if rounds and is_topping(rounds[0].game.tournament):
        # Topping: the player's total time over these rounds and in how many they found the top.
        by_round = round_times(game=rounds[0].game, rounds=rounds)
        mine = [by_round[r.pk].get(player.pk) for r in rounds]
        times = {"seconds": sum(t["seconds"] for t in mine if t),
                 "found": sum(1 for t in mine if t and t["found_after"] is not None), "rounds": len(rounds)}
    return {
        "total": total,
        "top_total": top_total,
        "percent": round(100 * total / top_total, 1) if top_total else None,
        "losses": losses[:losses_count()],
        "found": found,
        "missed": missed,
        "topping": times,
    }


def player_review(game: Game, player: Player, number=None) -> dict:
    """The body of ``/games/<id>/review.json``: the reviewable rounds, the round asked for (the first by
    default) and the summary. Refused (ServiceError) when that round may not be reviewed."""
    reviewable = reviewable_rounds(game)
    round = review_round(game, number, reviewable)
    round.game = game
    setting = setting_of(game.tournament)
    tournament = game.tournament
    return {
        "game": game.pk,
        "number": game.number,
        "status": game.status,
        "tournament": tournament.name,
        "labelling": tournament.coordinates,
        "player": {"id": player.pk, "name": player.name, "table": player.table},
        "rounds": [r.number for r in reviewable],
        "round": round_review(round, player, setting),
        "summary": summary(reviewable, player),
    }
