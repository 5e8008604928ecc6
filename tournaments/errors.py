"""The one error type the services raise, and the one error shape every refused request is answered in
(the API, the fast slip path, the console's scripts, the pages' feeds and the server's own refusals)."""

from __future__ import annotations

from tournaments.refusals import english_text


def error_body(code: str, message: str, fields: dict | None = None, params: dict | None = None) -> dict:
    """``{"error": {"code", "message", "fields"}}`` (and ``params`` when a page asks for them)."""
    error = {"code": code, "message": message, "fields": fields or {}}
    if params is not None:
        error["params"] = params
    return {"error": error}


class ServiceError(Exception):
    """A refused action: ``code`` is a machine code, ``message`` a readable sentence, ``status`` the HTTP status.

    The message is the refusal's English text in tournaments/refusals.py, said from ``code`` and ``params``: a
    service raises with the code and params only. ``message`` is given only for a text that has no entry
    there because it is the words of another error (a parser's, a rule's)."""

    status = 400

    def __init__(self, code: str, message: str | None = None, status: int | None = None, fields: dict | None = None,
                 params: dict | None = None):
        # What the pages need to say the refusal in their reader's language (a table number, a slip...):
        # they translate from ``code`` and ``params``, never by reading ``message``.
        self.params = params or {}
        self.code = code
        self.message = english_text(code, self.params) if message is None else message
        super().__init__(self.message)
        if status is not None:
            self.status = status
        self.fields = fields or {}

    def as_dict(self) -> dict:
        return error_body(self.code, self.message, self.fields)


def input_refused(error, field: str, error_class: type[ServiceError] = ServiceError, code: str | None = None,
                  params: dict | None = None) -> ServiceError:
    """The engine's refusal of a typed word, reference or rack (NotationError, RackError: ``code``,
    ``message``, ``params``) as the services' own, named on ``field``: its code (or ``code``) and params (or
    ``params``)."""
    return error_class(code or error.code, error.message, fields={field: [error.message]},
                       params=getattr(error, "params", {}) if params is None else params)


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    """The action does not fit the current state (round closed, round still open, game over...)."""

    status = 409
