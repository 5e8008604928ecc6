"""Public results (issue 26, part 2): a tournament's or an event's standings for followers at home, after each
closed round, at ``/results/<key>/`` (the page, phone-first) and ``/api/public/<key>`` (the JSON feed of the
same data). The link is a ``PublicLink`` (tournaments/public_models.py): off until a head arbitrator (an event's
organiser) turns it on, logged.

What is public: the closed rounds only. A tournament's data is read from its closed rounds (the standings
selectors read nothing else), each round's master and top; an event's from the centres' results files, with a
pack's masters only up to the round every centre has reported (a centre whose clock started late is still
playing the next one). Nothing of a round in play: no rack, no count of slips, not even its number.

Cost: thousands of followers poll the feed. Each answer carries a strong ETag, the hash of the data itself
(``tag``), and ``Cache-Control: public, max-age=ARBITER_PUBLIC_MAX_AGE``. What the link's data is now is kept in
the cache as a *stamp* (its tag, the language, the game versions it was built from) beside the data under its
tag. A request reads the stamp and the live version clock (tournaments/versions.py: one counter that moves
whenever any game changes) in one round trip: when the clock has not moved since the stamp was made, the stamp
is current and a follower whose ``If-None-Match`` names its tag gets 304 without the database being asked.
When the clock has moved (a round drawn, started or closed anywhere on the server), the first request after it
asks the database which games the link covers, compares their versions with the stamp's, and only when one of
them changed builds the data again; an unchanged hash keeps the same tag (a round drawn changes no public
data, so the followers' ETag stays). An event has no game version: its own counter (``event_changed``) moves
when a results file is accepted, a game unlocked or a centre added.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import connections, transaction
from django.http import HttpResponse, HttpResponseNotModified
from django.utils import timezone
from django.utils.http import parse_etags

from tournaments import selectors
from tournaments.formats import brief
from tournaments.models import Event, Game, PublicLink, Round, Tournament
from tournaments.versions import _CLOCK_KEY, _next_version, cache_available, game_versions

logger = logging.getLogger(__name__)

FILTERS = ("centre", "series", "category")  # the page's and the feed's filters (an event's rows have a centre)
DATA_SECONDS = 24 * 3600  # a version of the data stays in the cache this long after it was last built


# ---- turning the link on and off -------------------------------------------------------------------------------


def link_of(*, tournament: Tournament | None = None, event: Event | None = None) -> PublicLink | None:
    if tournament is not None:
        return PublicLink.objects.filter(tournament=tournament).first()
    return PublicLink.objects.filter(event=event).first()


def link_set(*, on: bool, actor, tournament: Tournament | None = None, event: Event | None = None) -> PublicLink:
    """Turn the public results link of ``tournament`` (a head of one of its games) or ``event`` (one of its
    organisers) on or off; the link's key is made the first time and kept. Logged: in each of the tournament's
    games' logs (``public_results``), in the server log for an event. Refused: 403 ``head_only`` /
    ``not_organiser`` for anyone else, and nothing changes."""
    if (tournament is None) == (event is None):
        raise ValueError("a tournament or an event")
    if tournament is not None:
        from tournaments.services.logbook import log
        from tournaments.services.roles import require_tournament_head

        require_tournament_head(tournament.pk, actor)
    else:
        from tournaments.events import require_organiser

        require_organiser(event.pk, actor)
    on = bool(on)
    with transaction.atomic():
        owner = {"tournament": tournament} if tournament is not None else {"event": event}
        link, _ = PublicLink.objects.select_for_update().get_or_create(**owner)
        before = link.enabled
        link.enabled, link.changed_by, link.changed_at = on, actor, timezone.now()
        link.save(update_fields=["enabled", "changed_by", "changed_at"])
        if tournament is not None:
            for game in Game.objects.filter(tournament=tournament).order_by("number"):
                log(game=game, action="public_results", actor=actor, before={"public": before},
                    after={"public": on})
        transaction.on_commit(lambda: forget(link.key), robust=True)
    logger.info("%s: turned %s by %s", link, "on" if on else "off", actor)
    return link


def forget(key: str) -> None:
    """The link changed (turned on or off): its stamp goes, and the clock moves, so that every process asks the
    database again at the next request (a stamp that could not be deleted is outdated by the clock)."""
    _held.pop(key, None)
    try:
        cache.delete(_stamp_key(key))
        _next_version()
    except Exception:  # best effort, as every version bump (tournaments/versions.py)
        logger.exception("could not tell the change of public link %s", key)


def event_changed(event_id: int) -> None:
    """An event's results changed (a results file accepted, a game unlocked, a centre added): its counter and the
    clock move once the transaction commits."""
    def tell():
        try:
            cache.set(_event_key(event_id), _next_version(), timeout=None)
        except Exception:
            logger.exception("could not tell the change of event %s", event_id)

    transaction.on_commit(tell, robust=True)


# ---- the cache ---------------------------------------------------------------------------------------------------


def _prefix() -> str:
    return f"public:{connections['default'].settings_dict['NAME']}"


def _stamp_key(key: str) -> str:
    return f"{_prefix()}:stamp:{key}"


def _data_key(key: str, tag: str) -> str:
    return f"{_prefix()}:data:{key}:{tag}"


def _event_key(event_id: int) -> str:
    return f"{_prefix()}:event:{event_id}"


@dataclass(frozen=True)
class Published:
    """What a request needs to answer: the data's tag (its ETag's core), its language, and the key to read the
    data itself (only a 200 reads it)."""

    key: str
    tag: str
    language: str
    kind: str

    def data(self) -> dict:
        held = _held.get(self.key)
        if held is not None and held[1] == self.tag:
            return held[2]
        data = cache.get(_data_key(self.key, self.tag))
        if data is None:  # evicted, or the cache is out of reach: built again from the database
            found = _build(self.key)
            data = found[1] if found else {}
        return data


def _stamp(key: str) -> tuple[dict | None, int | None]:
    """The link's stamp and the live version clock: one cache round trip."""
    stamp_key = _stamp_key(key)
    found = cache.get_many([stamp_key, _CLOCK_KEY])
    return found.get(stamp_key), found.get(_CLOCK_KEY)


def current(key: str) -> Published | None:
    """The link's data as the cache alone says it, when its stamp is current (nothing changed on the server
    since it was made); else None, and only ``published`` can tell (tournaments/public_fast.py)."""
    stamp, clock = _stamp(key)
    if stamp is not None and not stamp.get("absent") and clock is not None and stamp["clock"] == clock:
        return Published(key, stamp["tag"], stamp["language"], stamp["kind"])
    return None


class TooManyUnknown(Exception):
    """The caller's address asked about too many keys of no link: 429, ``wait`` seconds at most."""

    def __init__(self, wait: float):
        super().__init__(f"too many unknown public links: wait {wait:.0f} s")
        self.wait = wait


def _unknown_key(request) -> str:
    from tournaments.security import client_address

    return f"{_prefix()}:unknown:{client_address(request) or ''}"


def published(key: str, request=None) -> Published | None:
    """The link's current data (see the module's docstring); None when no link has this key or it is off.

    One cache round trip while nothing changed on the server since the stamp was made, and no database query.
    A key of no link is answered from the cache too after its first lookup (an *absent* stamp, kept
    ARBITER_PUBLIC_UNKNOWN_SECONDS; turning a link on deletes its stamp). With ``request``, an address that
    had ARBITER_PUBLIC_UNKNOWN_PER_MINUTE keys looked up in vain in a minute is refused (TooManyUnknown)
    any key the cache cannot answer, rather than have the database looked up again.
    """
    stamp, clock = _stamp(key)
    if stamp is not None and stamp.get("absent"):
        return None
    if stamp is not None and clock is not None and stamp["clock"] == clock:
        return Published(key, stamp["tag"], stamp["language"], stamp["kind"])
    if stamp is None and request is not None and _plausible(key) and cache_available():
        limit = settings.ARBITER_PUBLIC_UNKNOWN_PER_MINUTE
        if int(cache.get(_unknown_key(request)) or 0) >= limit:
            raise TooManyUnknown(60.0)
    found = _published(key, stamp, clock)
    if found is None and stamp is None and request is not None and _plausible(key) and cache_available():
        from arbiter.cache import count

        count(cache, _unknown_key(request), timeout=60)
    return found


def _published(key: str, stamp: dict | None, clock: int | None) -> Published | None:
    if not cache_available():
        held = _held.get(key)
        if held is not None and time.monotonic() - held[0] < settings.ARBITER_PUBLIC_MAX_AGE:
            return held[3]
    if stamp is not None and cache_available():
        # Only one request at a time checks the link against the database after a change; the others answer
        # from the stamp as it was meanwhile (at most BUILD_SECONDS, the time of one check), rather than
        # each of the hundreds arriving during the check building the standings again.
        if not cache.add(_build_key(key), 1, timeout=BUILD_SECONDS):
            return Published(key, stamp["tag"], stamp["language"], stamp["kind"])
        try:
            return _check(key, stamp, clock)
        finally:
            cache.delete(_build_key(key))
    return _check(key, stamp, clock)


BUILD_SECONDS = 10


def _build_key(key: str) -> str:
    return f"{_prefix()}:building:{key}"


def _check(key: str, stamp: dict | None, clock: int | None) -> Published | None:
    """The link checked against the database: its data built again when the games it covers changed."""
    stamp_key = _stamp_key(key)
    link = (PublicLink.objects.filter(key=key, enabled=True).select_related("tournament", "event").first()
            if _plausible(key) else None)
    if link is None:
        _held.pop(key, None)
        if _plausible(key):  # answered from the cache from now on, until the link is turned on (forget)
            cache.set(stamp_key, {"absent": True}, timeout=settings.ARBITER_PUBLIC_UNKNOWN_SECONDS)
        return None
    marks = _marks(link)
    if stamp is not None and stamp["marks"] == marks:
        cache.set(stamp_key, {**stamp, "clock": clock or 0}, timeout=None)
        return Published(key, stamp["tag"], stamp["language"], stamp["kind"])
    data = _data(link)
    tag = _tag(data)
    cache.set(_data_key(key, tag), data, timeout=DATA_SECONDS)
    stamp = {"clock": clock or 0, "marks": marks, "tag": tag, "language": data["language"], "kind": data["kind"]}
    cache.set(stamp_key, stamp, timeout=None)
    answer = Published(key, tag, data["language"], data["kind"])
    _hold(key, tag, data, answer)
    return answer


# The data this process built last, per link: what it answers while the cache cannot be reached, for at most
# ARBITER_PUBLIC_MAX_AGE seconds (what a follower's browser may keep anyway), so that thousands of followers do
# not each make the database build the standings during a cache outage. At most HELD_LINKS links.
HELD_LINKS = 64
_held: dict[str, tuple[float, str, dict, Published]] = {}


def _hold(key: str, tag: str, data: dict, answer: Published) -> None:
    if key not in _held and len(_held) >= HELD_LINKS:
        _held.pop(next(iter(_held)))
    _held[key] = (time.monotonic(), tag, data, answer)


def _plausible(key: str) -> bool:
    return isinstance(key, str) and 0 < len(key) <= PublicLink._meta.get_field("key").max_length


def _build(key: str) -> tuple[str, dict] | None:
    link = PublicLink.objects.filter(key=key, enabled=True).select_related("tournament", "event").first()
    if link is None:
        return None
    data = _data(link)
    return _tag(data), data


def _marks(link: PublicLink) -> dict:
    """What the link's data was built from, as the cache says: the versions of the tournament's games, or the
    event's counter. Read before the data, so that a change made meanwhile shows as a later mark."""
    if link.tournament_id is not None:
        ids = list(Game.objects.filter(tournament_id=link.tournament_id).values_list("id", flat=True))
        return {str(game_id): version for game_id, version in game_versions(ids).items()}
    return {"event": int(cache.get(_event_key(link.event_id)) or 0)}


def _tag(data: dict) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _data(link: PublicLink) -> dict:
    if link.tournament_id is not None:
        return tournament_data(link.tournament)
    return event_data(link.event)


# ---- the data -----------------------------------------------------------------------------------------------------

# What a row of the public standings shows of a player: no table, no licence number, no date of birth.
ROW_FIELDS = ("rank", "name", "club", "series", "category", "total", "diff", "percent", "tops", "solos",
              "warnings")
# The one rule for every standings answer: what the public page does not show of a player is given to an
# anonymous caller as null (the API's rows keep their fields: the contract lists ``table``), whole to the
# game's (tournament's) arbitrators, and to a player in their own row only (``for_reader``). The date of
# birth is in no standings row at all (tournaments/selectors.py, IDENTITY).
PRIVATE_FIELDS = ("table", "licence")
assert not set(PRIVATE_FIELDS) & set(ROW_FIELDS), "the public page would show a private field"


def for_reader(rows: list[dict], *, arbitrator: bool, player_id: int | None = None) -> list[dict]:
    """Standings rows as this reader may see them: whole for an arbitrator with a role; else each row's
    private fields (PRIVATE_FIELDS) null, but in the reader's own row (``player_id``, a player's token)."""
    if arbitrator:
        return rows
    return [row if player_id is not None and row.get("player") == player_id
            else {**row, **{name: None for name in PRIVATE_FIELDS if name in row}} for row in rows]


def _master(master: dict | None) -> dict | None:
    return brief(master) if master else None


def game_data(game: Game) -> dict:
    """One game's public part: its closed rounds (number, master, top, whether its paper slips are all in) and
    its standings after the last of them."""
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number")
                  .only("number", "master", "top_score", "slips_complete"))
    rows = []
    for row in selectors.game_standings(game=game):
        rows.append({**{name: row[name] for name in ROW_FIELDS}, "series_rank": row["series_rank"]})
    return {
        "number": game.number,
        "over": game.status == Game.Status.OVER,
        "rounds_closed": len(rounds),
        "provisional": selectors.standings_provisional(game),
        "rounds": [{"number": r.number, "master": _master(r.master), "top": r.top_score,
                    "provisional": not r.slips_complete} for r in rounds],
        "standings": rows,
        # The log chain's head after the last closed round (a draw does not move it: nothing is shown of it).
        "chain": selectors.closed_rounds_head_text(game),
    }


def tournament_data(tournament: Tournament) -> dict:
    games = [game_data(game) for game in tournament.games.order_by("number")]
    rows = []
    if len(games) > 1:
        for row in selectors.tournament_standings(tournament=tournament):
            rows.append({**{name: row[name] for name in ROW_FIELDS if name in row},
                         "games": [g["total"] for g in row["games"]]})
    listed = rows or (games[0]["standings"] if games else [])
    return {
        "kind": "tournament",
        "name": tournament.name,
        "language": tournament.language,
        "provisional": any(g["provisional"] for g in games),
        "games": games,
        "standings": rows,
        "filters": {"series": _values(listed, "series"), "category": _values(listed, "category")},
    }


def _values(rows, name: str) -> list[str]:
    return sorted({row.get(name) or "" for row in rows} - {""})


def _reported_rounds(record) -> int:
    """How many rounds a centre's results file covers: the most any of its players has."""
    players = json.loads(record.content).get("players") or []
    return max((len(p.get("rounds") or []) for p in players), default=0)


def event_data(event: Event) -> dict:
    """An event's public part: the merged standings (tournaments/events.py), its centres (those that have not
    reported, or only part of a game, make it provisional), and each unlocked game's masters up to the round
    that every centre has reported."""
    from tournaments import events
    from tournaments.setting import play_to_dict

    merged = events.standings(event)
    centres = list(event.centres.values_list("code", "name"))
    files = events.counted_files(event)
    games = []
    for game in event.games.all():
        if game.game_id in merged["locked"]:  # not unlocked (a multiplex's live game never is, and is not locked)
            games.append({"id": game.game_id, "rounds": [], "rounds_shown": 0})
            continue
        game_file = events.game_file_of(game)
        reported = {record.centre.code: (len(game_file.game.rounds) if record.final else _reported_rounds(record))
                    for record in files if record.game_id == game.pk}
        shown = min((reported.get(code, 0) for code, _ in centres), default=0)
        rounds = []
        for r in game_file.game.rounds[:shown]:
            master = play_to_dict(r.master, game_file.labelling) if r.master else None
            rounds.append({"number": r.number, "master": _master(master), "top": r.master.score if r.master else 0})
        games.append({"id": game.game_id, "rounds": rounds, "rounds_shown": shown})
    rows = []
    for row in merged["rows"]:
        rows.append({
            "rank": row["rank"], "name": row["name"], "club": row["club"], "centre": row["centre"],
            "series": row["series"], "category": row["category"], "total": row["total"], "diff": row["diff"],
            "percent": row["percent"], "tops": row["tops"], "solos": row["solos"], "warnings": row["warnings"],
            "rank_centre": row.get("rank_centre"), "rank_series": row.get("rank_series"),
            "rank_category": row.get("rank_category"),
        })
    return {
        "kind": "event",
        "name": event.name,
        "language": event.language if event.language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE,
        "provisional": bool(merged["provisional"]),
        "centres": [{"code": code, "name": name,
                     "missing": code in merged["missing_centres"],
                     "unfinished": any(u["centre"] == code for u in merged["unfinished"])} for code, name in centres],
        "games": games,
        "standings": rows,
        "filters": {"centre": [code for code, _ in centres], "series": _values(rows, "series"),
                    "category": _values(rows, "category")},
    }


# ---- filters --------------------------------------------------------------------------------------------------------


def chosen_filters(params) -> dict[str, str]:
    """The filters asked in the query (``centre``, ``series``, ``category``), empty ones left out. A value that
    no row has is no error: the page says that no player is in that group."""
    chosen = {}
    for name in FILTERS:
        value = str(params.get(name) or "").strip()[:100]
        if value:
            chosen[name] = value
    return chosen


def filtered(rows: list[dict], chosen: dict[str, str]) -> list[dict]:
    """The rows of the chosen centre, series and category, each with ``group_rank``: its rank among them (the
    overall ranking's ties kept: one more than the number of rows of the group ranked strictly better)."""
    if not chosen:
        return rows
    kept = [row for row in rows if all((row.get(name) or "") == value for name, value in chosen.items())]
    out = []
    for row in kept:
        better = sum(1 for other in kept if other["rank"] < row["rank"])
        out.append({**row, "group_rank": better + 1})
    return out


# ---- answers --------------------------------------------------------------------------------------------------------

PAGE, FEED = "p", "f"  # an ETag's first letter: the page's and the feed's bodies differ, their data is the same


def etag(kind: str, tag: str) -> str:
    return f'"{kind}{tag}"'


def cacheable(response: HttpResponse, tag: str) -> HttpResponse:
    """The answer with its strong ETag and ``Cache-Control: public, max-age=ARBITER_PUBLIC_MAX_AGE``."""
    response["ETag"] = tag
    response["Cache-Control"] = f"public, max-age={int(settings.ARBITER_PUBLIC_MAX_AGE)}"
    return response


def not_modified(request, tag: str) -> HttpResponse | None:
    """304 with no body when the request's ``If-None-Match`` names ``tag`` (or ``*``); else None."""
    asked = request.headers.get("If-None-Match")
    if not asked:
        return None
    names = parse_etags(asked)
    if "*" in names or tag in names:
        return cacheable(HttpResponseNotModified(), tag)
    return None


def feed_bytes(found: Published, params) -> bytes:
    """The feed's body encoded. Unfiltered (what every open page and most followers ask), encoded once per
    version of the data in this process: after a close, each follower's first poll is a 200, thousands of them
    within a polling period, and each is then a lookup."""
    chosen = chosen_filters(params)
    if not chosen:
        held = _encoded.get(found.key)
        if held is not None and held[0] == found.tag:
            return held[1]
    body = json.dumps(feed_body(found, params), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if not chosen:
        if found.key not in _encoded and len(_encoded) >= HELD_LINKS:
            _encoded.pop(next(iter(_encoded)))
        _encoded[found.key] = (found.tag, body)
    return body


_encoded: dict[str, tuple[str, bytes]] = {}


def encoded(found: Published) -> bytes | None:
    """The unfiltered feed's body of ``found``'s data if this process has encoded it (feed_bytes); else None."""
    held = _encoded.get(found.key)
    return held[1] if held is not None and held[0] == found.tag else None


def feed_body(found: Published, params) -> dict:
    """The JSON feed's body: the link's data with its ``version`` and the filters applied (``filtered``)."""
    data = found.data()
    chosen = chosen_filters(params)
    body = {"version": found.tag, **data, "filtered": chosen}
    if chosen:
        body["standings"] = filtered(data["standings"], chosen)
        if data["kind"] == "tournament":
            body["games"] = [{**g, "standings": filtered(g["standings"], chosen)} for g in data["games"]]
    return body
