"""What happened: the rounds of a game, one round's tops and results (with corrections), the standings."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from tournaments import selectors
from tournaments.models import Round
from tournaments.topping_selectors import is_topping
from tournaments.web.forms import CorrectionForm
from tournaments.web.views import board_context, reason_text, reason_texts

from . import queries
from .access import arbitrator_required
from .texts import canonical_ref, game_breadcrumbs, log_reason_text, outcome_text, round_status_text


@arbitrator_required
def rounds_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    record = selectors.game_record(game=game)
    for row in record["rounds"]:
        row["status_text"] = round_status_text(row["status"], row.get("cancel_reason") or "")
    return render(request, "console/rounds.html", {
        "section": "tournaments", "tab": "rounds", "game": game, "record": record,
        "breadcrumbs": game_breadcrumbs(game, (_("Rounds"), None)),
    })


@arbitrator_required
def round_page(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    detail = selectors.round_detail(round=round, arbitrator=True)
    closed = round.status == Round.Status.CLOSED
    slips = queries.current_slips(round) if closed else {}
    reasons = reason_texts()
    results = []
    for row in detail["results"] or []:
        slip = slips.get(row["player"])
        results.append({
            **row,
            "ref": canonical_ref(row["ref"], game.tournament.coordinates),
            "slip_id": slip.pk if slip else None,
            # A slip the arbitrator added for a player who had none (services.slip_add keys it "added:").
            "added": slip is not None and slip.key.startswith("added:"),
            "outcome_text": outcome_text(row["outcome"]),
            "reason_text": reason_text(row["reason"], row["word"], row["placement"], row["message"], reasons),
        })
    results.sort(key=lambda r: (-r["paid"], r["table"] or 0, r["name"]))
    master = detail["master"] or {}
    tops = [{**top, "is_master": (top["word"], top["ref"]) == (master.get("word"), master.get("ref"))}
            for top in detail["tops"] or []]
    later = game.rounds.counting().filter(number__gt=round.number)
    is_last = not later.exists()
    return render(request, "console/round.html", {
        "section": "tournaments", "tab": "rounds", "game": game, "round": round, "detail": detail,
        "round_status_text": round_status_text(round.status, round.cancel_reason),
        "results": results, "tops": tops, "can_choose_master": closed and is_last and len(tops) > 1, "has_next": not is_last,
        "log": _with_reason_texts(queries.corrections(round)),
        "correction_form": CorrectionForm(),
        "board": board_context(detail["board"], game.tournament.coordinates, tiles=game.tournament.tiles),
        "breadcrumbs": game_breadcrumbs(game, (_("Rounds"), reverse("console-rounds", args=[game.pk])),
                                        (_("Round %(number)s") % {"number": number}, None)),
    })


def _with_reason_texts(entries: list) -> list:
    for entry in entries:
        entry.reason_text = log_reason_text(entry.reason)
    return entries


@arbitrator_required
def standings_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    return render(request, "console/standings.html", {
        "section": "tournaments", "tab": "standings", "game": game,
        "rows": selectors.game_standings(game=game),
        "topping": is_topping(game.tournament),  # ranked by time: the time column first
        "paper_provisional": selectors.standings_provisional(game),
        "breadcrumbs": game_breadcrumbs(game, (_("Standings"), None)),
    })
