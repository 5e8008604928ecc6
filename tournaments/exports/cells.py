"""Cells of the files a spreadsheet may open (the standings CSV, the federation's results file).

A spreadsheet reads a cell that begins with ``=``, ``+``, ``-`` or ``@`` (or with a tab or a carriage
return) as a formula: a player named ``=HYPERLINK("http://…","c")`` would become a live link, and worse.
As OWASP advises against CSV injection, a text cell that begins so gets a single quote in front
(``'=HYPERLINK(…)``), which spreadsheets show as text, and every text cell is written in double quotes.

Only text is neutralised (names, series, any free text): numbers are written as numbers, so a difference
from the top of -12 stays the number -12.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value) -> str:
    """``value`` as the text of a cell that no spreadsheet takes for a formula ('' for None)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
