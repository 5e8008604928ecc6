"""A centre's sealed pack at the console (tournaments/centre.py, docs/packs.md): imported from a file as a new
game of the tournament (an organiser not yet trusted is shown by its key's fingerprint, trusted once that
fingerprint, checked with the organiser by phone, is typed), then unlocked at the start with the key typed
or scanned. The pack's page shows its clear part only: never a rack before the draw."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tournaments import centre
from tournaments.errors import ServiceError
from tournaments.models import GamePack

from . import queries
from .access import arbitrator_required, attach_service_error, head_required, tournament_head_required
from .texts import game_breadcrumbs

MAX_PACK_BYTES = 256 * 1024  # a pack weighs about 23 kB


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
