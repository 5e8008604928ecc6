"""One error shape for every refused API request: ``{"error": {"code", "message", "fields"}}``.

DRF's own exceptions (validation, authentication, permission, not found, throttling, bad JSON) and the
services' ServiceError all end up in that shape, so a phone or a third-party tool reads one format only.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tournaments.errors import ServiceError, error_body
from tournaments.refusals import api_message


class RequestTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def body_limit_message() -> str:
    return f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes."


def _flatten(detail) -> list[str]:
    """Messages of one field as a flat list of strings (nested serializers give dicts or lists)."""
    if isinstance(detail, dict):
        return [f"{key}: {text}" for key, value in detail.items() for text in _flatten(value)]
    if isinstance(detail, list):
        return [text for item in detail for text in _flatten(item)]
    return [str(detail)]


def _validation_body(exc: exceptions.ValidationError) -> dict:
    detail = exc.detail
    if isinstance(detail, dict):
        fields = {name: _flatten(value) for name, value in detail.items()}
        general = fields.pop("non_field_errors", None)
        message = general[0] if general else "Some fields are not valid: " + ", ".join(sorted(fields)) + "."
        if general:
            fields["non_field_errors"] = general
    else:
        messages = _flatten(detail)
        fields = {}
        message = messages[0] if messages else "The request is not valid."
    return error_body("invalid", message, fields)


_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ParseError: "malformed",
}


def _code_for(exc: exceptions.APIException) -> str:
    """A code given where the exception was raised (e.g. a permission's ``code``), else one per kind."""
    codes = exc.get_codes()
    if isinstance(codes, str) and codes != exc.default_code:
        return codes
    for cls in type(exc).__mro__:
        if cls in _CODES:
            return _CODES[cls]
    return codes if isinstance(codes, str) else "error"


def api_exception_handler(exc, context):
    """DRF EXCEPTION_HANDLER: the contract's error shape for ServiceError and every DRF exception."""
    if isinstance(exc, ServiceError):
        # The message in the language the request asked for (Accept-Language), from the code and params.
        return Response(error_body(exc.code, api_message(exc), exc.fields), status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):  # above DATA_UPLOAD_MAX_MEMORY_SIZE: Django refuses to read it
        exc = RequestTooLarge(body_limit_message())
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: a 500, logged by Django
    if isinstance(exc, exceptions.ValidationError):
        response.data = _validation_body(exc)
    else:
        detail = exc.detail
        message = str(detail) if not isinstance(detail, dict | list) else "; ".join(_flatten(detail))
        response.data = error_body(_code_for(exc), message)
    return response


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def handler404(request, exception=None):
    """Django's 404 page, as JSON in the error shape under /api/ (unknown paths never reach a DRF view)."""
    if _is_api(request):
        return JsonResponse(error_body("not_found", "No such resource."), status=404)
    return defaults.page_not_found(request, exception)


def handler400(request, exception=None):
    """Django's 400 (a request it refuses before any view: a body above DATA_UPLOAD_MAX_MEMORY_SIZE read
    by a middleware, a host not allowed...), as JSON in the error shape under /api/."""
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return JsonResponse(error_body("too_large", body_limit_message()), status=413)
        return JsonResponse(error_body("bad_request", "The request was refused."), status=400)
    return defaults.bad_request(request, exception)


def handler500(request):
    if _is_api(request):
        return JsonResponse(error_body("server_error", "The server failed; the error was logged."), status=500)
    return defaults.server_error(request)
