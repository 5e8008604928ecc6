"""The organiser of a simultaneous event at the console (tournaments/events.py, docs/packs.md): the events, an
event's page (its packs' games and their keys, its centres with their keys and push tokens, the results files
received and the verdicts to review, a results file uploaded from a USB key or an e-mail), the merged standings
and their CSV."""

from __future__ import annotations

import json

import segno
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engine.pregame import profile
from tournaments import events, packs
from tournaments.errors import ServiceError
from tournaments.event_models import Centre, ResultsFile
from tournaments.limits import RESULTS_FILE_MAX_BYTES
from tournaments.refusals import error_text
from tournaments.sheets.labels import outcome_label, reason_label

from .access import _role_required, staff_required

organiser_required = _role_required(events.require_organiser, "event_id")
MAX_PACK_BYTES = 256 * 1024
MAX_GAME_FILE_BYTES = 1024 * 1024  # a game file of a long game weighs about 60 kB
PROFILE_SESSION = "event_profile"  # the candidate game's profile, kept in the session until shown
QR_SESSION = "event_key_qr"  # the typed key's QR text, kept in the session until shown


def _event(event_id: int):
    try:
        return events.get_event(event_id)
    except ServiceError:
        raise Http404 from None


def _crumbs(event=None, last=None) -> list:
    crumbs = [(_("Simultaneous events"), reverse("console-events") if event or last else None)]
    if event is not None:
        crumbs.append((event.name, reverse("console-event", args=[event.pk]) if last else None))
    if last:
        crumbs.append((last, None))
    return crumbs


@staff_required
@require_http_methods(["GET", "POST"])
def events_page(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            event = events.event_create(name=request.POST.get("name", ""), language=request.POST.get("language", "en"),
                                        actor=request.user)
        except ServiceError as error:
            messages.error(request, error_text(error))
            return redirect("console-events")
        return redirect("console-event", event_id=event.pk)
    return render(request, "console/events.html", {"section": "events", "events": events.events_of(request.user),
                                                   "breadcrumbs": _crumbs()})


@organiser_required
@require_GET
def event_page(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _event(event_id)
    centres = list(event.centres.all())
    for centre in centres:
        centre.fingerprint = events.packs.fingerprint(centre.key_seen) if centre.key_seen else ""
    files = ResultsFile.objects.filter(event=event).select_related("centre", "game").order_by("-id")
    candidate = request.session.pop(PROFILE_SESSION, None)
    key_qr = request.session.pop(QR_SESSION, None)
    if key_qr:
        key_qr = {**key_qr, "svg": segno.make(key_qr["text"], error="m").svg_inline(scale=6, omitsize=True)}
    return render(request, "console/event.html", {
        "section": "events", "event": event, "games": event.games.all(), "centres": centres,
        "candidate": candidate if candidate and candidate.get("event") == event.pk else None,
        "key_qr": key_qr if key_qr and key_qr.get("event") == event.pk else None,
        "files": files, "differences": [_labelled(found) for found in events.differences(event)], "breadcrumbs": _crumbs(event),
    })


def _verdict(verdict: dict) -> str:
    """A verdict in words: its points, its outcome and its reason (sheets' labels)."""
    words = [str(verdict.get("paid", 0)), outcome_label(str(verdict.get("outcome", ""))),
             reason_label(str(verdict.get("reason", "")))]
    return " · ".join(word for word in words if word)


def _labelled(found: dict) -> dict:
    return {**found, "centre_text": _verdict(found["centre_verdict"]), "judged_text": _verdict(found["judged"])}


def _read(request: HttpRequest, limit: int) -> bytes | None:
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, _("Choose a file."))
        return None
    if upload.size > limit:
        messages.error(request, _("The file is too large."))
        return None
    return upload.read()


def _candidate(raw: bytes) -> dict:
    """A candidate game file's profile (engine.pregame.profile), as the page shows it; 400 ``bad_game_file``."""
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise ServiceError("bad_game_file", params={"detail": str(error)}) from None
    if not isinstance(data, dict):
        raise ServiceError("bad_game_file", params={"detail": "not a JSON object"})
    read = packs.read_game_file(data)
    figures = profile(read.game, read.rules, read.labelling)
    return {**figures, "lexicon": read.lexicon, "tileset": read.tileset, "preset": read.rules.preset}


def _game(event, value):
    game = event.games.filter(pk=_an_id(value)).first()
    if game is None:
        raise ServiceError("not_found", status=404, params={"game": value or "", "why": "event_game"})
    return game


def _act(request: HttpRequest, event) -> None:  # noqa: C901, PLR0912
    action = request.POST.get("action", "")
    if action == "profile":
        raw = _read(request, MAX_GAME_FILE_BYTES)
        if raw is not None:
            request.session[PROFILE_SESSION] = {**_candidate(raw), "event": event.pk,
                                                "name": request.FILES["file"].name[:100]}
    elif action == "qr":
        game = _game(event, request.POST.get("game"))
        key = packs.read_key(request.POST.get("key", ""), game.sha256)
        request.session[QR_SESSION] = {"event": event.pk, "game": game.game_id,
                                       "text": packs.key_qr_text(key, game.sha256)}
    elif action == "pack":
        raw = _read(request, MAX_PACK_BYTES)
        if raw is not None:
            game = events.event_game_add(event=event, raw=raw)
            messages.success(request, _("Game %(game)s added: give its key at the start.") % {"game": game.game_id})
    elif action == "unlock":
        game = _game(event, request.POST.get("game"))
        events.event_game_unlock(game=game, key=request.POST.get("key", ""), actor=request.user)
        messages.success(request, _("Game %(game)s unlocked.") % {"game": game.game_id})
    elif action == "centre":
        centre, token = events.centre_register(event=event, code=request.POST.get("code", ""),
                                               name=request.POST.get("name", ""),
                                               public_key=request.POST.get("public_key", ""))
        messages.success(request, _("Centre %(centre)s registered. Its push token, shown this once: %(token)s")
                         % {"centre": centre.code, "token": token})
    elif action == "key":
        centre = _centre(event, request.POST.get("centre"))
        events.centre_key_accept(centre=centre, fingerprint=request.POST.get("fingerprint", ""))
        messages.success(request, _("The key of centre %(centre)s is accepted.") % {"centre": centre.code})
    elif action == "token":
        centre = _centre(event, request.POST.get("centre"))
        token = events.centre_new_token(centre=centre)
        messages.success(request, _("Centre %(centre)s's new push token, shown this once: %(token)s")
                         % {"centre": centre.code, "token": token})
    elif action == "open":  # a multiplex: a game played live here opened to the centres
        from tournaments import multiplex
        from tournaments.models import Game

        game = Game.objects.filter(pk=_an_id(request.POST.get("live_game"))).first()
        if game is None:
            raise ServiceError("not_found", status=404, params={"game": request.POST.get("live_game", ""),
                                                                "why": "game"})
        opened = multiplex.game_open(event=event, game=game, game_id=request.POST.get("game_id", ""),
                                     actor=request.user)
        messages.success(request, _("Game %(game)s opened to the centres: they follow it from now on.")
                         % {"game": opened.game_id})
    elif action == "upload":
        raw = _read(request, RESULTS_FILE_MAX_BYTES)
        if raw is not None:
            record, new = events.results_receive(event=event, raw=raw, via=ResultsFile.Via.CONSOLE, actor=request.user)
            text = _("Results of centre %(centre)s accepted (version %(sequence)s).") if new else \
                _("This results file of centre %(centre)s was already received (version %(sequence)s).")
            messages.success(request, text % {"centre": record.centre.code, "sequence": record.sequence})


def _an_id(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**63 else None


def _centre(event, value) -> Centre:
    centre = event.centres.filter(pk=_an_id(value)).first()
    if centre is None:
        raise ServiceError("not_found", status=404, params={"centre": value or "", "why": "centre"})
    return centre


@organiser_required
@require_POST
def event_act(request: HttpRequest, event_id: int) -> HttpResponse:
    """One of the event page's forms: ``action`` profile (a candidate game file's
    figures, kept in the session until shown), qr (a typed key drawn as its QR code), pack, unlock, centre, key,
    token, upload or open (a game played here opened to the centres: a multiplex). A refusal is shown
    on the page and changes nothing."""
    event = _event(event_id)
    try:
        _act(request, event)
    except ServiceError as error:
        messages.error(request, error_text(error))
    return redirect("console-event", event_id=event.pk)


@organiser_required
@require_GET
def event_standings(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _event(event_id)
    merged = events.standings(event)
    groups = [(title, [(name, [(row[f"rank_{scope}"], row["name"], row["total"]) for row in rows])
                       for name, rows in merged[key].items()])
              for title, scope, key in ((_("By centre"), "centre", "by_centre"), (_("By series"), "series", "by_series"),
                                        (_("By category"), "category", "by_category"))]
    # Which rounds each centre has reported, game by game: the centres behind marked.
    reported = [{"game": game, "centre": centre, "count": count, "total": merged["rounds"][game],
                 "behind": count < merged["rounds"][game]}
                for game, by_centre in merged["reported"].items() for centre, count in by_centre.items()]
    return render(request, "console/event_standings.html", {
        "section": "events", "event": event, "merged": merged, "groups": groups, "reported": reported,
        # While centres are still to report (a multiplex round by round), the page reads the standings again.
        "refresh_seconds": settings.ARBITER_EVENT_STANDINGS_REFRESH_SECONDS,
        "breadcrumbs": _crumbs(event, _("Merged standings")),
    })


@organiser_required
@require_GET
def event_standings_csv(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _event(event_id)
    response = HttpResponse(events.standings_csv(events.standings(event)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-standings.csv"'
    return response


@organiser_required
@require_GET
def event_standings_pdf(request: HttpRequest, event_id: int) -> HttpResponse:
    """The national standings PDF; ``?scope=centre|series|category``: one section per group of that scope."""
    event = _event(event_id)
    scope = request.GET.get("scope") or None
    try:
        pdf = events.standings_pdf(event, events.standings(event), scope)
    except ServiceError as error:
        return HttpResponseBadRequest(error_text(error))
    response = HttpResponse(pdf, content_type="application/pdf")
    name = f"-by-{scope}" if scope else ""
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-standings{name}.pdf"'
    return response


@organiser_required
@require_GET
def event_results_file(request: HttpRequest, event_id: int) -> HttpResponse:
    """The event's federation results file over the merged standings (Latin-1, as the game's)."""
    event = _event(event_id)
    response = HttpResponse(events.results_file(events.standings(event)),
                            content_type="text/plain; charset=iso-8859-1")
    response["Content-Disposition"] = f'attachment; filename="results-event-{event.pk}.txt"'
    return response
