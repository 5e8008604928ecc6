"""Training on a past game: whether the game is open to it, the judging of a trainee's slips and the result
(the reads, who may train and a shared result's link, are tournaments/training_selectors.py's)."""

from __future__ import annotations

import math
import secrets
import time

from django.conf import settings
from django.core import signing
from django.core.cache import cache

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip, zero
from engine.tally import warning_deduction
from tournaments import selectors
from tournaments.errors import Conflict, ServiceError
from tournaments.limits import TRAINEE_KEY_MAX
from tournaments.models import Game, hash_token
from tournaments.topping_selectors import is_topping, player_seconds
from tournaments.training_selectors import (
    RESULT_SALT,
    VERDICT_SALT,
    shown_result,
    trainee_name,
    training_round,
    training_rounds,
)
from tournaments.versions import live_key, notify_game_changed

from .logbook import log
from .roles import act_as, require_head
from .setting import placement, setting_of

TRAINING_CHOICES = tuple(Game.Training.values)


def training_set(*, game: Game, value: str, actor=None) -> Game:
    """Open the game to training (``everyone``, ``members``) or close it (``closed``); logged."""
    act_as(require_head, game.pk, actor)
    if value not in TRAINING_CHOICES:
        raise ServiceError("invalid_training", fields={"open": [f"one of {', '.join(TRAINING_CHOICES)}"]},
                           params={"value": str(value)[:20], "choices": ", ".join(TRAINING_CHOICES)})
    before = game.training
    if before != value:
        Game.objects.filter(pk=game.pk).update(training=value)
        game.training = value
        log(game=game, action="training_set", actor=actor, before={"training": before}, after={"training": value})
        notify_game_changed(game.pk)  # the players' phones link to the training once it opens
    return game


def training_trainee(*, game: Game, user=None, token: str | None = None, known: str | None = None) -> str:
    """Who trains, as a key: the site's signed-in user (``u``), else the player of the club by their token
    (``t``, the game open to members), else the visitor ``known`` by the key this server gave their browser
    (``a``, kept in a signed cookie of the game's training, which starting again does not clear), else a
    newcomer, with a new key."""
    if getattr(user, "is_authenticated", False):
        return f"u{user.pk}"
    if token and selectors.is_tournament_player(tournament_id=game.tournament_id, token=token):
        return f"t{hash_token(token)[:32]}"
    if isinstance(known, str) and known.startswith("a") and 1 < len(known) <= TRAINEE_KEY_MAX:
        return known
    return f"a{secrets.token_hex(12)}"


def _trainee_key(what: str, game: Game, trainee: str, number: int) -> str:
    """A trainee's mark on round ``number`` (``what``: "first" verdict, topping's "start" and wrong "tries").
    The game's creation in the key: a game's id that comes back in a recreated database starts afresh."""
    return live_key(game.pk, f"training-{what}", int(game.created_at.timestamp()), trainee, number)


def _elapsed(started: float) -> int:
    """Whole seconds since ``started`` (a time.time() kept in the cache)."""
    return max(0, math.floor(time.time() - started))


def training_start(*, game: Game, number: int, trainee: str) -> dict:
    """Topping: the trainee's round ``number`` starts now on the server's clock, their time runs from here.
    Only the first start of a round counts (kept as long as a round's first verdict): starting the round again
    does not give back the time. In any other game nothing is kept."""
    round = training_round(game, number)
    if not is_topping(game.tournament):
        return {"round": round.number, "topping": False}
    start = _trainee_key("start", game, trainee, round.number)
    cache.add(start, time.time(), timeout=settings.ARBITER_TRAINING_FIRST_SECONDS)
    started = cache.get(start)
    return {"round": round.number, "topping": True, "round_seconds": game.tournament.rules.round_seconds,
            "elapsed": _elapsed(started)}


def _topping_try(game: Game, round, trainee: str, word: str, paid: int) -> dict:
    """A topping try in training (docs/rules.md 7.5): found when it pays the top within the round's time from
    the trainee's start (``training_start``; 409 ``training_not_started`` without one). The round is over for
    the trainee (``final``) once a try finds the top, or with an empty word (given up, or the clock ran out),
    or when the round's time has gone by; a wrong try before then is counted and the trainee tries again."""
    rules = game.tournament.rules
    started = cache.get(_trainee_key("start", game, trainee, round.number))
    if started is None:
        raise Conflict("training_not_started", params={"round": round.number})
    elapsed = _elapsed(started)
    in_time = elapsed <= rules.round_seconds
    found = bool(word) and in_time and paid == round.top_score
    final = found or not word or not in_time
    tries = _trainee_key("tries", game, trainee, round.number)
    cache.add(tries, 0, timeout=settings.ARBITER_TRAINING_FIRST_SECONDS)
    if not final:
        cache.incr(tries)
    wrong = int(cache.get(tries) or 0)
    seconds = rules.topping_seconds(elapsed if found else None, wrong)
    return {"found": found, "final": final, "elapsed": elapsed, "found_after": elapsed if found else None,
            "wrong_tries": wrong, "seconds": seconds}


def training_judge(*, game: Game, number: int, word: str, ref: str, score: int | None,
                   trainee: str | None = None) -> dict:
    """Judge one training slip on round ``number`` as the close would (an empty word: no slip), and show the
    round's tops and master. No row is written.

    The first verdict of a round is the one that counts: the cache keeps, for ``ARBITER_TRAINING_FIRST_SECONDS``,
    that this ``trainee`` (``training_trainee``; none: a newcomer) was judged on the round; a later try is
    practice, signed as such in its proof (``c``: 0), which the result does not count."""
    round = training_round(game, number)
    setting = setting_of(game.tournament)
    if not word:
        judgement = zero("no_slip")
    else:
        judgement = judge_slip(Board.from_rows(round.board), round.rack, round.number,
                               EngineSlip(word, ref or None, score), setting.lexicon, setting.tileset,
                               setting.rules, labelling=setting.labelling)
    key = trainee or training_trainee(game=game)
    topping = _topping_try(game, round, key, word, judgement.paid) if is_topping(game.tournament) else None
    # Topping: the verdict that counts is the round's last try (the top found, or given up), not its first.
    counted = (topping is None or topping["final"]) and cache.add(
        _trainee_key("first", game, key, round.number), 1, timeout=settings.ARBITER_TRAINING_FIRST_SECONDS)
    signed = {"g": game.pk, "r": round.number, "p": judgement.paid, "o": judgement.outcome,
              "k": key, "c": 1 if counted else 0, "at": time.time_ns()}
    if topping is not None:
        signed.update(s=topping["seconds"], f=1 if topping["found"] else 0)
    proof = signing.dumps(signed, salt=VERDICT_SALT, compress=True)
    master = round.master or {}
    return {
        "round": round.number,
        "word": word,
        "ref": ref,
        "score": score,
        "paid": judgement.paid,
        "outcome": judgement.outcome,
        "reason": judgement.reason,
        "message": judgement.message,
        "placement": placement(setting, judgement),
        "top_score": round.top_score,
        "is_top": judgement.paid == round.top_score,
        "tops": [{"word": t["word"], "ref": t["ref"], "score": t["score"]} for t in round.tops],
        "master": {"word": master.get("word"), "ref": master.get("ref"), "score": master.get("score")},
        "proof": proof,
        "counted": counted,  # False: a retry, practice, not counted
        "topping": topping,  # topping: the trainee's time in the round; None in any other game
    }


def _verdicts(game: Game, proofs: list[str]) -> dict[int, dict]:
    """The verdicts of the proofs, by round; a proof not signed here, or of another game, is refused."""
    verdicts: dict[int, dict] = {}
    for proof in proofs:
        try:
            data = signing.loads(proof, salt=VERDICT_SALT)
        except signing.BadSignature:
            raise ServiceError("training_bad_proof", fields={"proofs": ["a verdict was not given by this server"]}) from None
        if data.get("g") != game.pk:
            raise ServiceError("training_bad_proof", fields={"proofs": ["a verdict is of another game"]},
                               params={"why": "other_game"})
        verdicts[data["r"]] = data
    return verdicts


def _counted_verdicts(game: Game, proofs: list[str], rounds) -> dict[int, dict]:
    """The verdict that counts of each round: its first, as signed (``c``: 1), the earliest if the proofs
    hold two. A practice verdict (a retry, ``c``: 0) counts for nothing: a round that has only practice is
    refused (``training_not_counted``), as are first verdicts of different trainees (``training_other_trainee``:
    the best first tries of several browsers are not one training). Each proof is checked by ``_verdicts``."""
    counted: dict[int, dict] = {}
    practice: set[int] = set()
    for proof in proofs:
        ((number, data),) = _verdicts(game, [proof]).items()
        if data.get("c") != 1:
            practice.add(number)
        elif number not in counted or data.get("at", 0) < counted[number].get("at", 0):
            counted[number] = data
    if len({data.get("k") for data in counted.values()}) > 1:
        raise ServiceError("training_other_trainee", fields={"proofs": ["verdicts of different trainings"]})
    retried = [r.number for r in rounds if r.number not in counted and r.number in practice]
    if retried:
        raise ServiceError("training_not_counted", fields={"proofs": ["a practice verdict counts for nothing"]},
                           params={"rounds": ", ".join(map(str, retried))})
    return counted


def training_result(*, game: Game, name: str, proofs: list[str]) -> dict:
    """The end of a training: the total (paid scores, less the warnings' cost as at the end of a game), the
    percentage of the tops, the rank among the real standings, and a signed token for the shared link."""
    rounds = training_rounds(game)
    verdicts = _counted_verdicts(game, proofs, rounds)
    missing = [r.number for r in rounds if r.number not in verdicts]
    if missing:
        raise ServiceError("training_unfinished", params={"rounds": ", ".join(map(str, missing))})
    rules = game.tournament.rules
    paid = sum(verdicts[r.number]["p"] for r in rounds)
    warnings = sum(1 for r in rounds if verdicts[r.number]["o"] == "warning")
    total = paid - warning_deduction(warnings, rules)
    tops = sum(r.top_score or 0 for r in rounds)
    standings = selectors.game_standings(game=game)
    rank = 1 + sum(1 for row in standings if row["total"] > total)
    times = {}
    if is_topping(game.tournament):
        # Topping: ranked by time, the lowest first, among the players' times in the real game.
        seconds = sum(verdicts[r.number].get("s", 0) for r in rounds)
        played = player_seconds(game=game)
        rank = 1 + sum(1 for row in played.values() if row["seconds"] < seconds)
        times = {"sec": seconds, "fd": sum(verdicts[r.number].get("f", 0) for r in rounds), "nr": len(rounds)}
    # The trainee is ranked among the game's players, so they are one more: "3 of 3", never "3 of 2".
    body = {"g": game.pk, "n": trainee_name(name), "t": total, "tt": tops,
            "rk": rank, "np": len(standings) + 1, "w": warnings, **times}
    token = signing.dumps(body, salt=RESULT_SALT, compress=True)
    return {**shown_result(body), "token": token}
