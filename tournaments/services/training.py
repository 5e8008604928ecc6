"""Training on a past game: whether the game is open to it, the judging of a trainee's slips and the result
(the reads, who may train and a shared result's link, are tournaments/training_selectors.py's)."""

from __future__ import annotations

from django.core import signing

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip, zero
from engine.tally import warning_deduction
from tournaments import selectors
from tournaments.errors import ServiceError
from tournaments.models import Game
from tournaments.training_selectors import (
    RESULT_SALT,
    VERDICT_SALT,
    shown_result,
    trainee_name,
    training_round,
    training_rounds,
)
from tournaments.versions import notify_game_changed

from .logbook import log
from .roles import act_as, require_head
from .setting import placement, setting_of

TRAINING_CHOICES = tuple(Game.Training.values)


def training_set(*, game: Game, value: str, actor=None) -> Game:
    """Open the game to training (``everyone``, ``members``) or close it (``closed``); logged."""
    act_as(require_head, game.pk, actor)
    if value not in TRAINING_CHOICES:
        raise ServiceError("invalid_training", f"training is one of {', '.join(TRAINING_CHOICES)}",
                           fields={"open": [f"one of {', '.join(TRAINING_CHOICES)}"]},
                           params={"value": str(value)[:20], "choices": ", ".join(TRAINING_CHOICES)})
    before = game.training
    if before != value:
        Game.objects.filter(pk=game.pk).update(training=value)
        game.training = value
        log(game=game, action="training_set", actor=actor, before={"training": before}, after={"training": value})
        notify_game_changed(game.pk)  # the players' phones link to the training once it opens
    return game


def training_judge(*, game: Game, number: int, word: str, ref: str, score: int | None) -> dict:
    """Judge one training slip on round ``number`` as the close would (an empty word: no slip), and show the
    round's tops and master. Nothing is written."""
    round = training_round(game, number)
    setting = setting_of(game.tournament)
    if not word:
        judgement = zero("no_slip")
    else:
        judgement = judge_slip(Board.from_rows(round.board), round.rack, round.number,
                               EngineSlip(word, ref or None, score), setting.lexicon, setting.tileset,
                               setting.rules, labelling=setting.labelling)
    proof = signing.dumps({"g": game.pk, "r": round.number, "p": judgement.paid, "o": judgement.outcome},
                          salt=VERDICT_SALT, compress=True)
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
    }


def _verdicts(game: Game, proofs: list[str]) -> dict[int, dict]:
    """The verdicts of the proofs, by round; a proof not signed here, or of another game, is refused."""
    verdicts: dict[int, dict] = {}
    for proof in proofs:
        try:
            data = signing.loads(proof, salt=VERDICT_SALT)
        except signing.BadSignature:
            raise ServiceError("training_bad_proof", "a verdict was not given by this server",
                               fields={"proofs": ["a verdict was not given by this server"]}) from None
        if data.get("g") != game.pk:
            raise ServiceError("training_bad_proof", "a verdict is of another game",
                               fields={"proofs": ["a verdict is of another game"]})
        verdicts[data["r"]] = data
    return verdicts


def training_result(*, game: Game, name: str, proofs: list[str]) -> dict:
    """The end of a training: the total (paid scores, less the warnings' cost as at the end of a game), the
    percentage of the tops, the rank among the real standings, and a signed token for the shared link."""
    rounds = training_rounds(game)
    verdicts = _verdicts(game, proofs)
    missing = [r.number for r in rounds if r.number not in verdicts]
    if missing:
        raise ServiceError("training_unfinished", "every round must be played before the result",
                           params={"rounds": ", ".join(map(str, missing))})
    rules = game.tournament.rules
    paid = sum(verdicts[r.number]["p"] for r in rounds)
    warnings = sum(1 for r in rounds if verdicts[r.number]["o"] == "warning")
    total = paid - warning_deduction(warnings, rules)
    tops = sum(r.top_score or 0 for r in rounds)
    standings = selectors.game_standings(game=game)
    rank = 1 + sum(1 for row in standings if row["total"] > total)
    body = {"g": game.pk, "n": trainee_name(name), "t": total, "tt": tops,
            "rk": rank, "np": len(standings), "w": warnings}
    token = signing.dumps(body, salt=RESULT_SALT, compress=True)
    return {**shown_result(body), "token": token}
