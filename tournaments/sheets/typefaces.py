"""The TrueType fonts embedded in every sheet, shipped in ``fonts/`` so printing never depends on the host.

The PDF base fonts only cover Latin-1; a name like "Łukasz Żmuda" needs an embedded font.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

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


def fit(text: str, width: float, font: str, size: float) -> str:
    """``text`` shortened with an ellipsis so that it fits ``width`` points (table cells never wrap)."""
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
