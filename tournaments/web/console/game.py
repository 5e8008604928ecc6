"""A game's control screen: the board, the round in play, the clock, the slips coming in, tops and master."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from tournaments import relay, selectors, services, versions
from tournaments.errors import ServiceError
from tournaments.models import Game, GamePack, Round
from tournaments.services import refuse_if_paused
from tournaments.web.forms import DrawForm, MasterForm
from tournaments.web.views import board_context

from . import queries
from .access import (
    arbitrator_required,
    head_required,
    report_error,
    report_form_errors,
    tournament_head_required,
)
from .incidents import incident_context
from .texts import game_breadcrumbs, game_status_text, round_status_text


def panel_context(game: Game) -> dict:
    """What the live part of the game screen shows; rebuilt on every change of the game."""
    state = selectors.game_state(game=game)
    round = selectors.current_round(game)
    detail = selectors.round_detail(round=round, arbitrator=True) if round is not None else None
    status = round.status if round is not None else None
    in_play = status in (Round.Status.DRAWN, Round.Status.OPEN)
    is_last = round is not None and not game.rounds.filter(number__gt=round.number).exists()
    tops = []
    if detail and detail["tops"]:
        master = detail["master"] or {}
        for top in detail["tops"]:
            tops.append({**top, "is_master": (top["word"], top["ref"]) == (master.get("word"), master.get("ref"))})
    pack = GamePack.objects.filter(game_id=game.pk).only("unlocked_at").first()
    outcomes = {}
    for row in (detail or {}).get("results") or []:
        outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
    return {
        "game": game,
        "state": state,
        "round": round,
        "detail": detail,
        "round_status_text": round_status_text(status, round.cancel_reason if round is not None else ""),
        "game_status_text": game_status_text(game.status),
        "kept_tiles": list(round.kept) if round else [],
        "drawn_tiles": list(round.drawn) if round else [],
        "progress": detail["progress"] if detail else None,
        "tops": tops,
        "can_choose_master": status == Round.Status.CLOSED and is_last and len(tops) > 1 and pack is None,
        "pack": pack,  # a game played from a sealed pack: its racks and masters are the pack's
        "pack_locked": pack is not None and pack.unlocked_at is None,
        "outcomes": outcomes,
        "can_draw": game.status != Game.Status.OVER and not in_play,
        "can_start": status == Round.Status.DRAWN,
        "can_close": status == Round.Status.OPEN,
        "can_end": game.status == Game.Status.PLAYING and not in_play,
        "board": board_context(state["board"], game.tournament.coordinates, tiles=game.tournament.tiles),
        "draw_form": DrawForm(tiles=game.tournament.tiles),  # the help names the set's aliases
        "pending_rejected": list(game.pending_rejected),
        "relay": relay.console_state(game),  # a game following the organiser's (a multiplex): its link
    }


@arbitrator_required
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    drawn = versions.drawn_mark(game.pk)
    context = panel_context(game)
    context.update(incident_context(game, context, request.user))  # pause, roles, the round cancelled last
    context.update({"drawn_mark": drawn, "section": "tournaments", "tab": "round", "breadcrumbs": game_breadcrumbs(game),
                    "refused_rack": request.GET.get("rack", "")[:16],
                    "rejectable": request.GET.get("rejectable") == "1"})
    return render(request, "console/game.html", context)


@never_cache
@arbitrator_required
def game_panel(request: HttpRequest, game_id: int) -> HttpResponse:
    """The live part of the game screen alone, fetched again by console.js when the game changes."""
    game = queries.game(game_id)
    context = panel_context(game)
    context.update(incident_context(game, context, request.user))
    return render(request, "console/_live.html", context)


@head_required
@require_POST
def round_draw(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    form = DrawForm(request.POST)
    if not form.is_valid():
        report_form_errors(request, form)
        return redirect("console-game", game_id=game.pk)
    rack = form.cleaned_data["rack"]
    after_rejection = bool(request.POST.get("after_rejection"))
    try:
        round = services.round_draw(game=game, rack=rack, actor=request.user, after_rejection=after_rejection)
    except ServiceError as error:
        if rack:
            report_error(request, error, prefix=_("Rack %(rack)s refused:") % {"rack": rack})
            # Back to the form with the rack as typed, to be fixed rather than typed again; a rack that only
            # fails the vowel/consonant rule may be a real draw, to be recorded as rejected.
            query = {"rack": rack}
            if error.code in ("too_few_vowels", "too_few_consonants"):
                query["rejectable"] = "1"
            return redirect(reverse("console-game", args=[game.pk]) + "?" + urlencode(query))
        report_error(request, error)
        return redirect("console-game", game_id=game.pk)
    messages.success(request, _("Round %(number)s: rack %(rack)s.") % {"number": round.number, "rack": round.rack})
    if round.rejected:
        messages.warning(request, _("Rejected draws (every letter back into the bag): %(draws)s") % {
            "draws": " ".join(round.rejected)})
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def round_start(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    try:
        services.round_start(round=round, actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        messages.success(request, _("Round %(number)s started.") % {"number": number})
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def round_close(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    try:
        refuse_if_paused(round)  # a paused round never closes: resume it first
        closed = services.round_close(round=round, actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        if closed:
            messages.success(request, _("Round %(number)s closed.") % {"number": number})
        else:
            messages.info(request, _("Round %(number)s was already closed.") % {"number": number})
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def round_master(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    form = MasterForm(request.POST)
    if not form.is_valid():
        report_form_errors(request, form)
    else:
        try:
            services.round_choose_master(round=round, actor=request.user, **form.cleaned_data)
        except ServiceError as error:
            report_error(request, error)
        else:
            messages.success(request, _("Master move of round %(number)s: %(word)s %(ref)s.") % {
                "number": number, **form.cleaned_data})
    if request.POST.get("next") == "round":
        return redirect("console-round", game_id=game.pk, number=number)
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def game_end(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    try:
        services.game_end(game=game, actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        messages.success(request, _("The game is over: the standings are final."))
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def rack_reject(request: HttpRequest, game_id: int) -> HttpResponse:
    """A physical draw that fails the vowel/consonant rule: recorded as rejected, every letter back in the bag."""
    game = queries.game(game_id)
    rack = request.POST.get("rack", "")
    try:
        rejected = services.rack_reject(game=game, rack=rack, actor=request.user)
    except ServiceError as error:
        report_error(request, error, prefix=_("Rack %(rack)s not recorded as rejected:") % {"rack": rack})
    else:
        messages.warning(request, _("Rejected draw recorded: %(draw)s. Every letter is back in the bag: draw 7 new "
                                    "letters and type them.") % {"draw": rejected[-1]})
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def relay_auto_start(request: HttpRequest, game_id: int) -> HttpResponse:
    """The multiplex's "start the clock when the rack arrives", on or off."""
    game = queries.game(game_id)
    try:
        relay.set_auto_start(game=game, auto_start=request.POST.get("auto_start") == "1", actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    return redirect("console-game", game_id=game.pk)


@tournament_head_required
@require_POST
def relay_follow(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A new game of the tournament following the organiser's live game (a multiplex)."""
    tournament = queries.tournament(tournament_id)
    try:
        game = relay.follow(tournament=tournament, actor=request.user, auto_start=request.POST.get("auto_start") == "1")
    except ServiceError as error:
        report_error(request, error)
        return redirect("console-tournament", tournament_id=tournament.pk)
    messages.success(request, _("Game %(number)s follows the organiser's game %(game)s: each rack arrives when the "
                                "organiser starts its round.") % {"number": game.number,
                                                                 "game": game.relay_link.event_game})
    return redirect("console-game", game_id=game.pk)
