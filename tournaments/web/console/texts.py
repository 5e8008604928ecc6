"""Readable, translated words for the states and refusals the services report by code."""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.errors import ServiceError


def round_status_text(status: str | None) -> str:
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


def error_text(error: ServiceError) -> str:
    """The refusal in the arbitrator's language; codes without a translation keep the service's own
    precise message (it names the letters or the reference at fault)."""
    known = {
        "round_open": _("A round is still in play: close it first."),
        "round_closed": _("The round is closed: no slip can be handed in or changed."),
        "round_not_open": _("The round has not started yet: start the clock first."),
        "round_not_closed": _("The master move is chosen once the round is closed."),
        "master_locked": _("The next round has been drawn: the master move can no longer change."),
        "game_over": _("The game is over."),
        "reason_required": _("A correction needs a reason."),
        "slip_replaced": _("This slip was replaced: correct the one that counts."),
        "key_reused": _("This entry was already sent with other content: type it again."),
        "lexicon_builtin": _("This name belongs to a built-in lexicon: choose another."),
    }
    text = known.get(error.code)
    if text is None:
        return error.message
    if error.code == "game_over" and error.message and "valid rack" in error.message:
        return _("The letters left cannot make a valid rack: the game is over.")
    return text


def canonical_ref(ref: str | None, labelling: str) -> str:
    """A reference as written on a slip, shown in its canonical form (``h 4`` → ``H4``); text that names no
    square is shown as written."""
    from engine.notation import RefError, format_ref, parse_ref

    if not ref:
        return ""
    try:
        parsed = parse_ref(ref, labelling)
    except RefError:
        return ref
    return format_ref(parsed.row, parsed.col, parsed.horizontal, labelling)
