"""The TrueType fonts embedded in every sheet, shipped in ``fonts/`` so printing never depends on the host.

The PDF base fonts only cover Latin-1; a name like "Łukasz Żmuda" needs an embedded font.

DejaVu Sans draws Latin, Greek, Cyrillic, Armenian and Georgian names as they are written. What a sheet
cannot draw faithfully is transliterated instead (``printable``): a character the font has no glyph for
(Chinese, Japanese, Korean, the Indic scripts, Thai...) would print as an empty box, and the right-to-left
scripts (Hebrew, Arabic...) would print with their letters in the wrong order and unjoined, as ReportLab
neither reorders nor shapes them. Those characters are spelled in ASCII (``tournaments.names.transliterate``:
"محمد" -> "mhmd", "דוד" -> "dvd", "李雷" -> "LiLei"), so every name stays readable text, never a box.
Bundling a font for every script instead would add tens of megabytes (a CJK font alone is 15-20 MB)
and still not lay out the right-to-left scripts.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from tournaments.names import transliterate

FONT_DIR = Path(__file__).resolve().parent / "fonts"

SANS = "DejaVuSans"
SANS_BOLD = "DejaVuSans-Bold"
MONO = "DejaVuSansMono"
MONO_BOLD = "DejaVuSansMono-Bold"

_FILES = {
    SANS: "DejaVuSans.ttf",
    SANS_BOLD: "DejaVuSans-Bold.ttf",
    MONO: "DejaVuSansMono.ttf",
    MONO_BOLD: "DejaVuSansMono-Bold.ttf",
}


@cache
def register_fonts() -> None:
    """Register the fonts with ReportLab once per process (parsing a TTF costs tens of milliseconds)."""
    for name, filename in _FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / filename)))
    addMapping(SANS, 0, 0, SANS)
    addMapping(SANS, 1, 0, SANS_BOLD)
    addMapping(SANS, 0, 1, SANS)
    addMapping(SANS, 1, 1, SANS_BOLD)
    addMapping(MONO, 0, 0, MONO)
    addMapping(MONO, 1, 0, MONO_BOLD)
    addMapping(MONO, 0, 1, MONO)
    addMapping(MONO, 1, 1, MONO_BOLD)


# Bidirectional classes of the right-to-left letters and of the Arabic digits.
RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})
NO_SPELLING = "?"


@cache
def glyphs(font: str) -> frozenset[int]:
    """The code points ``font`` has a glyph for (its cmap); any other one would be drawn as glyph 0, a box."""
    register_fonts()
    return frozenset(pdfmetrics.getFont(font).face.charToGlyph)


def _spelled(ch: str) -> str:
    spelled = transliterate(ch)
    if spelled or unicodedata.combining(ch) or unicodedata.category(ch) == "Cf":
        return spelled
    return NO_SPELLING


def printable(text: str, font: str = SANS) -> str:
    """``text`` as ``font`` draws it readably: characters it has no glyph for and right-to-left letters are
    transliterated to ASCII (a combining mark follows its letter); everything else is kept."""
    drawable = glyphs(font)
    out, spelling = [], False
    for ch in text:
        if unicodedata.combining(ch):
            keep = not spelling and ord(ch) in drawable
        else:
            keep = ord(ch) in drawable and unicodedata.bidirectional(ch) not in RIGHT_TO_LEFT
            spelling = not keep
        out.append(ch if keep else _spelled(ch))
    return "".join(out)


def fit(text: str, width: float, font: str, size: float) -> str:
    """``text`` made ``printable`` in ``font``, then shortened with an ellipsis so that it fits ``width``
    points (table cells never wrap)."""
    text = printable(text, font)
    if pdfmetrics.stringWidth(text, font, size) <= width:
        return text
    ellipsis = "…"
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if pdfmetrics.stringWidth(text[:middle] + ellipsis, font, size) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ellipsis
