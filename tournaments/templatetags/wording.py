"""A tournament's settings in words on the pages (``{% load wording %}``): ``{{ t.ruleset|ruleset }}``,
``{{ t.tileset|tileset }}`` (``|tileset_short``: "French tiles"), ``{{ t.coordinates|coordinates }}``, ``{{ t.language|language_name }}``, and
``{{ row.reason|reason_short }}`` (a result's reason in a few words, as the sheets print it)."""

from __future__ import annotations

from django import template

from tournaments import wording
from tournaments.sheets.labels import reason_label

register = template.Library()


@register.filter
def ruleset(code):
    return wording.ruleset_label(code or "")


@register.filter
def tileset(code):
    return wording.tileset_label(code or "")


@register.filter
def tileset_short(code):
    return wording.tileset_short(code or "")


@register.filter
def coordinates(code):
    return wording.coordinates_label(code or "")


@register.filter
def language_name(code):
    return wording.language_label(code or "")


@register.filter
def reason_short(code):
    return reason_label(code or "")


@register.filter
def marked(word):
    """A slip's word with each blank typed as ``?`` before its letter, as the console's forms read it."""
    from engine.notation import format_marked_word

    return format_marked_word(word or "")


@register.filter
def moment(text):
    """A time written as ISO 8601 text (an incident's ``at``), in the server's time zone (TIME_ZONE)."""
    from datetime import datetime

    from django.utils import timezone

    try:
        value = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return timezone.localtime(value) if timezone.is_aware(value) else value
