"""The standings as CSV (UTF-8, comma separated, one header line), for spreadsheets and club software."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

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
)


def standings_csv(rows: Iterable[dict]) -> str:
    """``rows`` as the standings selectors return them, best first; ``diff`` is negative below the top."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(
            [
                row["rank"],
                row.get("series_rank", ""),
                row["name"],
                "" if row.get("table") is None else row["table"],
                row.get("series") or "",
                row["total"],
                row["diff"],
                f"{row['percent']:.2f}",
                row["tops"],
                row["solos"],
                row["warnings"],
                row["penalties"],
            ]
        )
    return out.getvalue()
