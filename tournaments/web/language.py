"""Which language a page of a tournament speaks.

The phone starts in its tournament's language; the language switch (Django's ``set_language``, which leaves
its cookie) lets each phone change it. Other visitors' pages follow their own choice or their browser's.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from tournaments.models import Tournament


def chosen_language(request: HttpRequest) -> str | None:
    """The language this browser chose with the language switch, if any."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return chosen if chosen in dict(settings.LANGUAGES) else None


def phone_language(request: HttpRequest, tournament: Tournament) -> str:
    """A phone's language: its own choice, else its tournament's."""
    return chosen_language(request) or tournament.language
