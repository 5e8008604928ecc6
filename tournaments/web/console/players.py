"""Players of a game: registering them (one by one or a list), the join code and its QR code for phones."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import segno
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from arbiter.places import lan_command
from tournaments import selectors, services
from tournaments.errors import ServiceError
from tournaments.limits import LICENSEES_BYTES_MAX, LICENSEES_ERRORS_SHOWN
from tournaments.refusals import error_text, refusal_text
from tournaments.scoping import player_game
from tournaments.services import HEAD, role_of
from tournaments.web.forms import LicenseesForm, PlayerForm, PlayerListForm
from tournaments.web.views import public_url

from . import queries
from .access import arbitrator_required, attach_service_error, head_required, refused
from .texts import canonical_ref, game_breadcrumbs, outcome_text

LIST_LINE = re.compile(r"^\s*(?:(\d+)\s*[,;:\t ]\s*)?(.+?)\s*$")


def join_url(request: HttpRequest, code: str) -> str:
    """The join link of the console's QR code: the address phones reach (PUBLIC_URL when set)."""
    return public_url(request, reverse("join-code", args=[code]))


def only_this_machine(url: str) -> bool:
    """True when ``url`` names this computer (127.x, localhost, ::1), so that no phone can open it, and the
    address was not given as PUBLIC_URL (given, it is trusted)."""
    if settings.ARBITER_PUBLIC_URL:
        return False
    host = (urlsplit(url).hostname or "").lower()
    return host == "localhost" or host.endswith(".localhost") or host.startswith("127.") or host == "::1"


def _players_page(request, game, *, form=None, list_form=None, licensees_form=None, licensees_refused=None,
                  status=200) -> HttpResponse:
    url = join_url(request, game.join_code)
    if form is None:
        form = PlayerForm()
        if request.GET.get("added"):
            # Registering one player after another: the cursor waits in the name field.
            form.fields["name"].widget.attrs["autofocus"] = True
    return render(request, "console/players.html", {
        "section": "tournaments",
        "tab": "players",
        "game": game,
        "players": queries.players_of(game),
        "form": form,
        "list_form": list_form or PlayerListForm(),
        "licensees_form": licensees_form or LicenseesForm(),
        "licensees_refused": licensees_refused,
        "join_url": url,
        "join_url_local": only_this_machine(url),
        "lan_command": lan_command(),
        "join_qr": segno.make(url, error="m").svg_inline(scale=5, omitsize=True, title=_("QR code to join")),
        "projector_url": public_url(request, reverse("projector", args=[game.screen_key])),
        "is_head": role_of(game.pk, request.user) == HEAD,  # a new projector link is the head's
        "breadcrumbs": game_breadcrumbs(game, (_("Players"), None)),
    }, status=status)


@arbitrator_required
def players_page(request: HttpRequest, game_id: int) -> HttpResponse:
    return _players_page(request, queries.game(game_id))


@head_required
@require_POST
def projector_link_renew(request: HttpRequest, game_id: int) -> HttpResponse:
    """A new projector link: the one that left the room answers 404 from now on."""
    game = queries.game(game_id)
    services.game_screen_key_renew(game=game, actor=request.user)
    messages.success(request, _("New projector link: open it on the projector; the earlier link no longer works."))
    return redirect("console-players", game_id=game.pk)


@arbitrator_required
@require_POST
def player_register(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    form = PlayerForm(request.POST)
    if not form.is_valid():
        return _players_page(request, game, form=form, status=400)
    try:
        player, _token = services.player_register(game=game, **form.cleaned_data, actor=request.user)
    except ServiceError as error:
        attach_service_error(form, error)
        return _players_page(request, game, form=form, status=error.status)
    if player.table:
        messages.success(request, _("%(name)s registered at table %(table)s.") % {
            "name": player.name, "table": player.table})
    else:
        messages.success(request, _("%(name)s registered.") % {"name": player.name})
    return redirect(reverse("console-players", args=[game.pk]) + "?added=1")


@arbitrator_required
@require_POST
def player_register_list(request: HttpRequest, game_id: int) -> HttpResponse:
    """Register several players at once: one per line, "table name" (the table may be left out)."""
    game = queries.game(game_id)
    form = PlayerListForm(request.POST)
    if not form.is_valid():
        return _players_page(request, game, list_form=form, status=400)
    registered, refused = 0, []
    for line in form.cleaned_data["lines"].splitlines():
        if not line.strip():
            continue
        match = LIST_LINE.match(line)
        table = int(match.group(1)) if match.group(1) else None
        try:
            services.player_register(game=game, name=match.group(2), table=table, actor=request.user)
        except ServiceError as error:
            refused.append(f"{line.strip()} — {error_text(error)}")
        else:
            registered += 1
    messages.success(request, _("%(count)s players registered.") % {"count": registered})
    for line in refused:
        messages.error(request, _("Not registered: %(line)s") % {"line": line})
    return redirect("console-players", game_id=game.pk)


@arbitrator_required
@require_POST
def licensees_import(request: HttpRequest, game_id: int) -> HttpResponse:
    """Register (or update) the players of a file of licensees: the whole file, or nothing with every bad row
    and its reason (tournaments/services/licensees.py)."""
    game = queries.game(game_id)
    form = LicenseesForm(request.POST, request.FILES)
    if not form.is_valid():
        return _players_page(request, game, licensees_form=form, status=400)
    upload = form.cleaned_data["file"]
    data = upload.read(LICENSEES_BYTES_MAX + 1)
    try:
        done = services.licensees_import(game=game, data=data, actor=request.user)
    except services.LicenseesRefused as error:
        rows = [refusal_text("licensee_row", {"row": number, "reason": error_text(row_error)})
                for number, row_error in error.rows]
        refused = {"summary": error_text(error), "rows": rows[:LICENSEES_ERRORS_SHOWN],
                   "more": max(0, len(rows) - LICENSEES_ERRORS_SHOWN)}
        return _players_page(request, game, licensees_form=form, licensees_refused=refused, status=400)
    except ServiceError as error:
        attach_service_error(form, error)
        return _players_page(request, game, licensees_form=form, status=error.status)
    messages.success(request, _("Licensees imported: %(registered)s registered, %(updated)s updated, "
                                "%(unchanged)s unchanged.") % {
        "registered": len(done.registered), "updated": len(done.updated), "unchanged": done.unchanged})
    return redirect("console-players", game_id=game.pk)


@arbitrator_required
def player_sheet(request: HttpRequest, game_id: int, player_id: int) -> HttpResponse:
    game = queries.game(game_id)
    return _player_page(request, game, queries.player_of(game, player_id))


def _player_page(request: HttpRequest, game, player, phone_url: str = "") -> HttpResponse:
    rows = selectors.player_rounds(game=game, player=player)
    own = player_game(player)
    for row in rows:
        row["outcome_text"] = outcome_text(row["outcome"])
        row["ref"] = canonical_ref(row["ref"], game.tournament.coordinates)
    return render(request, "console/player.html", {
        "section": "tournaments",
        "tab": "standings",
        "game": game,
        "player": player,
        "rows": rows,
        "phone_url": phone_url,
        "phone_url_local": bool(phone_url) and only_this_machine(phone_url),
        "lan_command": lan_command(),
        "is_head": role_of(game.pk, request.user) == HEAD,  # a new phone link (a new token) is the head's
        "own_game": own,  # the game whose pages change the player's link and table (tournaments/scoping.py)
        "phone_qr": segno.make(phone_url, error="m").svg_inline(scale=4, omitsize=True, title=_("QR code to play"))
        if phone_url else "",
        "breadcrumbs": game_breadcrumbs(game, (_("Standings"), reverse("console-standings", args=[game.pk])),
                                        (player.name, None)),
    })


@head_required
@require_POST
def player_phone_link(request: HttpRequest, game_id: int, player_id: int) -> HttpResponse:
    """A personal link (and QR code) that puts a registered player on a phone with a fresh token.

    The token travels in the URL's fragment, which browsers never send to the server or to logs.
    """
    game = queries.game(game_id)
    player = queries.player_of(game, player_id)
    try:
        token = services.player_token_reissue(game=game, player=player, actor=request.user)
    except ServiceError as error:  # the player's phone link is given through their own game only
        return refused(request, game.pk, error)
    url = public_url(request, reverse("phone", args=[game.pk])) + f"#token={token}"
    return _player_page(request, game, player, phone_url=url)
