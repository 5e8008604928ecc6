"""A tournament's settings edited, a game deleted, archived or brought back, a tournament deleted
(services/lifecycle.py). Deleting asks first: a page says what goes, its button deletes."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.web.forms import TournamentForm

from . import queries
from .access import attach_service_error, head_required, report_error, tournament_head_required

SETTINGS = ("name", "lexicon", "tileset", "ruleset", "variant", "timing", "round_seconds", "coordinates", "language")


@tournament_head_required
@require_http_methods(["GET", "POST"])
def tournament_edit(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = queries.tournament(tournament_id)
    started = services.tournament_started(tournament)
    only = services.CHANGEABLE_AFTER_START if started else None
    status = 200
    if request.method == "POST":
        form = TournamentForm(request.POST, lexicons=queries.lexicon_names(), only=only)
        if form.is_valid():
            try:
                tournament = services.tournament_update(tournament=tournament, changes=form.cleaned_data,
                                                        actor=request.user)
            except ServiceError as error:
                attach_service_error(form, error)
                status = error.status
            else:
                messages.success(request, _("Tournament “%(name)s” saved.") % {"name": tournament.name})
                return redirect("console-tournament", tournament_id=tournament.pk)
        else:
            status = 400
    else:
        form = TournamentForm(initial={name: getattr(tournament, name) for name in SETTINGS},
                              lexicons=queries.lexicon_names(), only=only)
    return render(request, "console/tournament_edit.html", {
        "section": "tournaments",
        "tournament": tournament,
        "form": form,
        "started": started,
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")),
                        (tournament.name, reverse("console-tournament", args=[tournament.pk])),
                        (_("Settings"), None)],
    }, status=status)


@tournament_head_required
@require_http_methods(["GET", "POST"])
def tournament_delete(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = queries.tournament(tournament_id)
    back = reverse("console-tournament", args=[tournament.pk])
    if request.method == "POST":
        try:
            services.tournament_delete(tournament=tournament, actor=request.user)
        except ServiceError as error:
            report_error(request, error)
            return redirect(back)
        messages.success(request, _("Tournament “%(name)s” deleted.") % {"name": tournament.name})
        return redirect("console-home")
    games = list(queries.games_of(tournament))
    return render(request, "console/delete.html", {
        "section": "tournaments",
        "title": _("Delete the tournament “%(name)s”?") % {"name": tournament.name},
        "what": _("The tournament and its %(count)s games, none of them started, are deleted for good.")
        % {"count": len(games)},
        "deletable": all(services.game_deletable(game) for game in games),
        "refusal": _("A game of this tournament has entries in its log: archive its games instead."),
        "back": back,
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")), (tournament.name, back), (_("Delete"), None)],
    })


@head_required
@require_http_methods(["GET", "POST"])
def game_delete(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    back = reverse("console-tournament", args=[game.tournament_id])
    if request.method == "POST":
        try:
            services.game_delete(game=game, actor=request.user)
        except ServiceError as error:
            report_error(request, error)
            return redirect(back)
        messages.success(request, _("Game %(number)s deleted.") % {"number": game.number})
        return redirect(back)
    return render(request, "console/delete.html", {
        "section": "tournaments",
        "title": _("Delete game %(number)s of “%(name)s”?") % {"number": game.number, "name": game.tournament.name},
        "what": _("The game was never started: nobody joined it and no rack was drawn. It is deleted for good."),
        "deletable": services.game_deletable(game),
        "refusal": _("This game has entries in its log (players, rounds or roles): it cannot be deleted. "
                     "Archive it instead: it leaves the list of games in play."),
        "back": back,
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")), (game.tournament.name, back),
                        (_("Delete"), None)],
    })


@head_required
@require_POST
def game_archive(request: HttpRequest, game_id: int) -> HttpResponse:
    """``archived=1`` archives the game, ``archived=0`` brings it back."""
    game = queries.game(game_id)
    archived = request.POST.get("archived") != "0"
    try:
        services.game_archive(game=game, archived=archived, actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        text = _("Game %(number)s archived: it is no longer listed among the games in play.") if archived else \
            _("Game %(number)s brought back from the archive.")
        messages.success(request, text % {"number": game.number})
    return redirect("console-tournament", tournament_id=game.tournament_id)
