"""A game's arbitration log as the console shows it: every entry's place in the chain, when, what, who and
why, and whether the chain still holds (selectors.log_check, the same walk as ``manage.py verifylog``).

The entries' before and after are left out: during a round they carry slips nobody sees before its close.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tournaments import selectors
from tournaments.models import LogEntry

from . import queries
from .access import arbitrator_required

SHOWN = 500  # the latest entries listed; the chain is checked whole


@arbitrator_required
def log_page(request: HttpRequest, game_id: int) -> HttpResponse:
    from .texts import game_breadcrumbs

    game = queries.game(game_id)
    check = selectors.log_check(game=game)
    entries = list(
        LogEntry.objects.filter(game=game).select_related("actor", "round", "player").order_by("-seq")[:SHOWN]
    )
    rows = [
        {
            "seq": entry.seq, "at": entry.at, "action": entry.action, "round": entry.round.number if entry.round else None,
            "player": entry.player.name if entry.player else "", "reason": entry.reason, "hash": entry.hash,
            "actor": entry.actor.get_username() if entry.actor else (entry.after or {}).get("by", ""),
        }
        for entry in entries
    ]
    return render(request, "console/log.html", {
        "section": "tournaments", "tab": "log", "game": game, "check": check, "rows": rows,
        "more": max(0, check.entries - len(rows)),
        "breadcrumbs": game_breadcrumbs(game, (_("Arbitration log"), None)),
    })
