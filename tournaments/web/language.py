"""Which language a page of a tournament speaks.

A phone speaks the language its player joined in: the join page's (the phone's own, from its browser or the
language switch). Joining keeps it twice: with the player (``Player.language``, for the feeds asked with the
player's token) and in the phone's language cookie (for the pages, which the phone opens without a token).
The language switch (Django's ``set_language``, which leaves the same cookie) still lets each phone change
it. A phone that never joined, or whose player was registered at the console, starts in its tournament's
language. Other visitors' pages follow their own choice or their browser's; the projector and the sheets
always speak the tournament's language.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from tournaments.models import Player, Tournament
from tournaments.services import hash_token


def chosen_language(request: HttpRequest) -> str | None:
    """The language this browser chose with the language switch (or kept when joining), if any."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return chosen if chosen in dict(settings.LANGUAGES) else None


def expressed_language(request: HttpRequest) -> str:
    """The language a request asks for by itself: its language cookie, else its browser's ``Accept-Language``
    (as LocaleMiddleware reads it); "" when it says neither."""
    chosen = chosen_language(request)
    if chosen:
        return chosen
    if not request.META.get("HTTP_ACCEPT_LANGUAGE", "").strip():
        return ""
    found = translation.get_language_from_request(request)
    return found if found in dict(settings.LANGUAGES) else ""


def phone_language(request: HttpRequest, tournament: Tournament, player: Player | None = None) -> str:
    """A phone's language: its own choice (its cookie), else the language its player joined in (``player``,
    or the player of the request's bearer token), else its tournament's."""
    chosen = chosen_language(request)
    if chosen:
        return chosen
    player = player if player is not None else _token_player(request, tournament)
    return (player.language if player is not None else "") or tournament.language


def _token_player(request: HttpRequest, tournament: Tournament) -> Player | None:
    """The tournament's player whose token the request carries (``Authorization: Bearer``), if any."""
    scheme, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return Player.objects.filter(tournament=tournament, token_hash=hash_token(token)).only("language").first()


def keep_language(response: HttpResponse, language: str) -> HttpResponse:
    """Leave the phone the language cookie the language switch would (``django.views.i18n.set_language``)."""
    if language in dict(settings.LANGUAGES):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH, domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response
