"""The paper-slip page's verdicts: the slips typed by arbitrators in a round, newest first, with what each was
paid once the round is closed; the word as typed from paper (``?`` before a blank's letter); the mark that a
round's paper slips are all entered; a player's table changed."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from engine.notation import WordError, parse_marked_word
from tournaments import selectors, services
from tournaments.errors import NotFound, ServiceError, input_refused
from tournaments.models import Game, Player, Result, Round, Slip
from tournaments.web.views import _labels_config, reason_text, reason_texts

from . import queries
from .access import arbitrator_required, refused, report_error
from .texts import canonical_ref, outcome_text, round_status_text


def typed_word(game: Game, text: str) -> str:
    """The word of a paper slip as the arbitrator typed it (``SA?LAD``), in the slips' notation (``SAlAD``).
    Case never makes a blank here; a ``?`` before the letter does. Refused as the services refuse a word."""
    try:
        return parse_marked_word(text, game.tournament.tiles)
    except WordError as error:
        raise input_refused(error, "word", params={"word": str(text or "").strip()}) from None


def entry_row(slip: Slip, result: Result | None, labelling: str, reasons: dict | None = None) -> dict:
    """One slip of the page's list: what was typed, and its verdict once judged."""
    reasons = reasons if reasons is not None else reason_texts()
    row = {
        "slip": slip.pk,
        "table": slip.player.table,
        "name": slip.player.name,
        "word": slip.word,
        "ref": canonical_ref(slip.ref, labelling),
        "claimed": slip.claimed,
        "current": slip.current,
        "several": slip.several,
        "paid": None, "outcome": None, "outcome_text": "", "reason": None, "reason_text": "",
    }
    if result is not None:
        row.update(paid=result.paid, outcome=result.outcome, outcome_text=outcome_text(result.outcome),
                   reason=result.reason,
                   reason_text=reason_text(result.reason, slip.word, result.placement, result.message, reasons))
    return row


def entered_rows(round: Round) -> list[dict]:
    """Every slip an arbitrator typed in the round (those replaced since too), newest first."""
    labelling = round.game.tournament.coordinates
    slips = list(Slip.objects.filter(round=round, entered_by__isnull=False).select_related("player")
                 .order_by("-id"))
    results = {}
    if round.status == Round.Status.CLOSED:
        results = {r.slip_id: r for r in Result.objects.filter(round=round, slip__in=[s.pk for s in slips])}
    reasons = reason_texts()
    return [entry_row(slip, results.get(slip.pk), labelling, reasons) for slip in slips]


def tables_of(game: Game) -> dict[str, str]:
    """Table number -> the name of who sits there (for the page's check while typing)."""
    tables: dict[str, str] = {}
    for table, name in Player.objects.in_game(game).filter(table__isnull=False).values_list("table", "name"):
        tables[str(table)] = tables[str(table)] + " / " + name if str(table) in tables else name
    return tables


def page_state(game: Game, round: Round | None) -> dict:
    """What the page's script checks and shows: the rack and board the slips are played on, who sits where,
    the entered slips with their verdicts, and whether the round's slips are complete."""
    if round is None:
        return {"round": None, "status": None, "rows": [], "tables": tables_of(game), **_labels_config(game)}
    return {
        "round": round.number,
        "status": round.status,
        "status_text": round_status_text(round.status, round.cancel_reason),
        "rack": round.rack,
        "board": list(round.board),
        "labelling": game.tournament.coordinates,
        "tables": tables_of(game),
        "rows": entered_rows(round),
        "slips_complete": round.slips_complete,
        "provisional": selectors.standings_provisional(game),
        **_labels_config(game),  # a set with tiles of several letters: their labels and keys
    }


@arbitrator_required
@require_GET
def entered(request: HttpRequest, game_id: int) -> JsonResponse:
    """The page's list again (after a close, a correction, an arrival): JSON."""
    game = queries.game(game_id)
    return JsonResponse(page_state(game, selectors.current_round(game)))


def _back(request: HttpRequest, fallback: str, **kwargs) -> HttpResponse:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect(fallback, **kwargs)


@arbitrator_required
@require_POST
def slips_complete(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    """Every paper slip of the closed round is entered: its standings are final."""
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    try:
        services.round_slips_complete(round=round, actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        messages.success(request, _("Round %(number)s: every paper slip is entered; the standings are final.") % {
            "number": round.number})
    return _back(request, "console-slips", game_id=game.pk)


@arbitrator_required
@require_POST
def player_table(request: HttpRequest, game_id: int, player_id: int) -> HttpResponse:
    """The arbitrator seats a player at another table (empty: no table)."""
    game = queries.game(game_id)
    player = queries.player_of(game, player_id)
    text = request.POST.get("table", "").strip()
    try:
        if text and not text.isdigit():
            raise ServiceError("bad_table", fields={"table": ["not a number"]},
                               params={"table": text, "why": "not_a_number"})
        changed = services.player_table_change(game=game, player=player, table=int(text) if text else None,
                                               actor=request.user)
    except NotFound as error:  # the table is changed through the player's own game only
        return refused(request, game.pk, error)
    except ServiceError as error:
        report_error(request, error)
    else:
        if changed.table:
            messages.success(request, _("%(name)s now sits at table %(table)s.") % {
                "name": changed.name, "table": changed.table})
        else:
            messages.success(request, _("%(name)s has no table now.") % {"name": changed.name})
    return _back(request, "console-player", game_id=game.pk, player_id=player.pk)
