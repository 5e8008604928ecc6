"""Cells of the files a spreadsheet may open (the standings CSV, the federation's results file).

A spreadsheet reads a cell that begins with ``=``, ``+``, ``-`` or ``@`` (or with a tab or a carriage
return) as a formula: a player named ``=HYPERLINK("http://…","c")`` would become a live link, and worse.
As OWASP advises against CSV injection, a text cell that begins so gets a single quote in front
(``'=HYPERLINK(…)``), which spreadsheets show as text, and every text cell is written in double quotes.

Only text is neutralised (names, series, any free text): numbers are written as numbers, so a difference
from the top of -12 stays the number -12.

The check reads the text as a spreadsheet, or a later transliteration, may read it: a full-width ``＝``
(U+FF1D), ``＋``, ``－`` or ``＠``, and the other compatibility forms that fold to a formula's first
character (NFKC), count as that character. A file that transliterates (the federation's Latin-1 file, where
``＝5+5`` becomes ``=5+5``) neutralises what it writes, after the transliteration.
"""

from __future__ import annotations

import unicodedata

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value) -> str:
    """``value`` as the text of a cell that no spreadsheet takes for a formula ('' for None)."""
    text = "" if value is None else str(value)
    return "'" + text if takes_for_formula(text) else text


def takes_for_formula(text: str) -> bool:
    """Whether ``text`` begins as a formula does, its first character read in its compatibility form too."""
    return text.startswith(FORMULA_STARTS) or unicodedata.normalize("NFKC", text[:1]).startswith(FORMULA_STARTS)
