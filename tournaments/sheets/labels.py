"""Readable words for the machine codes a sheet prints, in the active language (the sheet's)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

REASONS = {
    "ok": "",
    "wrong_score": _("wrong score"),
    "reversed_ref": _("reversed ref."),
    "wrong_ref": _("wrong ref."),
    "first_round_best": _("first round"),
    "first_round_best_wrong_score": _("first round, wrong score"),
    "blank_not_marked": _("blank not marked"),
    "stray_blank_mark": _("stray blank mark"),
    "invalid_word": _("invalid word"),
    "not_in_rack": _("not in rack"),
    "does_not_fit": _("does not fit"),
    "not_connected": _("not connected"),
    "not_centre": _("not on centre"),
    "bad_ref": _("bad ref."),
    "bad_word": _("bad word"),
    "no_slip": _("no slip"),
    "late": pgettext_lazy("sheet reason", "late"),
    "several_slips": _("several slips"),
    "absent": pgettext_lazy("sheet reason", "absent"),
    "arbitrator": _("arbitrator's ruling"),
}

OUTCOMES = {
    "ok": "",
    "warning": pgettext_lazy("sheet outcome", "warning"),
    "penalty": pgettext_lazy("sheet outcome", "penalty"),
    "zero": pgettext_lazy("sheet outcome", "zero"),
}


def reason_label(code: str) -> str:
    return str(REASONS[code]) if code in REASONS else code.replace("_", " ")


def outcome_label(code: str) -> str:
    return str(OUTCOMES[code]) if code in OUTCOMES else code
