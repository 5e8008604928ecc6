"""The texts of the refusals of a player's federation identity and of a centre's file of licensees
(tournaments/federation.py, tournaments/services/licensees.py), merged into tournaments/refusals.py's TEXTS."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

TEXTS = {
    "bad_series": _("%(series)s is not a series of the federation's list: %(choices)s"),
    "bad_category": _("%(category)s is not an age category of the federation's list: %(choices)s"),
    "bad_licence": _("a licence number has 1 to %(max)s letters, digits or hyphens"),
    "licence_required": _("a licensee's row needs a licence number"),
    "club_too_long": _("a club's name has at most %(max)s characters"),
    "bad_birth_date": _("a date of birth is a date, such as 1960-03-14 or 14/03/1960"),
    ("bad_birth_date", "shape"): _("%(text)s is not a date of birth: write it 1960-03-14 or 14/03/1960"),
    ("bad_birth_date", "future"): _("a date of birth cannot be in the future (%(date)s)"),
    ("bad_birth_date", "too_early"): _("a date of birth is in %(year)s or later, not %(date)s"),
    "licence_taken": _("licence %(licence)s is already %(name)s's in this tournament"),
    "licence_repeated": _("licence %(licence)s is already on row %(first)s"),
    "bad_licensees": _("This file of licensees cannot be imported."),
    ("bad_licensees", "empty"): _("the file of licensees is empty"),
    ("bad_licensees", "too_large"): _("a file of licensees is at most %(max)s bytes"),
    ("bad_licensees", "too_many_rows"): _("a file of licensees has at most %(max)s rows"),
    ("bad_licensees", "header"): _("the file's first line names its columns (licence, name, club, series, "
                                   "category, birth date): %(missing)s missing"),
    ("bad_licensees", "columns"): _("row %(row)s has %(count)s columns, the header %(expected)s"),
    ("bad_licensees", "rows"): _("nothing was imported: %(count)s rows of the file are wrong"),
    "licensee_row": _("row %(row)s: %(reason)s"),
}
