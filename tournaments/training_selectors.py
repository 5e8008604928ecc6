"""Training on a past game, what is read: who may train, the rounds replayed, a shared result's link.

A finished game replayed alone, with the same racks and the same master moves. The judging of a trainee's
slips and the result are services/training.py's (``services.training_judge``, ``services.training_result``):
each verdict comes with a signed proof (``django.core.signing``) of what it paid in which round; the result
adds up the proofs, so that a shared result link (itself signed) cannot show a score the rules did not pay.

Who may train: ``Game.training`` — closed (nobody), everyone, or members: the club's players (a player of the
game's tournament, by the token their phone keeps since they joined) and the site's signed-in users; and only
once the game is over, so that no rack of a game in play is ever shown.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing

from tournaments import selectors
from tournaments.errors import NotFound
from tournaments.limits import TRAINEE_NAME_MAX
from tournaments.models import Game, Round
from tournaments.names import clean_name

VERDICT_SALT = "tournaments.training.verdict"
RESULT_SALT = "tournaments.training.result"
TRAINEE_SALT = "tournaments.training.trainee"  # the cookie a visitor's browser is known by (web/training.py)
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
        raise NotFound("training_not_open", params={"game": game_id})
    return game


def training_rounds(game: Game):
    """The rounds replayed: every closed round with a top, in order."""
    return list(game.rounds.filter(status=Round.Status.CLOSED, top_score__isnull=False).order_by("number"))


def rounds_shown(game: Game) -> list[dict]:
    """What the page needs before any slip: each round's board and rack (never its tops)."""
    return [{"number": r.number, "rack": r.rack, "kept": r.kept, "board": list(r.board)} for r in training_rounds(game)]


def training_round(game: Game, number: int) -> Round:
    """The round ``number`` replayed (closed, with a top); 404 otherwise."""
    round = game.rounds.filter(number=number, status=Round.Status.CLOSED, top_score__isnull=False).first()
    if round is None:
        raise NotFound("training_no_round", params={"round": number})
    return round


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
            "rank": body["rk"], "players": body["np"], "warnings": body.get("w", 0),
            # Topping: the trainee's total time, and the rounds whose top they found.
            "topping": {"seconds": body["sec"], "found": body["fd"], "rounds": body["nr"]} if "sec" in body else None}


def read_result(game: Game, token: str) -> dict:
    """The result a shared link carries; a link not signed here, or of another game, is refused (404)."""
    try:
        body = signing.loads(token, salt=RESULT_SALT, max_age=settings.ARBITER_TRAINING_LINK_MAX_AGE)
    except signing.BadSignature:
        raise NotFound("training_bad_link") from None
    if body.get("g") != game.pk:
        raise NotFound("training_bad_link", params={"why": "other_game"})
    return shown_result(body)
