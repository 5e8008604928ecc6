"""French typography for the pages and the sheets: one place that knows how each language writes.

French puts a non-breaking space (U+00A0) before ``:`` ``;`` ``?`` ``!`` and before the percent sign, and
writes decimals with a comma (``Sac : 93``, ``87,5 %``); English writes ``Bag: 93`` and ``87.5%``. The pages'
templates use the filters and tags of ``tournaments/templatetags/typography.py``; the sheets call these
functions; the pages' JavaScript does the same from the page's ``<html lang>`` (static/js/common.js).

French also elides a short word before a name that starts with a vowel sound: ``le bulletin d'Alice``, never
``de Alice`` (``elided``, the one place that knows the rule; ``{{ text|elided:name }}`` in the templates).

Each function takes the language code explicitly, or reads the active one (``django.utils.translation``).
"""

from __future__ import annotations

import re
import unicodedata

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



# French elision before a name. The rule chosen:
# - the words elided are "de", "que", "le", "la" and "jusque", "lorsque", "puisque" (``de Alice`` becomes
#   ``d'Alice``, ``que Hugo`` ``qu'Hugo``), only when the name follows them directly, after one space;
# - a name elides them when it starts with a vowel, accented or not (A E I O U: Alice, Élodie, Îlona,
#   Ursule, Œdipe, Æsa), or with an h, every h taken as mute (Hugo, Hélène: ``d'Hugo``, ``d'Hélène``),
#   or with a y followed by a consonant (Yves: ``d'Yves``; but Yannick, a y before a vowel: ``de Yannick``);
# - any other name (a consonant, a digit, a sign) leaves the text as it is; an English text is left alone.
# The apostrophe is the straight one, as in the project's French texts.
ELIDED_WORDS = ("de", "que", "le", "la", "jusque", "lorsque", "puisque")
_VOWELS = "aeiou"


def _base_letter(char: str) -> str:
    """The letter without its accent, lowercase: ``É`` → ``e``; ``œ`` and ``æ`` read as their first vowel."""
    char = char.lower()
    if char in "œæ":
        return "o" if char == "œ" else "a"
    return unicodedata.normalize("NFD", char)[:1]


def elides_before(name: str) -> bool:
    """Whether French elides ``de``, ``que``, ``le``... before this name (the rule above)."""
    name = (name or "").strip()
    if not name:
        return False
    first = _base_letter(name[0])
    if first in _VOWELS or first == "h":
        return True
    second = _base_letter(name[1]) if len(name) > 1 else ""
    return first == "y" and second.isalpha() and second not in _VOWELS + "y"


def elided(text: str, *names: str, lang: str | None = None) -> str:
    """``text`` with the French elision before each of ``names`` where it appears (the rule above):
    ``le bulletin de Alice`` → ``le bulletin d'Alice``. Unchanged in English, or for a name that does not
    elide. ``text`` is the finished text (after its ``%`` formatting)."""
    if not text or not is_french(lang):
        return text
    for name in {str(name).strip() for name in names if name}:
        if not elides_before(name):
            continue
        words = "|".join(ELIDED_WORDS)
        text = re.sub(rf"\b({words}) (?={re.escape(name)})", lambda match: match.group(1)[:-1] + "'", text,
                      flags=re.IGNORECASE)
    return text
