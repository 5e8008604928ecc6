"""What every screen is shown of the arbitrator's incidents: a paused clock (frozen with its time left) and
a round just cancelled (with its reason, until the round is drawn again)."""

from __future__ import annotations

from tournaments.models import Game, Round


def incidents_shown(game: Game, current: Round | None) -> dict:
    """The snapshot's ``paused``, ``time_left`` and ``cancelled`` ({number, reason} or None)."""
    paused = current is not None and current.status == Round.Status.OPEN and current.paused_at is not None
    cancelled = None
    latest = game.rounds.order_by("-id").only("number", "status", "cancel_reason").first()
    if latest is not None and latest.status == Round.Status.CANCELLED and latest.cancel_reason:
        cancelled = {"number": latest.number, "reason": latest.cancel_reason}
    return {
        "paused": paused,
        "time_left": current.time_left if paused else None,
        "cancelled": cancelled,
    }
