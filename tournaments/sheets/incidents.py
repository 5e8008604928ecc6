"""The incidents of each round as the game record prints them: the clock paused, resumed and extended, a rack
replaced, a round cancelled, each with its time, who and why (in the sheet's language)."""

from __future__ import annotations

from datetime import datetime
from xml.sax.saxutils import escape

from django.utils import timezone
from django.utils.translation import gettext as _
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, Spacer

from tournaments.typography import typeset

from .typefaces import SANS, SANS_BOLD

_HEADING = ParagraphStyle("incidents-heading", fontName=SANS_BOLD, fontSize=9.5, leading=12, spaceAfter=2)
_LINE = ParagraphStyle("incidents-line", fontName=SANS, fontSize=7.5, leading=9.5, leftIndent=8)


def _clock(seconds) -> str:
    whole = max(0, int(-(-(seconds or 0) // 1)))
    return f"{whole // 60}:{whole % 60:02d}"


def _time(text: str | None) -> str:
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return ""
    return timezone.localtime(moment).strftime("%H:%M:%S") if timezone.is_aware(moment) else moment.strftime("%H:%M:%S")


def incident_line(incident: dict) -> str:
    """One incident as a line of the sheet."""
    action, by = incident.get("action"), incident.get("by") or "—"
    if action == "pause":
        what = _("clock paused by %(by)s, %(left)s left") % {"by": by, "left": _clock(incident.get("time_left"))}
    elif action == "resume":
        what = _("clock resumed by %(by)s after a pause of %(paused)s") % {
            "by": by, "paused": _clock(incident.get("paused_seconds"))}
    elif action == "extend":
        what = _("extended by %(seconds)s s by %(by)s") % {"seconds": incident.get("seconds"), "by": by}
    elif action == "rack_fix":
        what = _("rack %(before)s replaced by %(after)s by %(by)s") % {
            "before": incident.get("before"), "after": incident.get("after"), "by": by}
    elif action == "cancel":
        what = _("round cancelled by %(by)s (its slips void, its letters back into the bag)") % {"by": by}
    else:
        what = str(action)
    reason = incident.get("reason")
    parts = [_time(incident.get("at")), what]
    return " ".join(part for part in parts if part) + (f" — {reason}" if reason else "")


def incident_lines(incidents) -> tuple[str, ...]:
    return tuple(incident_line(incident) for incident in incidents or () if isinstance(incident, dict))


def incidents_story(rounds) -> list:
    """A section after the rounds' table: each round with incidents, one line per incident (empty when the
    game had none)."""
    story = []
    for line in rounds:
        for text in line.incidents:
            story.append(Paragraph(escape(typeset(_("Round %(number)s: %(incident)s") % {
                "number": line.number, "incident": text})), _LINE))
    if not story:
        return []
    return [Spacer(0, 6), Paragraph(typeset(_("Incidents")), _HEADING), *story]
