"""A round's incidents played back from its record (``restore.py``): a rack replaced before the start, the
clock paused, resumed and extended among the slips at their recorded times, the round cancelled."""

from __future__ import annotations

from datetime import UTC, datetime

from tournaments import services
from tournaments.models import Round

CLOCK = ("pause", "resume", "extend")


FIRST_YEAR, LAST_YEAR = 1970, 2999  # a recorded time outside: the record is wrong (year 9999 + a round overflows)


def when(text: str | None) -> datetime | None:
    """A recorded time; one written without a zone is taken as UTC. ValueError for a time that is not one
    or falls outside FIRST_YEAR-LAST_YEAR."""
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise ValueError(f"{text}: a recorded time falls between {FIRST_YEAR} and {LAST_YEAR}")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


_when = when


def _of(entry: dict, *actions: str) -> list[dict]:
    return [incident for incident in entry.get("incidents") or []
            if isinstance(incident, dict) and incident.get("action") in actions]


def as_first_drawn(entry: dict) -> dict:
    """The round's entry as it was drawn: with the rack typed first when it was replaced afterwards."""
    fixes = _of(entry, "rack_fix")
    if not fixes:
        return entry
    return {**entry, "rack": fixes[0]["before"], "typed": fixes[0].get("typed_before", True)}


def fix_racks(round: Round, entry: dict, actor) -> Round:
    """The rack replacements, in order, at their recorded times."""
    for fix in _of(entry, "rack_fix"):
        round = services.round_fix_rack(round=round, rack=fix["after"], reason=fix.get("reason") or "restored",
                                        actor=actor, now=_when(fix.get("at")))
    return round


def _apply(round: Round, incident: dict, actor) -> None:
    at, reason = _when(incident.get("at")), incident.get("reason") or ""
    if incident["action"] == "pause":
        services.round_pause(round=round, reason=reason or "restored", actor=actor, now=at)
    elif incident["action"] == "resume":
        services.round_resume(round=round, reason=reason, actor=actor, now=at)
    else:
        services.round_extend(round=round, seconds=incident["seconds"], reason=reason or "restored", actor=actor,
                              now=at)


def replay(round: Round, entry: dict, hand_in, actor) -> None:
    """The slips handed in, in their recorded order, with the clock's incidents between them at their times
    (a slip is handed in after every incident recorded at or before its arrival)."""
    events = sorted(_of(entry, *CLOCK), key=lambda incident: _when(incident.get("at")))
    done = 0
    for slip in entry.get("slips") or []:
        arrived = _when(slip.get("received_at"))
        while done < len(events) and arrived is not None and _when(events[done].get("at")) <= arrived:
            _apply(round, events[done], actor)
            done += 1
        hand_in(round, slip)
    for incident in events[done:]:
        _apply(round, incident, actor)


def cancel(round: Round, entry: dict, actor) -> bool:
    """Cancel the round as recorded; whether it was cancelled by the arbitrator."""
    cancels = _of(entry, "cancel")
    if not cancels:
        return False
    services.round_cancel(round=round, reason=cancels[-1].get("reason") or entry.get("cancel_reason") or "restored",
                          actor=actor, now=_when(cancels[-1].get("at")))
    return True
