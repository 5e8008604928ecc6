"""Readable words for the machine codes a sheet prints."""

from __future__ import annotations

REASONS = {
    "ok": "",
    "wrong_score": "wrong score",
    "reversed_ref": "reversed ref.",
    "wrong_ref": "wrong ref.",
    "first_round_best": "first round",
    "blank_not_marked": "blank not marked",
    "stray_blank_mark": "stray blank mark",
    "invalid_word": "invalid word",
    "not_in_rack": "not in rack",
    "does_not_fit": "does not fit",
    "not_connected": "not connected",
    "not_centre": "not on centre",
    "bad_ref": "bad ref.",
    "bad_word": "bad word",
    "no_slip": "no slip",
    "late": "late",
    "several_slips": "several slips",
}

OUTCOMES = {"ok": "", "warning": "warning", "penalty": "penalty", "zero": "zero"}


def reason_label(code: str) -> str:
    return REASONS.get(code, code.replace("_", " "))


def outcome_label(code: str) -> str:
    return OUTCOMES.get(code, code)
