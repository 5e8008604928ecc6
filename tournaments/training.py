"""Training on a past game: a finished game replayed alone, with the same racks and the same master moves.

Each slip is judged as the close judges it (``engine.judging.judge_slip`` on the round's board and rack),
and nothing is written. Each verdict comes with a signed proof (``django.core.signing``) of what it paid in
which round; the result adds up the proofs, so that a shared result link (itself signed) cannot show a
score the rules did not pay. The rank is the one the total would have had in the game's real standings.

Who may train: ``Game.training`` — closed (nobody), everyone, or members: the club's players (a player of the
game's tournament, by the token their phone keeps since they joined) and the site's signed-in users; and only
once the game is over, so that no rack of a game in play is ever shown.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip, zero
from engine.tally import warning_deduction
from tournaments import selectors
from tournaments.errors import NotFound, ServiceError
from tournaments.limits import TRAINEE_NAME_MAX
from tournaments.models import Game, Round
from tournaments.names import clean_name
from tournaments.services import setting_of

VERDICT_SALT = "tournaments.training.verdict"
RESULT_SALT = "tournaments.training.result"
NAME_MAX = TRAINEE_NAME_MAX


def is_member(game: Game, user, token: str | None = None) -> bool:
    """Whether the visitor is one of the club's: a signed-in user of the site, or a player of the game's
    tournament by their bearer ``token``."""
    if getattr(user, "is_authenticated", False):
        return True
    return selectors.is_tournament_player(tournament_id=game.tournament_id, token=token)


def may_train(game: Game, user, token: str | None = None) -> bool:
    """Whether ``user`` (AnonymousUser for a visitor), with a player's ``token`` if any, may replay ``game``."""
    if game.status != Game.Status.OVER:
        return False
    if game.training == Game.Training.EVERYONE:
        return True
    return game.training == Game.Training.MEMBERS and is_member(game, user, token)


def members_only(game: Game) -> bool:
    """Whether the game is open to the club's players only (over, and open to members)."""
    return game.status == Game.Status.OVER and game.training == Game.Training.MEMBERS


def training_game(game_id: int, user, token: str | None = None, *, shell: bool = False) -> Game:
    """The game, if this visitor may train on it; else 404 (a closed game, or one not over, is not shown).
    With ``shell``, a game open to members is given to anyone: its page without the rounds, which the
    member's phone then asks for with its token."""
    game = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if game is None or not (may_train(game, user, token) or (shell and members_only(game))):
        raise NotFound("training_not_open", f"no game {game_id} open for training", params={"game": game_id})
    return game


def training_rounds(game: Game):
    """The rounds replayed: every closed round with a top, in order."""
    return list(game.rounds.filter(status=Round.Status.CLOSED, top_score__isnull=False).order_by("number"))


def rounds_shown(game: Game) -> list[dict]:
    """What the page needs before any slip: each round's board and rack (never its tops)."""
    return [{"number": r.number, "rack": r.rack, "kept": r.kept, "board": list(r.board)} for r in training_rounds(game)]


def _round(game: Game, number: int) -> Round:
    round = game.rounds.filter(number=number, status=Round.Status.CLOSED, top_score__isnull=False).first()
    if round is None:
        raise NotFound("training_no_round", f"no round {number} in this game", params={"round": number})
    return round


def judge(*, game: Game, number: int, word: str, ref: str, score: int | None) -> dict:
    """Judge one training slip on round ``number`` as the close would (an empty word: no slip), and show the
    round's tops and master. Nothing is written."""
    round = _round(game, number)
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


def result(*, game: Game, name: str, proofs: list[str]) -> dict:
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


def trainee_name(name: str) -> str:
    """The name a training result shows, cleaned as a player's name is (tournaments.names.clean_name: no
    bidirectional override, zero-width or control character, no mark with no letter), at most NAME_MAX
    characters; '' for none."""
    return clean_name(clean_name(name)[:NAME_MAX])


def shown_result(body: dict) -> dict:
    tops = body["tt"]
    # Cleaned again when shown: a link signed before names were cleaned here may carry an override.
    return {"game": body["g"], "name": trainee_name(body["n"]), "total": body["t"], "top_total": tops,
            "percent": round(100 * body["t"] / tops, 2) if tops else 0.0,
            "rank": body["rk"], "players": body["np"], "warnings": body.get("w", 0)}


def read_result(game: Game, token: str) -> dict:
    """The result a shared link carries; a link not signed here, or of another game, is refused (404)."""
    try:
        body = signing.loads(token, salt=RESULT_SALT, max_age=settings.ARBITER_TRAINING_LINK_MAX_AGE)
    except signing.BadSignature:
        raise NotFound("training_bad_link", "this result link was not given by this server") from None
    if body.get("g") != game.pk:
        raise NotFound("training_bad_link", "this result link is of another game")
    return shown_result(body)
