"""Tournaments and their games: the console's home, a tournament's page, importing a word list."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournaments import selectors, services
from tournaments.errors import ServiceError
from tournaments.relay import relay_address
from tournaments.web.forms import GameForm, LexiconImportForm, TournamentForm

from . import queries
from .access import (
    attach_service_error,
    report_error,
    report_form_errors,
    staff_required,
    tournament_arbitrator_required,
    tournament_head_required,
)
from .texts import game_status_text


def _home(request: HttpRequest, form: TournamentForm, status: int = 200) -> HttpResponse:
    return render(
        request,
        "console/home.html",
        {"section": "tournaments", "tournaments": queries.tournaments(), "form": form},
        status=status,
    )


@staff_required
def home(request: HttpRequest) -> HttpResponse:
    return _home(request, TournamentForm(lexicons=queries.lexicon_names()))


@staff_required
@require_POST
def tournament_create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST, lexicons=queries.lexicon_names())
    if not form.is_valid():
        return _home(request, form, status=400)
    try:
        tournament = services.tournament_create(created_by=request.user, **form.cleaned_data)
    except ServiceError as error:
        attach_service_error(form, error)
        return _home(request, form, status=error.status)
    messages.success(request, _("Tournament “%(name)s” created.") % {"name": tournament.name})
    return redirect("console-tournament", tournament_id=tournament.pk)


@tournament_arbitrator_required
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = queries.tournament(tournament_id)
    games = list(queries.games_of(tournament))
    for game in games:
        game.status_text = game_status_text(game.status)
        game.deletable = services.game_deletable(game)
    standings = selectors.tournament_standings(tournament=tournament) if len(games) > 1 else None
    return render(request, "console/tournament.html", {
        "section": "tournaments",
        "tournament": tournament,
        "relay_configured": relay_address() is not None,  # this centre has an organiser: it may follow its game
        "games": games,
        "game_form": GameForm(),
        # A tournament none of whose games has a log can be deleted with them (services/lifecycle.py).
        "deletable": all(game.deletable for game in games),
        "standings": standings,
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")), (tournament.name, None)],
    })


@tournament_head_required
@require_POST
def game_create(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = queries.tournament(tournament_id)
    form = GameForm(request.POST)
    if not form.is_valid():
        report_form_errors(request, form)
        return redirect("console-tournament", tournament_id=tournament.pk)
    try:
        game = services.game_create(tournament=tournament, seed=form.cleaned_data["seed"], actor=request.user)
    except ServiceError as error:
        report_error(request, error)
        return redirect("console-tournament", tournament_id=tournament.pk)
    messages.success(request, _("Game %(number)s created: join code %(code)s.") % {
        "number": game.number, "code": game.join_code})
    return redirect("console-players", game_id=game.pk)


@staff_required
@require_http_methods(["GET", "POST"])
def lexicon_import(request: HttpRequest) -> HttpResponse:
    context = {"section": "lexicons", "lexicons": queries.imported_lexicons(), "result": None}
    status = 200
    if request.method == "POST":
        form = LexiconImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                lexicon, rejected = services.lexicon_import(
                    name=form.cleaned_data["name"], words=form.words(), tileset=form.cleaned_data["tileset"]
                )
            except ServiceError as error:
                attach_service_error(form, error)
                status = error.status
            else:
                context["result"] = {"lexicon": lexicon, "rejected": rejected}
                form = LexiconImportForm(initial={"tileset": form.cleaned_data["tileset"]})
        else:
            status = 400
    else:
        form = LexiconImportForm()
    context["form"] = form
    return render(request, "console/lexicon_import.html", context, status=status)
