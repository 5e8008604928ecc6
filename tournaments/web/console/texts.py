"""Readable, translated words for the states and refusals the services report by code."""

from __future__ import annotations

import re

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


RACK_REFUSALS = (
    ("wrong_size", re.compile(r"^(?P<rack>.+?): the rack must have (?P<size>\d+) letters, not (?P<count>\d+)$")),
    ("missing_kept", re.compile(r"^(?P<rack>\S+): the kept letters (?P<kept>\S+) are missing$")),
    ("not_in_bag", re.compile(r"^(?P<rack>\S+): (?P<letters>\S+) not in the bag$")),
    ("too_few_vowels", re.compile(
        r"^(?P<rack>\S+): at least (?P<vowels>\d+) vowels and (?P<consonants>\d+) consonants are needed$")),
    ("too_few_vowels", re.compile(r"^(?P<rack>\S+): at least (?P<vowels>\d+) vowels are needed$")),
    ("too_few_consonants", re.compile(r"^(?P<rack>\S+): at least (?P<consonants>\d+) consonants are needed$")),
)


def rack_refusal_text(code: str, message: str) -> str | None:
    """A refused typed rack in the arbitrator's language, with the letters and numbers the engine named."""
    for known, pattern in RACK_REFUSALS:
        match = pattern.match(message) if known == code else None
        if match is None:
            continue
        parts = match.groupdict()
        if code == "wrong_size":
            return _("%(rack)s: the rack must have %(size)s letters, not %(count)s") % parts
        if code == "missing_kept":
            return _("%(rack)s: the kept letters %(kept)s are missing") % parts
        if code == "not_in_bag":
            return _("%(rack)s: %(letters)s not in the bag") % parts
        if "vowels" in parts and "consonants" in parts:
            return _("%(rack)s: at least %(vowels)s vowels and %(consonants)s consonants are needed") % parts
        if "vowels" in parts:
            return _("%(rack)s: at least %(vowels)s vowels are needed") % parts
        return _("%(rack)s: at least %(consonants)s consonants are needed") % parts
    return None


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
        return rack_refusal_text(error.code, error.message) or error.message
    if error.code == "game_over" and error.message and "valid rack" in error.message:
        return _("The letters left cannot make a valid rack: the game is over.")
    return text


def canonical_ref(ref: str | None, labelling: str) -> str:
    """A reference as written on a slip, shown in its canonical form (``h 4`` → ``H4``); text that names no
    square is shown as written."""
    return notation.canonical_ref(ref, labelling, strict=False)
