"""The console's control of training on a finished game: closed, open to everyone, or to club members."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournaments import services
from tournaments.errors import ServiceError

from . import queries
from .access import head_required, report_error


def training_choices() -> list[tuple[str, str]]:
    return [("closed", _("Closed")), ("everyone", _("Open to everyone")), ("members", _("Open to club members"))]


@head_required
@require_POST
def game_training(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    try:
        services.training_set(game=game, value=request.POST.get("open", ""), actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        shown = dict(training_choices())[game.training]
        messages.success(request, _("Training on this game: %(state)s.") % {"state": shown})
    return redirect("console-game", game_id=game.pk)
