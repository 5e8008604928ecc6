"""A player's sealed receipt checked on the console, in a dispute: the player's phone shows the receipt
(its "sealed by the server" line opens the whole text), the arbitrator pastes it here and reads whether the
server sealed it, unaltered, and whether the slip it names is on record as it says (tournaments/receipts.py,
the same check as ``POST /api/games/{id}/receipts/check``)."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from tournaments.receipts import receipt_check

from . import queries
from .access import arbitrator_required

MAX_RECEIPT_CHARACTERS = 4000


@arbitrator_required
@require_http_methods(["GET", "POST"])
def receipt_page(request: HttpRequest, game_id: int) -> HttpResponse:
    from .texts import game_breadcrumbs

    game = queries.game(game_id)
    text = request.POST.get("receipt", "")[:MAX_RECEIPT_CHARACTERS] if request.method == "POST" else ""
    verdict, unreadable = None, False
    if text.strip():
        try:
            verdict = receipt_check(game=game, receipt=json.loads(text))
        except (ValueError, RecursionError):
            unreadable = True
    return render(request, "console/receipt.html", {
        "section": "tournaments", "tab": "receipt", "game": game, "text": text, "verdict": verdict,
        "unreadable": unreadable, "breadcrumbs": game_breadcrumbs(game, (_("Check a receipt"), None)),
    })
