"""How the game's data is written out, the same everywhere (API answers, live feed, console, records)."""

from __future__ import annotations


def iso(moment) -> str | None:
    """A time as ISO 8601 text (``+00:00``), None for no time."""
    return moment.isoformat() if moment is not None else None


def brief(play: dict | None) -> dict | None:
    """A stored play (a top, the master) as its word, reference and score."""
    return None if play is None else {"word": play["word"], "ref": play["ref"], "score": play["score"]}
