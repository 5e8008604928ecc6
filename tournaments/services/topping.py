"""Topping's tries (docs/rules.md 7.5): in a topping tournament each slip a player hands in is a try, judged
at once against the round's top. After a try that scored the top, further tries are refused (409
``top_found``, with the seconds it was found in) and change nothing."""

from __future__ import annotations

from tournaments.errors import Conflict
from tournaments.models import Round, Slip


def with_tops(round: Round) -> Round:
    """``round`` itself, its tops stored (computed now when the draw's task has not yet done it): a try is
    judged at once, so a topping round's slip needs the top. The top is set on this very object, as on the
    caller's copy the answer is built from (topping_answer): a try handed in before the tops were computed
    is answered from the top it was judged against. Called before any lock is taken."""
    from .draw import round_compute_tops

    ready, top_score = Round.objects.filter(pk=round.pk).values_list("tops_ready", "top_score").first()
    if not ready:
        computed = round_compute_tops(round=round)
        ready, top_score = computed.tops_ready, computed.top_score
    round.tops_ready, round.top_score = ready, top_score
    return round


def try_found(round: Round, slip: Slip) -> bool:
    """Whether this try scores the round's top (any tied top: the same score)."""
    from tournaments.setting import judge, setting_of

    if slip is None or slip.several or round.top_score is None:
        return False
    return judge(setting_of(round.game.tournament), round, slip).paid == round.top_score


def refuse_after_top(round: Round, previous: Slip | None) -> None:
    """Called under the round's and the player's locks before a new try is written: the player's current
    slip already scored the top → 409 ``top_found``."""
    from tournaments.topping_selectors import seconds_after_start

    if previous is not None and try_found(round, previous):
        seconds = seconds_after_start(round, previous.received_at)
        raise Conflict("top_found", fields={"found_after": seconds}, params={"seconds": seconds})


def try_answer(round: Round, slip: Slip) -> dict:
    """What the phone is told of its try: {"found": bool, "found_after": seconds or None}. The top itself
    is never in it."""
    from tournaments.topping_selectors import seconds_after_start

    found = try_found(round, slip)
    return {"found": found, "found_after": seconds_after_start(round, slip.received_at) if found else None}


def topping_answer(slip: Slip, round: Round | None = None) -> dict | None:
    """try_answer for a slip of a topping tournament's round (``round``: the slip's, already loaded with its
    game and tournament, so that another tournament's slip costs no query); None in any other tournament."""
    round = round if round is not None else slip.round
    from tournaments.topping_selectors import is_topping

    if not is_topping(round.game.tournament):
        return None
    return try_answer(round, slip)
