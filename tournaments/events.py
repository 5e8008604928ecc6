"""The organiser's side of a simultaneous event (issue 25, parts 4 and 5; docs/packs.md section "The organiser's
steps"), persisted: the event, the packs' games it merges (each unlocked with its key by the organiser), its
centres (their public keys, typed or accepted on first use once the fingerprint is checked by phone, and their
push tokens, stored as SHA-512 digests only), the results files received (online with a centre's token, offline
through the console) and the merged standings (engine/merge.py) over the latest version of each centre's game.

Receiving a file (``results_receive``): it is read and named by its content hash; the version counted, received
again, is answered as such (a retrying centre stops), never as an error; a version received before and since
replaced by a later one is refused (409 ``results_replayed``); otherwise it is verified with
``results_files.verify_results`` against its centre's key and the unlocked game; a later version of a centre's
game replaces the one counted, which stays in the history; a refused file stores nothing. The verdicts the
organiser's judge gives otherwise are listed (``differences``) for review and never changed.
"""

from __future__ import annotations

import binascii
import hashlib
import json
import re
import secrets

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine.merge import EventGame as MergeGame
from engine.merge import merge_standings
from tournaments import packs, public, results_files, seal
from tournaments.errors import Conflict, Forbidden, NotFound, ServiceError
from tournaments.event_models import Centre, Event, EventGame, ResultsFile
from tournaments.limits import CENTRE_CODE_MAX, CENTRE_NAME_MAX, EVENT_NAME_MAX, RESULTS_FILE_MAX_BYTES

CENTRE_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
TOKEN_BYTES = 32


# ---- who runs the event ------------------------------------------------------------------------------------


def _is_staff(user) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False) and getattr(user, "is_active", True)
                and getattr(user, "is_staff", False))


def get_event(event_id) -> Event:
    event = Event.objects.filter(pk=event_id).first() if isinstance(event_id, int) and 0 < event_id < 2**63 else None
    if event is None:
        raise NotFound("not_found", params={"event": event_id, "why": "event"})
    return event


def is_organiser(event_id: int, user) -> bool:
    """An organiser of the event: one recorded, or any staff arbitrator while none is; superusers always."""
    if not _is_staff(user):
        return False
    if getattr(user, "is_superuser", False):
        return True
    organisers = set(Event.organisers.through.objects.filter(event_id=event_id).values_list("user_id", flat=True))
    return not organisers or user.pk in organisers


def require_organiser(event_id: int, user) -> None:
    """403 ``head_only`` (why ``event``) unless the user runs the event."""
    if not is_organiser(event_id, user):
        raise Forbidden("head_only", params={"role": "none", "why": "event"})


def events_of(user) -> list[Event]:
    return [event for event in Event.objects.all() if is_organiser(event.pk, user)]


def event_create(*, name: str, language: str = "en", actor) -> Event:
    name = " ".join(str(name or "").split())
    if not name or len(name) > EVENT_NAME_MAX:
        raise ServiceError("bad_event_name", fields={"name": ["length"]}, params={"max": EVENT_NAME_MAX})
    event = Event.objects.create(name=name, language=language or "en", created_by=actor)
    if _is_staff(actor):
        event.organisers.add(actor)
    return event


# ---- the games: packs, unlocked with their key ---------------------------------------------------------------


def _trusted() -> set[str]:
    """The organiser's own installation key, and the organisers this installation trusts."""
    return packs.trusted_keys() | {packs.public_text(seal.server_key()[0])}


def event_game_add(*, event: Event, raw) -> EventGame:
    """A sealed pack of the event's (its own key, or a trusted organiser's): refused when altered, of another
    event, or a game the event already has."""
    verified = packs.verify_pack(raw, trusted=_trusted())
    if verified.pack["event"] != event.name:
        raise ServiceError("event_pack_other", params={"event": str(verified.pack["event"])})
    game_id = str(verified.pack["game_id"])
    try:
        with transaction.atomic():
            return EventGame.objects.create(event=event, game_id=game_id, sha256=verified.sha256,
                                            pack=packs.pack_bytes(verified.pack).decode())
    except IntegrityError:
        raise Conflict("event_game_twice", params={"game": game_id}) from None


def event_game_unlock(*, game: EventGame, key: str, actor) -> EventGame:
    """Open the game's pack with its key (typed or scanned): the game the centres' files are judged against.
    A wrong or mistyped key is refused (the packs' codes) and changes nothing."""
    if game.game_text:
        raise Conflict("event_game_unlocked", params={"game": game.game_id})
    game_file = packs.unlock_pack(game.pack, key, trusted=_trusted())
    game.game_text = json.dumps(game_file.as_dict(), separators=(",", ":"))
    game.unlocked_at, game.unlocked_by = timezone.now(), actor if _is_staff(actor) else None
    game.save(update_fields=["game_text", "unlocked_at", "unlocked_by"])
    public.event_changed(game.event_id)
    return game


def game_file_of(game: EventGame) -> packs.GameFile:
    if game.live_game_id is not None:  # a multiplex: the organiser's live game as it stands
        from tournaments.multiplex import live_game_file

        return live_game_file(game)
    if not game.game_text:
        raise Conflict("event_game_locked", params={"game": game.game_id})
    return packs.read_game_file(json.loads(game.game_text))


# ---- the centres -----------------------------------------------------------------------------------------------


def token_digest(token: str) -> str:
    """How a centre's push token is stored: its SHA-512, as knox stores arbitrators' API tokens."""
    return hashlib.sha512(str(token).encode()).hexdigest()


def _public_key(text: str) -> str:
    text = "".join(str(text or "").split()).rstrip("=")
    try:
        Ed25519PublicKey.from_public_bytes(seal._unb64(text))
    except (ValueError, TypeError, binascii.Error):
        raise ServiceError("bad_centre_key", fields={"public_key": ["not a key"]}) from None
    return text


def centre_register(*, event: Event, code: str, name: str = "", public_key: str = "") -> tuple[Centre, str]:
    """A centre of the event, with its key when typed (else accepted on its first push, once checked by phone);
    its push token is returned once and only its digest kept."""
    code = str(code or "").strip()
    if not code or len(code) > CENTRE_CODE_MAX or not CENTRE_CODE.match(code):
        raise ServiceError("bad_centre_code", fields={"code": ["format"]}, params={"max": CENTRE_CODE_MAX})
    name = " ".join(str(name or "").split())
    if len(name) > CENTRE_NAME_MAX:
        raise ServiceError("bad_centre_name", fields={"name": ["length"]}, params={"max": CENTRE_NAME_MAX})
    key = _public_key(public_key) if str(public_key or "").strip() else ""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        with transaction.atomic():
            centre = Centre.objects.create(event=event, code=code, name=name, public_key=key,
                                           token_digest=token_digest(token))
    except IntegrityError:
        raise Conflict("centre_twice", params={"centre": code}) from None
    public.event_changed(event.pk)
    return centre, token


def centre_new_token(*, centre: Centre) -> str:
    """A new push token for the centre: the old one stops working."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    centre.token_digest = token_digest(token)
    centre.save(update_fields=["token_digest"])
    return token


def centre_by_token(event_id: int, token: str) -> Centre | None:
    if not token or len(token) > 200:
        return None
    return Centre.objects.select_related("event").filter(event_id=event_id, token_digest=token_digest(token)).first()


def _typed_fingerprint(text: str) -> str:
    return "".join(ch for ch in str(text or "").upper() if ch.isalnum())


def centre_key_accept(*, centre: Centre, fingerprint: str) -> Centre:
    """Accept the key the centre's first file was signed with, once its fingerprint read out by the centre on
    the phone is typed here; anything else is refused and changes nothing."""
    if centre.public_key:
        raise Conflict("centre_fingerprint", params={"centre": centre.code, "why": "known"})
    if not centre.key_seen:
        raise Conflict("centre_fingerprint", params={"centre": centre.code, "why": "none"})
    if _typed_fingerprint(fingerprint) != _typed_fingerprint(packs.fingerprint(centre.key_seen)):
        raise ServiceError("centre_fingerprint", fields={"fingerprint": ["mismatch"]}, params={"centre": centre.code})
    centre.public_key = centre.key_seen
    centre.save(update_fields=["public_key"])
    return centre


# ---- results in ------------------------------------------------------------------------------------------------


def _signer(results: dict) -> str:
    mark = results.get(results_files.SEAL_KEY) or {}
    try:
        return _public_key(mark.get("key", ""))
    except ServiceError:
        return ""


def results_receive(*, event: Event, raw, centre: Centre | None = None, via: str = ResultsFile.Via.API,
                    actor=None) -> tuple[ResultsFile, bool]:
    """Receive a centre's results file (see the module's docstring): (the record, True) when accepted now,
    (the record, False) when this very file was already received. ``centre``: the centre whose token pushed it
    (None through the console: the centre the file names)."""
    if isinstance(raw, bytes | bytearray) and len(raw) > RESULTS_FILE_MAX_BYTES:
        raise ServiceError("results_too_large", status=413, params={"max": RESULTS_FILE_MAX_BYTES})
    results = results_files.read_results(raw)
    digest = results_files.results_sha256(results)
    named = results["centre"]["id"]
    if centre is not None and named != centre.code:
        raise ServiceError("results_other_centre", params={"centre": named})
    held = ResultsFile.objects.filter(event=event, sha256=digest).select_related("centre").first()
    if held is not None and held.centre.code == named:
        if not held.current:  # an earlier version sent again after a later one: a replay, not a retry
            raise Conflict("results_replayed", params={"sha256": digest[:16], "sequence": held.sequence})
        return held, False
    if centre is None:
        centre = event.centres.filter(code=named).first()
        if centre is None:
            raise ServiceError("results_unknown_centre", params={"centre": named})
    if not centre.public_key:
        seen = _signer(results)
        if seen and seen != centre.key_seen:
            Centre.objects.filter(pk=centre.pk, public_key="").update(key_seen=seen)
        raise Conflict("centre_key_unconfirmed", params={"centre": centre.code,
                                                         "fingerprint": packs.fingerprint(seen) if seen else "?"})
    game = event.games.filter(game_id=results["game_id"]).first()
    if game is None:
        raise ServiceError("results_wrong_event", params={"why": "game", "game": results["game_id"]})
    verified = results_files.verify_results(results, centre_key=centre.public_key, game_file=game_file_of(game),
                                            event=event.name, pack_sha256=game.sha256)
    try:
        with transaction.atomic():
            Centre.objects.select_for_update().get(pk=centre.pk)
            counted = ResultsFile.objects.filter(centre=centre, game=game, current=True).first()
            if counted is not None and verified.sequence <= counted.sequence:
                raise ServiceError("results_outdated", params={"sequence": verified.sequence,
                                                               "held": counted.sequence})
            if counted is not None:
                counted.current = False
                counted.save(update_fields=["current"])
            record = ResultsFile.objects.create(
                event=event, centre=centre, game=game, sha256=digest, sequence=verified.sequence,
                final=verified.final, content=results_files.results_bytes(results).decode(),
                differences=list(verified.differences), current=True, via=via,
                received_by=actor if _is_staff(actor) else None)
            public.event_changed(event.pk)
    except IntegrityError:  # the same file received at the same instant by another request
        return ResultsFile.objects.get(event=event, sha256=digest), False
    return record, True


# ---- what the organiser reads ----------------------------------------------------------------------------------


def _verified(record: ResultsFile) -> results_files.VerifiedResults:
    results = json.loads(record.content)
    return results_files.VerifiedResults(results, record.sha256, record.centre.code, record.game.game_id,
                                         record.sequence, record.final, tuple(record.differences))


def counted_files(event: Event) -> list[ResultsFile]:
    return list(ResultsFile.objects.filter(event=event, current=True).select_related("centre", "game")
                .order_by("game_id", "centre__code"))


def differences(event: Event) -> list[dict]:
    """The verdicts of the counted files that the organiser's judge gives otherwise: for review, unchanged."""
    return [{"centre": record.centre.code, "game": record.game.game_id, **found}
            for record in counted_files(event) for found in record.differences]


def standings(event: Event, event_solos: bool | None = None) -> dict:
    """The merged standings (engine.merge.merge_standings) of the latest file of each centre's game, over the
    event's unlocked games and all its centres (those that have not reported are listed as missing);
    ``locked`` names the games not unlocked yet (not counted)."""
    games, rules, locked = [], None, []
    centres = tuple(event.centres.values_list("code", flat=True))
    rounds_closed = {}
    for game in event.games.all():
        if not game.game_text and game.live_game_id is None:
            locked.append(game.game_id)
            continue
        game_file = game_file_of(game)
        rules = rules or game_file.rules
        rounds_closed[game.game_id] = len(game_file.game.rounds)
        games.append(MergeGame(game.game_id, tuple(r.master.score if r.master else 0 for r in game_file.game.rounds),
                               centres))
    files = [record for record in counted_files(event) if record.game.game_id not in locked]
    entries = [entry for record in files for entry in _verified(record).entries()]
    merged = merge_standings(games, entries, rules, event_solos=event_solos,
                             reported={(record.centre.code, record.game.game_id) for record in files})
    merged["locked"] = locked
    merged["provisional"] = merged["provisional"] or bool(locked) or not games
    merged.update(progress(files, rounds_closed, centres))
    return merged


def _rounds_reported(record: ResultsFile) -> int:
    """The rounds a centre's counted file holds: the highest round any of its players has."""
    results = json.loads(record.content)
    return max((r["round"] for player in results["players"] for r in player["rounds"]), default=0)


def progress(files: list[ResultsFile], rounds_closed: dict[str, int], centres: tuple) -> dict:
    """Which rounds each centre has reported, game by game (``reported``: game -> centre -> rounds, 0 before its
    first file), the rounds the organiser's game has (``rounds``: game -> closed rounds, a multiplex's growing as
    it is played), and the centres ``behind``: those that reported fewer rounds than that, in some game."""
    reported = {game: dict.fromkeys(centres, 0) for game in rounds_closed}
    for record in files:
        if record.game.game_id in reported:
            reported[record.game.game_id][record.centre.code] = _rounds_reported(record)
    behind = sorted({centre for game, by_centre in reported.items() for centre, count in by_centre.items()
                     if count < rounds_closed[game]})
    return {"rounds": rounds_closed, "reported": reported, "behind": behind}


CSV_COLUMNS = ("scope", "group", "rank", "name", "licence", "club", "centre", "series", "category", "total", "diff",
               "percent", "tops", "solos", "warnings")
SCOPES = (("centre", "by_centre"), ("series", "by_series"), ("category", "by_category"))


def standings_csv(merged: dict) -> str:
    """The merged standings as CSV: the overall ranking (scope ``overall``), then each centre's, series' and
    category's (``group`` names it; ``rank`` is the rank within it). Text cells are neutralised against
    spreadsheet formulas, as the game's standings CSV."""
    import csv
    import io
    from decimal import Decimal

    from tournaments.exports.cells import text_cell

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow([text_cell(title) for title in CSV_COLUMNS])

    def write(scope: str, group: str, rank_key: str, rows) -> None:
        for row in rows:
            writer.writerow([text_cell(scope), text_cell(group), int(row[rank_key]), text_cell(row["name"]),
                             text_cell(row["licence"]), text_cell(row["club"]), text_cell(row["centre"]),
                             text_cell(row["series"]), text_cell(row["category"]), int(row["total"]),
                             int(row["diff"]), Decimal(f"{row['percent']:.2f}"), int(row["tops"]), int(row["solos"]),
                             int(row["warnings"])])

    write("overall", "", "rank", merged["rows"])
    for scope, key in SCOPES:
        for group, rows in merged[key].items():
            write(scope, group, f"rank_{scope}", rows)
    return out.getvalue()


def standings_pdf(event: Event, merged: dict, scope: str | None = None) -> bytes:
    """The national standings as the standings sheet prints them (tournaments/sheets/standings.py), in the
    event's language: each player with their centre, the series rank beside the series, one column per game
    when the event has several. With a ``scope`` of ``SCOPES`` (centre, series, category), one section per
    group of that scope, its players ranked within it. An unknown scope is refused (``bad_standings_scope``)."""
    from django.utils import translation
    from django.utils.translation import gettext as _

    from tournaments.sheets.data import Header, StandingRow, Standings
    from tournaments.sheets.standings import render_standings

    keys = dict(SCOPES)
    if scope is not None and scope not in keys:
        raise ServiceError("bad_standings_scope", params={"scope": scope})
    labels = tuple(game.game_id for game in event.games.exclude(game_text=""))
    several = len(labels) > 1

    def totals(row: dict) -> tuple:
        played = {game["game"]: game["total"] for game in row["games"]}
        return tuple(played.get(label) for label in labels) if several else ()

    def line(row: dict, rank_key: str = "rank") -> StandingRow:
        return StandingRow(rank=row[rank_key], name=f"{row['name']} ({row['centre']})", series=row["series"],
                           total=row["total"], diff=row["diff"], percent=row["percent"], tops=row["tops"],
                           solos=row["solos"], warnings=row["warnings"],
                           series_rank=None if scope == "series" else row["rank_series"], game_totals=totals(row))

    rows = tuple(line(row) for row in merged["rows"])
    groups: tuple = ()
    with translation.override(event.language):
        subtitle = ""
        if scope is not None:
            names = dict(event.centres.values_list("code", "name")) if scope == "centre" else {}
            title = {"centre": _("Centre %(group)s"), "series": _("Series %(group)s"),
                     "category": _("Category %(group)s")}[scope]
            subtitle = {"centre": _("By centre"), "series": _("By series"), "category": _("By category")}[scope]

            def named(group: str) -> str:
                text = title % {"group": group or "—"}
                return f"{text} · {names[group]}" if names.get(group) else text

            groups = tuple((named(group), tuple(line(row, f"rank_{scope}") for row in members))
                           for group, members in merged[keys[scope]].items())
    header = Header(tournament=event.name, game=subtitle, language=event.language,
                    provisional=bool(merged["provisional"]))
    return render_standings(Standings(header, rows, merged["sum_tops"], labels if several else (), groups))


def results_file(merged: dict) -> bytes:
    """The event's federation results file (tournaments/exports/federation.py, the game's format): every player of
    the merged standings in their overall order, with the merged total; no table numbers (the centres' tables
    are their own)."""
    from tournaments.exports import results_file as write

    return write({"name": row["name"], "total": row["total"]} for row in merged["rows"])
