"""The centre's results file of a game played from a sealed pack, at the console (tournaments/centre_results.py):
its versions with their push to the organiser (acknowledged, pending, refused with the organiser's words, or
given up), the latest downloaded for the offline path (a USB key, an e-mail), and a push tried again."""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments import centre_results
from tournaments.limits import RESULTS_VERSIONS_SHOWN
from tournaments.models import CentreResults, GamePack

from . import queries
from .access import arbitrator_required, head_required
from .texts import game_breadcrumbs


def _sealed_game(game_id: int):
    game = queries.game(game_id)
    if not GamePack.objects.filter(game_id=game.pk).exists():
        raise Http404
    return game


@arbitrator_required
@require_GET
def results_file_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _sealed_game(game_id)
    versions = list(CentreResults.objects.filter(game=game).order_by("-sequence")[:RESULTS_VERSIONS_SHOWN])
    return render(request, "console/results_file.html", {
        "section": "tournaments", "tab": "results_file", "game": game, "versions": versions,
        "organiser": centre_results.organiser_address(), "centre": centre_results.centre_identity(),
        "breadcrumbs": game_breadcrumbs(game, (_("Results file"), None)),
    })


def _file_name(game, version: CentreResults) -> str:
    pack = GamePack.objects.get(game_id=game.pk)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{pack.event}-{pack.pack_game}-{centre_results.centre_identity()['id']}")
    return f"results-{stem.strip('-')[:120]}-v{version.sequence}.json"


@arbitrator_required
@require_GET
def results_file_download(request: HttpRequest, game_id: int) -> HttpResponse:
    """The latest version (a new one kept first when the results changed): the file the organiser imports."""
    game = _sealed_game(game_id)
    version = centre_results.keep_results(game)
    response = HttpResponse(version.text, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{_file_name(game, version)}"'
    return response


@head_required
@require_POST
def results_file_push(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _sealed_game(game_id)
    version = centre_results.push_again(game)
    if version is None:
        messages.error(request, _("No organiser's address is set: download the file and send it."))
    else:
        messages.success(request, _("Version %(sequence)s is being pushed to the organiser.")
                         % {"sequence": version.sequence})
    return redirect("console-results-file", game_id=game.pk)
