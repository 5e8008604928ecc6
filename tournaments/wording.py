"""A tournament's settings in words, in the active language: what the pages and the sheets show instead of
the codes stored (``fisf``, ``french``, ``rows-letters``, ``fr``).

The words are the models' choice labels (the same messages); this module does not import the models, so
that the sheets' renderers, which never touch the database, may use it.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

RULESETS = {"fisf": _("FISF competition rules"), "classic": _("Booklet rules")}
# Every tile set engine/data/tilesets ships (tests/tournaments/test_spanish_tournament.py checks the list and the
# counts against the files), in the order the forms offer them.
TILESETS = {"english": _("English (100 tiles)"), "french": _("French (102 tiles)"),
            "spanish": _("Spanish (100 tiles: CH, LL, RR, Ñ)"), "catalan": _("Catalan (100 tiles: L·L, NY, QU, Ç)"),
            "romanian": _("Romanian (100 tiles)"), "dutch": _("Dutch (102 tiles)"),
            "german": _("German (102 tiles)"), "italian": _("Italian (120 tiles)")}
TILESETS_SHORT = {"english": pgettext_lazy("tile set", "English tiles"),
                  "french": pgettext_lazy("tile set", "French tiles"),
                  "spanish": pgettext_lazy("tile set", "Spanish tiles"),
                  "catalan": pgettext_lazy("tile set", "Catalan tiles"),
                  "romanian": pgettext_lazy("tile set", "Romanian tiles"),
                  "dutch": pgettext_lazy("tile set", "Dutch tiles"),
                  "german": pgettext_lazy("tile set", "German tiles"),
                  "italian": pgettext_lazy("tile set", "Italian tiles")}
COORDINATES = {"rows-letters": _("Rows A-O, columns 1-15"), "rows-numbers": _("Rows 1-15, columns A-O")}
LANGUAGES = {"en": _("English"), "fr": "Français"}
# The variants and timings (the model's Tournament.Variant and Tournament.Timing labels).
VARIANTS = {"duplicate": _("Classic duplicate"), "joker": _("Joker"), "explosive": _("Explosive"),
            "seven_of_eight": _("7 out of 8"), "seven_and_eight": _("7 and 8"), "topping": _("Topping")}
TIMINGS = {"normal": _("Normal"), "semi_rapid": _("Semi-rapid"), "blitz": _("Blitz")}


def _word(words: dict, code: str) -> str:
    """The word for ``code`` in the active language; an unknown code is shown as it is."""
    return str(words[code]) if code in words else code


def ruleset_label(code: str) -> str:
    return _word(RULESETS, code)


def variant_label(variant: str, timing: str = "normal") -> str:
    """The variant in words, with its timing when it is not the normal one: "7 and 8", "Joker (Blitz)"."""
    words = _word(VARIANTS, variant)
    return words if timing in ("", "normal") else f"{words} ({_word(TIMINGS, timing)})"


def tileset_label(code: str) -> str:
    return _word(TILESETS, code)


def tileset_short(code: str) -> str:
    """The tile set in a few words, for a sheet's header: "English tiles", "jeu de lettres français"."""
    return _word(TILESETS_SHORT, code)


def coordinates_label(code: str) -> str:
    return _word(COORDINATES, code)


def language_label(code: str) -> str:
    return _word(LANGUAGES, code)


def found_top_text(found: int, players: int) -> str:
    """The words "13 of 18 players found the top": how many of the round's players were paid its top (the counts of
    tournaments.selectors.found_top), the same words on the review and on the solutions sheet."""
    return ngettext("%(found)s player of %(players)s found the top", "%(found)s of %(players)s players found the top",
                    found) % {"found": found, "players": players}
