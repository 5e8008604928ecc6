"""The reads made for a request or a page that close an overdue round on the way: the deadline is the truth,
whoever reads first after it closes the round. The read model (tournaments/live) only reads; the closing is
the services' (services.game_close_if_due), and this is where the two meet for the pages, the API and the
streams."""

from __future__ import annotations

from tournaments import services
from tournaments.live import snapshot as live
from tournaments.selectors import overdue
from tournaments.versions import bump


def close_if_due(game_id: int) -> bool:
    """Close the game's round if its deadline has passed (never waits for a close under way)."""
    return services.game_close_if_due(game_id=game_id)


def game_snapshot(game_id: int) -> dict | None:
    """The snapshot at the current version, a round whose deadline has passed closed first."""
    snapshot = live.game_snapshot(game_id)
    if snapshot is not None and overdue(snapshot) and close_if_due(game_id):
        bump(game_id)  # whatever the close's own notice (at its commit) did, this reader must not get the old one
        snapshot = live.game_snapshot(game_id)
    return snapshot


def live_body(game_id: int) -> dict | None:
    """The body of GET /api/games/{id}/live (live.live_body), a round whose deadline has passed closed first."""
    return live.live_body_of(game_id, game_snapshot(game_id))


def snapshot_closing_connections(game_id: int) -> dict | None:
    """game_snapshot for a thread outside any request: it closes the database connection it opened."""
    return live.closing_connections(game_snapshot, game_id)


def player_view(game_id: int, player_id: int) -> dict | None:
    """A player's own standing and last result (live.player_view), a round whose deadline has passed closed
    first."""
    game_snapshot(game_id)
    return live.player_view(game_id, player_id)
