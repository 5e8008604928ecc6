"""Who may use the console, and how a refused action reaches the arbitrator."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, JsonResponse

from tournaments.api.exceptions import error_body
from tournaments.errors import ServiceError
from tournaments.refusals import error_text


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
