"""The public results pages (tournaments/public.py): ``/results/<key>/`` (a tournament's standings and games, or
an event's merged standings) and ``/results/<key>/games/<n>/`` (one game: its rounds' masters and standings),
in the tournament's (event's) language, for anyone with the link; and the console's switch that turns a link on
and off (a head arbitrator of the tournament, an organiser of the event).

Every answer carries the data's strong ETag and ``Cache-Control: public, max-age=ARBITER_PUBLIC_MAX_AGE``; a
request naming the current ETag in ``If-None-Match`` gets 304 with no body, from the cache alone."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from tournaments import public
from tournaments.errors import ServiceError
from tournaments.models import Event, Tournament
from tournaments.public import FEED, PAGE, cacheable, etag, not_modified

from .console.access import report_error, tournament_head_required
from .console.events import organiser_required


@require_safe
def results_page(request: HttpRequest, key: str) -> HttpResponse:
    return _page(request, key, None)


@require_safe
def game_page(request: HttpRequest, key: str, number: int) -> HttpResponse:
    return _page(request, key, number)


def _page(request: HttpRequest, key: str, number: int | None) -> HttpResponse:
    try:
        found = public.published(key, request)
    except public.TooManyUnknown as refused:
        response = HttpResponse(_("Too many unknown results links from your address: wait a minute."), status=429,
                                content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(int(refused.wait))
        return response
    if found is None:
        raise Http404
    tag = etag(PAGE, found.tag)
    unchanged = not_modified(request, tag)
    if unchanged is not None:
        return unchanged
    data = found.data()
    game = None
    if number is not None:
        game = next((g for g in data.get("games", []) if data["kind"] == "tournament" and g["number"] == number),
                    None)
        if game is None:
            raise Http404
    chosen = public.chosen_filters(request.GET)
    if game is not None:
        rows = game["standings"]
    elif data["kind"] == "tournament" and not data["standings"] and len(data["games"]) == 1:
        game = data["games"][0]  # one game: its standings are the tournament's, its rounds shown here
        rows = game["standings"]
    else:
        rows = data["standings"]
    context = {
        "data": data, "game": game, "number": number, "rows": public.filtered(rows, chosen), "chosen": chosen,
        "filters": [(name, data["filters"].get(name, [])) for name in public.FILTERS if data["filters"].get(name)],
        "key": key, "feed_etag": etag(FEED, found.tag),
        "poll_seconds": settings.ARBITER_PUBLIC_POLL_SECONDS,
        "poll_max": max(1, int(settings.ARBITER_PUBLIC_POLL_HOURS * 3600 / settings.ARBITER_PUBLIC_POLL_SECONDS)),
    }
    with translation.override(found.language):
        response = render(request, "public/results.html", context)
        response["Content-Language"] = found.language
    return cacheable(response, tag)


# ---- the console's switch ---------------------------------------------------------------------------------------


@tournament_head_required
@require_POST
def tournament_switch(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    _switch(request, tournament=tournament)
    return redirect("console-tournament", tournament_id=tournament.pk)


@organiser_required
@require_POST
def event_switch(request: HttpRequest, event_id: int) -> HttpResponse:
    event = get_object_or_404(Event, pk=event_id)
    _switch(request, event=event)
    return redirect("console-event", event_id=event.pk)


def _switch(request: HttpRequest, **owner) -> None:
    on = request.POST.get("public") == "1"
    try:
        public.link_set(on=on, actor=request.user, **owner)
    except ServiceError as error:
        report_error(request, error)
        return
    messages.success(request, _("The public results link is on.") if on else
                     _("The public results link is off: its address answers 404."))
