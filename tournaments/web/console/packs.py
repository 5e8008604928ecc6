"""A centre's sealed pack at the console (tournaments/centre.py, docs/packs.md): imported from a file as a new
game of the tournament (an organiser not yet trusted is shown by its key's fingerprint, trusted once that
fingerprint, checked with the organiser by phone, is typed), then unlocked at the start with the key typed
or scanned. The pack's page shows its clear part only: never a rack before the draw."""

from __future__ import annotations

import logging

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tournaments import centre, packs
from tournaments.errors import Forbidden, ServiceError
from tournaments.event_models import Event
from tournaments.models import GameArbitrator, GamePack, TrustedOrganiserKey

from . import queries
from .access import (
    arbitrator_required,
    attach_service_error,
    head_required,
    refused,
    staff_required,
    tournament_head_required,
)
from .texts import game_breadcrumbs

MAX_PACK_BYTES = 256 * 1024  # a pack weighs about 23 kB

logger = logging.getLogger(__name__)


class PackImportForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Sealed pack (.pack.json)"))
    trust_fingerprint = forms.CharField(
        label=gettext_lazy("Organiser's fingerprint, checked by phone"), required=False, max_length=40,
        help_text=gettext_lazy("Only when the pack is refused as signed by a key this installation does not "
                               "trust: call the organiser, compare the fingerprint shown with theirs, and type "
                               "it here to trust the organiser from now on."))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_PACK_BYTES:
            raise forms.ValidationError(_("The file is too large for a pack."))
        return upload


class PackUnlockForm(forms.Form):
    key = forms.CharField(label=gettext_lazy("Key (typed, or the text its QR code scans to)"), max_length=200,
                          widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}))


@tournament_head_required
@require_http_methods(["GET", "POST"])
def pack_import(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = queries.tournament(tournament_id)
    status, fingerprint = 200, ""
    form = PackImportForm()
    if request.method == "POST":
        form = PackImportForm(request.POST, request.FILES)
        if not form.is_valid():
            status = 400
        else:
            try:
                game = centre.pack_import(tournament=tournament, raw=form.cleaned_data["file"].read(),
                                          trust_fingerprint=form.cleaned_data["trust_fingerprint"],
                                          actor=request.user)
            except ServiceError as error:
                attach_service_error(form, error)
                status = error.status
                fingerprint = error.params.get("fingerprint", "") if error.code in (
                    "pack_untrusted", "pack_fingerprint") else ""
            else:
                messages.success(request, _("Game %(number)s imported from the sealed pack: give its key at the "
                                            "start.") % {"number": game.number})
                return redirect("console-pack", game_id=game.pk)
    return render(request, "console/pack_import.html", {
        "section": "tournaments", "tournament": tournament, "form": form, "fingerprint": fingerprint,
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")),
                        (tournament.name, reverse("console-tournament", args=[tournament.pk])),
                        (_("Import a sealed pack"), None)],
    }, status=status)


def _pack_page(request: HttpRequest, game, form, status: int = 200) -> HttpResponse:
    pack = GamePack.objects.filter(game_id=game.pk).first()
    if pack is None:
        raise Http404
    return render(request, "console/pack.html", {
        "section": "tournaments", "tab": "pack", "game": game, "pack": centre.pack_summary(pack), "form": form,
        "breadcrumbs": game_breadcrumbs(game),
    }, status=status)


@arbitrator_required
@require_GET
def pack_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game's pack (its clear part: event, game, SHA-256, the organiser's fingerprint) and, while it is
    locked, the key's form (for the head arbitrator)."""
    return _pack_page(request, queries.game(game_id), PackUnlockForm())


@head_required
@require_POST
def pack_unlock(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    form = PackUnlockForm(request.POST)
    if not form.is_valid():
        return _pack_page(request, game, form, 400)
    try:
        centre.pack_unlock(game=game, key=form.cleaned_data["key"], actor=request.user)
    except ServiceError as error:
        attach_service_error(form, error)
        return _pack_page(request, game, form, error.status)
    messages.success(request, _("The pack is unlocked: each draw reveals its next rack."))
    return redirect("console-game", game_id=game.pk)


def _may_distrust(user) -> bool:
    """A superuser, a game's head arbitrator or an event's recorded organiser."""
    return bool(user.is_superuser
                or GameArbitrator.objects.filter(user=user, role=GameArbitrator.Role.HEAD).exists()
                or Event.organisers.through.objects.filter(user_id=user.pk).exists())


def _an_id(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**63 else None


@staff_required
@require_http_methods(["GET", "POST"])
def trusted_keys(request: HttpRequest) -> HttpResponse:
    """The organisers whose packs this installation accepts: the setting's (and its own key), fixed here, and
    those a head arbitrator trusted at an import (TrustedOrganiserKey), each with its fingerprint. POST ``key``
    (a database row's id) stops trusting one (written to the server's log); a head arbitrator or an event's
    organiser only."""
    if request.method == "POST":
        if not _may_distrust(request.user):
            return refused(request, None, Forbidden("head_only", params={"role": "none", "why": "trusted_keys"}))
        row = TrustedOrganiserKey.objects.filter(pk=_an_id(request.POST.get("key"))).first()
        if row is None:
            raise Http404
        row.delete()
        logger.info("organiser key no longer trusted: %s (fingerprint %s) by %s", row.key, row.fingerprint,
                    request.user.get_username())
        messages.success(request, _("The organiser key %(fingerprint)s is no longer trusted: its packs are "
                                    "refused until it is trusted again.") % {"fingerprint": row.fingerprint})
        return redirect("console-trusted-keys")
    fixed = sorted(packs.trusted_keys())
    rows = [row for row in TrustedOrganiserKey.objects.select_related("trusted_by") if row.key not in fixed]
    return render(request, "console/trusted_keys.html", {
        "section": "tournaments", "fixed": [(key, packs.fingerprint(key)) for key in fixed], "rows": rows,
        "may_remove": _may_distrust(request.user),
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")), (_("Trusted organisers"), None)],
    })
