"""Readable, translated words for the states and refusals the services report by code."""

from __future__ import annotations

from django.utils.translation import gettext as _

from engine import notation
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


def rack_refusal_text(code: str, params: dict) -> str | None:
    """A refused typed rack in the arbitrator's language, with the letters and numbers the engine named
    (the refusal's ``params``)."""
    if "rack" not in params:
        return None
    parts = {**params, "rack": params["rack"] or "—"}
    if code == "wrong_size":
        return _("%(rack)s: the rack must have %(size)s letters, not %(count)s") % parts
    if code == "missing_kept":
        return _("%(rack)s: the kept letters %(kept)s are missing") % parts
    if code == "not_in_bag":
        return _("%(rack)s: %(letters)s not in the bag") % parts
    if code not in ("too_few_vowels", "too_few_consonants"):
        return None
    if "vowels" in parts and "consonants" in parts:
        return _("%(rack)s: at least %(vowels)s vowels and %(consonants)s consonants are needed") % parts
    if "vowels" in parts:
        return _("%(rack)s: at least %(vowels)s vowels are needed") % parts
    return _("%(rack)s: at least %(consonants)s consonants are needed") % parts


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
    if error.code == "too_soon":
        return _("Players are still reading the results: the next rack can be drawn in %(seconds)s s.") % {
            "seconds": (error.fields or {}).get("seconds", "")}
    params = getattr(error, "params", None) or {}
    if error.code == "unknown_table" and "table" in params:
        return _("No player sits at table %(table)s.") % params
    if error.code == "shared_table" and "table" in params:
        return _("Several players sit at table %(table)s: correct the tables.") % params
    if error.code == "second_slip" and "slip" in params:
        return _("Table %(table)s already holds %(slip)s. Is this a typing correction that replaces it "
                 "(OK), or a second slip, paid 0 (Cancel)?") % params
    if error.code == "rack_valid":
        return _("This rack obeys the vowel/consonant rule: draw it as the round's rack.")
    text = known.get(error.code)
    if text is None:
        return rack_refusal_text(error.code, params) or error.message
    if error.code == "game_over" and params.get("why") == "no_valid_rack":
        return _("The letters left cannot make a valid rack: the game is over.")
    return text


def canonical_ref(ref: str | None, labelling: str) -> str:
    """A reference as written on a slip, shown in its canonical form (``h 4`` → ``H4``); text that names no
    square is shown as written."""
    return notation.canonical_ref(ref, labelling, strict=False)
