"""French typography for the pages and the sheets: one place that knows how each language writes.

French puts a non-breaking space (U+00A0) before ``:`` ``;`` ``?`` ``!`` and before the percent sign, and
writes decimals with a comma (``Sac : 93``, ``87,5 %``); English writes ``Bag: 93`` and ``87.5%``. The pages'
templates use the filters and tags of ``tournaments/templatetags/typography.py``; the sheets call these
functions; the pages' JavaScript does the same from the page's ``<html lang>`` (static/js/common.js).

Each function takes the language code explicitly, or reads the active one (``django.utils.translation``).
"""

from __future__ import annotations

import re

from django.utils.translation import get_language

NBSP = "\u00a0"
# A high punctuation mark that follows a word (with or without a space), and ends it: followed by a space,
# the end of the text, a closing quote or bracket. "12:30", "http://", "?page" are left alone.
_HIGH_PUNCTUATION = re.compile(r"(?<=[\w)\]»”’.%…])[ \u00a0\u202f]?([:;?!])(?=[\s\"”»)\]]|$)")


def language(lang: str | None = None) -> str:
    """The language code (``fr``, ``en``) for ``lang``, or the active language."""
    return (lang or get_language() or "en").split("-")[0].lower()


def is_french(lang: str | None = None) -> bool:
    return language(lang) == "fr"


def typeset(text: str, lang: str | None = None) -> str:
    """``text`` with the spaces of its language's punctuation: in French a non-breaking space before
    ``:`` ``;`` ``?`` ``!`` (a plain space there becomes a non-breaking one); unchanged in English."""
    if not text or not is_french(lang):
        return text
    return _HIGH_PUNCTUATION.sub(NBSP + r"\1", str(text))


def colon(lang: str | None = None) -> str:
    """A colon after a label, as the language writes it: ``\u00a0:`` in French, ``:`` in English."""
    return NBSP + ":" if is_french(lang) else ":"


def decimal(value: float | int | None, places: int = 1, lang: str | None = None) -> str:
    """A number with ``places`` decimals: ``87,5`` in French, ``87.5`` in English ('' for None)."""
    if value is None or value == "":
        return ""
    text = f"{float(value):.{places}f}"
    return text.replace(".", ",") if is_french(lang) else text


def percent(value: float | int | None, places: int = 1, lang: str | None = None, *, sign: bool = True) -> str:
    """A percentage: ``87,5 %`` in French (a non-breaking space before the sign), ``87.5%`` in English.
    ``sign=False`` gives the number alone, for a column already headed with %."""
    number = decimal(value, places, lang)
    if not number or not sign:
        return number
    return number + (NBSP + "%" if is_french(lang) else "%")

