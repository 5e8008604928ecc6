"""Who may use the console, and how a refused action reaches the arbitrator.

Every page of a game takes a role in that game (services.roles: head, or head or assistant); a tournament's
page a role in one of its games, creating a game in it a head's. A staff user with no role is answered 403
with the refusal (never a redirect to a page they cannot open either); an assistant who presses a head's
button is answered 403 with the reason too, and a link back to the game's page."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from tournaments.errors import ServiceError, error_body
from tournaments.refusals import error_text
from tournaments.scoping import mismatched
from tournaments.services import (
    require_arbitrator,
    require_head,
    require_tournament_arbitrator,
    require_tournament_head,
)


def staff_required(view):
    """Anonymous visitors go to the login page; signed-in users without staff rights get 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (user.is_active and user.is_staff):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def wants_json(request: HttpRequest) -> bool:
    """The page's script asks (its answer is read in place, without a reload)."""
    return "application/json" in request.headers.get("Accept", "")


def refusal_json(code: str, message: str, status: int, fields: dict | None = None) -> JsonResponse:
    """A refusal for the page's script, in the API's error shape."""
    return JsonResponse(error_body(code, message, fields), status=status)


def report_error(request: HttpRequest, error: ServiceError, prefix: str = "") -> None:
    text = error_text(error)
    messages.error(request, f"{prefix} {text}".strip())


def report_form_errors(request: HttpRequest, form) -> None:
    """A posted form that did not validate, shown as messages on the page it came from."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


def attach_service_error(form, error: ServiceError) -> None:
    """Put a service's refusal on the form: on the fields it names, else on the whole form."""
    placed = False
    for field in error.fields or {}:
        if field in form.fields:
            form.add_error(field, error_text(error))
            placed = True
    if not placed:
        form.add_error(None, error_text(error))


def refused_page(request: HttpRequest, error: ServiceError, game_id: int | None = None) -> HttpResponse:
    """A page or action the user's role does not allow: 403 with the refusal, said in their language (with a
    way back to the game's page when the user may open it: a head's button pressed by an assistant)."""
    return render(request, "console/refused.html", {"text": error_text(error), "game_id": game_id},
                  status=error.status)


def refused(request: HttpRequest, game_id: int | None, error: ServiceError) -> HttpResponse:
    """A refusal for the page's script (JSON) or a page: 403 with the reason, never a redirect (a refused
    action answered 302 would read as done to a script or a proxy's log)."""
    if wants_json(request):
        return refusal_json(error.code, error_text(error), error.status, error.fields)
    back = game_id if error.code == "head_only" else None  # an assistant: the game's page is theirs
    return refused_page(request, error, back)


def _role_required(require, key: str):
    """A view decorator: staff only, then ``require(kwargs[key], user)`` (a refusal is answered, never
    raised), then the URL's objects of the game (a player, a slip, a round, a late slip) must be of that game:
    404 for one of another game (tournaments/scoping.py), whatever the caller's role there."""

    def decorator(view):
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            try:
                require(kwargs[key], request.user)
            except ServiceError as error:
                return refused(request, kwargs[key] if key == "game_id" else None, error)
            if mismatched(kwargs) is not None:
                raise Http404
            return view(request, *args, **kwargs)

        return staff_required(wrapper)

    return decorator


# The game's head arbitrator only (the clock, the racks, the master, the end, incidents, roles, a player's
# new phone link, the projector's new link).
head_required = _role_required(require_head, "game_id")
# An arbitrator with a role in the game: head or assistant (its pages, slips, players, tables).
arbitrator_required = _role_required(require_arbitrator, "game_id")
# A tournament's page: a role in one of its games; creating a game in it: a head's role in one of them.
tournament_arbitrator_required = _role_required(require_tournament_arbitrator, "tournament_id")
tournament_head_required = _role_required(require_tournament_head, "tournament_id")
