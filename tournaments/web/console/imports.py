"""Restoring a game from its record at the console: the file is checked at once (its shape and its seal);
a small record is played back within the request, a large one by the worker, whose job the page follows
(it reloads itself every two seconds until the job is done or refused)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from tournaments.api.parsers import TooDeep, load_json
from tournaments.errors import ServiceError
from tournaments.exports import restore_record
from tournaments.exports.imports import inline_bytes, job_body, queue_import
from tournaments.exports.restore import check_record, check_seal
from tournaments.models import RecordImport
from tournaments.refusals import refusal_text

from . import queries
from .access import attach_service_error, staff_required, tournament_head_required

MAX_RECORD_BYTES = 32 * 1024 * 1024


class RecordImportForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Game record (record.json)"))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_RECORD_BYTES:
            raise forms.ValidationError(_("The file is too large (32 MB at most)."))
        return upload


def _read(upload) -> tuple[dict, int]:
    raw = upload.read()
    try:
        return load_json(raw.decode("utf-8")), len(raw)
    except TooDeep as error:
        raise ServiceError("too_deep", str(error)) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ServiceError("malformed", params={"detail": str(error), "why": "file"}) from None


@tournament_head_required
@require_http_methods(["GET", "POST"])
def record_import(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = queries.tournament(tournament_id)
    status = 200
    form = RecordImportForm()
    if request.method == "POST":
        form = RecordImportForm(request.POST, request.FILES)
        if not form.is_valid():
            status = 400
        else:
            try:
                record, size = _read(form.cleaned_data["file"])
                check_record(record)
                check_seal(record)
                if size > inline_bytes():
                    job = queue_import(record=record, tournament=tournament, actor=request.user, size=size)
                    return redirect("console-import-job", job_id=job.pk)
                game = restore_record(record=record, tournament=tournament, actor=request.user)
            except ServiceError as error:
                attach_service_error(form, error)
                status = error.status
            else:
                messages.success(request, _("Game %(number)s restored from its record.") % {"number": game.number})
                return redirect("console-game", game_id=game.pk)
    return render(request, "console/record_import.html", {
        "section": "tournaments", "tournament": tournament, "form": form,
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")),
                        (tournament.name, reverse("console-tournament", args=[tournament.pk])),
                        (_("Restore a game"), None)],
    }, status=status)


@staff_required
def import_job(request: HttpRequest, job_id) -> HttpResponse:
    """The worker's playback of a record, followed: seen by the arbitrator who sent it (and superusers)."""
    job = RecordImport.objects.select_related("tournament", "game").defer("record").filter(pk=job_id).first()
    if job is None or not (job.actor_id == request.user.pk or request.user.is_superuser):
        raise Http404
    body = job_body(job)
    error = body["error"]
    return render(request, "console/record_import_job.html", {
        "section": "tournaments", "tournament": job.tournament, "job": body,
        "following": job.status in (RecordImport.Status.QUEUED, RecordImport.Status.RUNNING),
        "error_text": refusal_text(error["code"], (job.error or {}).get("params"), error["message"]) if error else "",
        "breadcrumbs": [(_("Tournaments"), reverse("console-home")),
                        (job.tournament.name, reverse("console-tournament", args=[job.tournament_id])),
                        (_("Restore a game"), None)],
    })
