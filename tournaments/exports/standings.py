"""The standings as CSV (UTF-8, comma separated, one header line), for spreadsheets and club software.

Text cells (the header, names, series, the federation's identity: licence, club, category, date of birth) are written in double quotes and neutralised against formulas
(``cells.text_cell``); numbers are written bare, as numbers (``diff`` is negative below the top).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from decimal import Decimal

from .cells import text_cell

COLUMNS = (
    "rank",
    "series_rank",
    "name",
    "table",
    "series",
    "total",
    "diff",
    "percent",
    "tops",
    "solos",
    "warnings",
    "penalties",
    # The federation's identity, after the columns of before (a spreadsheet reading them by place still can).
    "licence",
    "club",
    "category",
    "birth_date",
)
# Topping (docs/rules.md 7.5): the total time in seconds, by which the rows are ranked, after the columns of
# every game; a classic game's file has no such column.
TIMED_COLUMNS = ("seconds",)


def _number(value) -> int | str:
    """A whole number as a number cell, an absent one as an empty cell."""
    return "" if value is None or value == "" else int(value)


def standings_csv(rows: Iterable[dict]) -> str:
    """``rows`` as the standings selectors return them, best first; ``diff`` is negative below the top."""
    rows = list(rows)
    timed = any("seconds" in row for row in rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow([text_cell(title) for title in COLUMNS + (TIMED_COLUMNS if timed else ())])
    for row in rows:
        writer.writerow(
            [
                _number(row["rank"]),
                _number(row.get("series_rank")),
                text_cell(row["name"]),
                _number(row.get("table")),
                text_cell(row.get("series") or ""),
                _number(row["total"]),
                _number(row["diff"]),
                Decimal(f"{row['percent']:.2f}"),
                _number(row["tops"]),
                _number(row["solos"]),
                _number(row["warnings"]),
                _number(row["penalties"]),
                text_cell(row.get("licence") or ""),
                text_cell(row.get("club") or ""),
                text_cell(row.get("category") or ""),
                text_cell(row.get("birth_date") or ""),
                *([_number(row.get("seconds"))] if timed else []),
            ]
        )
    return out.getvalue()
