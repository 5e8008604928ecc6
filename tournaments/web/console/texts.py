"""Readable, translated words for the states the services report by code (refusals: tournaments.refusals)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import reverse
from django.utils.translation import gettext as _

from engine import notation

if TYPE_CHECKING:
    from tournaments.models import Game


def round_status_text(status: str | None, cancel_reason: str = "") -> str:
    """A round's status in words; a round the arbitrator cancelled says why, as they wrote it (a round
    cancelled by itself, when no play was possible, has no reason of its own)."""
    if status == "cancelled" and cancel_reason:
        return _("Cancelled: %(reason)s") % {"reason": cancel_reason}
    return {
        "drawn": _("Rack drawn: the clock has not started"),
        "open": _("Open: slips are being handed in"),
        "closed": _("Closed"),
        "cancelled": _("Cancelled (no play possible)"),
    }.get(status or "", _("No round yet"))


def game_status_text(status: str) -> str:
    return {"ready": _("Ready"), "playing": _("Playing"), "over": _("Over")}.get(status, status)


def outcome_text(outcome: str) -> str:
    return {"ok": _("OK"), "warning": _("Warning"), "penalty": _("Penalty"), "zero": _("Zero")}.get(outcome, outcome)


def log_reason_text(reason: str) -> str:
    """A reason kept in the log, in the reader's language: the reasons the services and the console write
    by themselves (kept in English, the log's language) are translated; a reason typed by the arbitrator is
    shown as typed."""
    from tournaments.reasons import (
        CANCEL_REASON,
        JUDGED_AFTER_CLOSE,
        PAPER_AFTER_CLOSE,
        PAPER_CHOICES,
        SLIPS_COMPLETE_AUTO,
    )

    own = {
        PAPER_AFTER_CLOSE: _("paper slip handed in before the end call, entered after the close"),
        PAPER_CHOICES["replace"]: _("typing correction"),
        PAPER_CHOICES["second"]: _("second slip: paid 0"),
        JUDGED_AFTER_CLOSE: _("arrived before the deadline, served after the close"),
        CANCEL_REASON: _("no play possible: the letters go back into the bag"),
        SLIPS_COMPLETE_AUTO: _("automatic: every paper player's slip is entered"),
    }
    return own.get(reason, reason)


def canonical_ref(ref: str | None, labelling: str) -> str:
    """A reference as written on a slip, shown in its canonical form (``h 4`` → ``H4``); text that names no
    square is shown as written."""
    return notation.canonical_ref(ref, labelling, strict=False)


def game_breadcrumbs(game: Game, *tail) -> list:
    tournament = game.tournament
    crumbs = [
        (_("Tournaments"), reverse("console-home")),
        (tournament.name, reverse("console-tournament", args=[tournament.pk])),
    ]
    label = _("Game %(number)s") % {"number": game.number}
    if tail:
        crumbs.append((label, reverse("console-game", args=[game.pk])))
        crumbs.extend(tail)
    else:
        crumbs.append((label, None))
    return crumbs
