"""The home page, the player's phone page, the join page, the projector, and the live feed they (and the
console) follow."""

from __future__ import annotations

import asyncio
import re

import segno
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from rest_framework.exceptions import AuthenticationFailed

from engine.layout import CENTRE, SIZE, STANDARD
from engine.notation import labels
from tournaments import reading
from tournaments.api.authentication import PlayerTokenAuthentication
from tournaments.errors import error_body
from tournaments.live import snapshot as live_snapshot
from tournaments.live import stream as live_stream
from tournaments.models import Game, Round
from tournaments.topping_selectors import is_topping
from tournaments.web.language import phone_language

PREMIUM_CLASS = {"W": "tw", "w": "dw", "L": "tl", "l": "dl", ".": ""}
HOME_GAMES = 30  # at most this many games in play on the home page, the latest first
NOT_CODE = re.compile(r"[^A-Z0-9]")


def public_url(request: HttpRequest, path: str) -> str:
    """The address of ``path`` (from ``reverse``) that the players' phones can open.

    ``settings.ARBITER_PUBLIC_URL`` (PUBLIC_URL) when set: the console may be open on http://127.0.0.1
    while phones reach the machine at its address on the club's network. Otherwise the address this
    request came to. Used for every link and QR code meant for a phone."""
    base = settings.ARBITER_PUBLIC_URL
    if base:
        return base.rstrip("/") + path
    return request.build_absolute_uri(path)


def tile_labels(tiles) -> dict[str, str]:
    """The labels of a tile set's tiles that are not their storage character (``Θ`` -> ``CH``, ``Δ`` -> ``Ñ``),
    for the pages' scripts (static/js/board.js's setTileLabels); empty for English and French, whose tiles
    are their letters."""
    if tiles is None or tiles.plain:
        return {}
    return {letter.letter: letter.shown for letter in tiles.letters if letter.shown != letter.letter}


def board_context(rows: list[str] | None, coordinates: str = "rows-letters", marked=(), tiles=None) -> dict:
    """Context for templates/partials/board.html: labels in the tournament's labelling, premiums, tiles.

    ``rows``: 15 strings, row A (top) first, ``.`` empty, uppercase a tile, lowercase a blank.
    ``marked``: the squares (row, column) of the last move, drawn as new (static/js/board.js's fillBoard
    marks the same squares when the page follows the game). ``tiles``: the tournament's tile set, whose
    labels the squares show (a CH tile is one square reading CH).
    """
    rows = list(rows or ["." * SIZE] * SIZE)
    marked = {(row, col) for row, col in marked or ()}
    row_labels, column_labels = labels(coordinates)
    grid = []
    for r in range(SIZE):
        line = rows[r] if r < len(rows) else ""
        cells = []
        for c in range(SIZE):
            ch = line[c] if c < len(line) else "."
            cells.append({
                "row": r,
                "col": c,
                "premium": PREMIUM_CLASS[STANDARD[r][c]],
                "centre": (r, c) == CENTRE,
                "letter": "" if ch == "." else (tiles.label(ch.upper()) if tiles is not None else ch.upper()),
                "blank": ch != "." and ch.islower(),
                "fresh": ch != "." and (r, c) in marked,
            })
        grid.append({"label": row_labels[r], "cells": cells})
    return {"labelling": coordinates, "columns": list(column_labels), "rows": grid}


def reason_texts() -> dict[str, str]:
    """What each outcome reason of a paid slip means, in the reader's language."""
    return {
        "ok": _("Correct."),
        "wrong_score": _("The score written was wrong: you are paid the real score, with a warning."),
        "reversed_ref": _("The reference was reversed (across/down): paid, with a warning."),
        "wrong_ref": _("The reference was wrong, but the score is reachable by that word: penalty."),
        "first_round_best": _("First round: paid the best score this word can make."),
        # %(word)s %(placement)s: the word written and the placement paid (static/js/reasons.js fills them in).
        "first_round_best_wrong_score": _("First round: paid as %(word)s %(placement)s, the best placement of the "
                                          "word; the score written was not its score: a warning."),
        "blank_not_marked": _("A blank was not marked: paid the lowest reading, with a warning."),
        "stray_blank_mark": _("A letter of the rack was marked as a blank: paid as the real tile, with a warning."),
        "invalid_word": _("A word formed is not in the word list."),
        "not_in_rack": _("The letters played are not in the rack."),
        "does_not_fit": _("The play does not fit on the board."),
        "not_connected": _("The play does not touch the tiles on the board."),
        "not_centre": _("The first play must cover the centre square."),
        "bad_ref": _("The reference names no square."),
        "bad_word": _("The word is not written with letters only."),
        "no_slip": _("No slip was handed in."),
        "late": _("The slip arrived after the end of the round."),
        "several_slips": _("Two different slips were handed in: paid 0."),
    }


def reason_text(reason: str, word: str | None, placement: str, message: str = "",
                reasons: dict[str, str] | None = None) -> str:
    """A result's reason in the reader's language (``reason_texts``), with the play it names filled in: the
    word written and the placement paid; the result's own message for a reason without a text."""
    text = (reasons if reasons is not None else reason_texts()).get(reason)
    if text is None:
        return message or reason
    return text % {"word": word or "", "placement": placement or ""} if "%(" in text else text


def outcome_texts() -> dict[str, str]:
    return {"ok": _("OK"), "warning": _("Warning"), "penalty": _("Penalty"), "zero": _("Zero")}


def phone_texts() -> dict[str, str]:
    return {
        "waiting": _("Waiting for the next rack"),
        "drawn": _("Rack drawn: the clock starts soon"),
        "open": _("Round open: hand in your slip"),
        "closed": _("Round closed"),
        "over": _("The game is over"),
        "round_n": _("Round %(n)s"),
        "call30": _("30 seconds left"),
        "time_up": _("Time is up"),
        "paused": _("Clock paused by the arbitrator: wait"),
        "cancelled": _("Round %(n)s cancelled: %(reason)s"),
        "sending": _("Sending your slip…"),
        "accepted": _("Accepted: the arbitrator holds this slip."),
        "retrying": _("Not received yet (no network). Retrying with the same slip…"),
        "refused_closed": _("Not accepted: the round was closed before the slip arrived."),
        "refused": _("Not accepted: %(message)s"),
        "refused_stale": _("Not accepted: a newer slip is already held; it is the one below, and it counts."),
        "need_word": _("Write the word."),
        "need_ref": _("Pick the start square on the board or type the reference (e.g. H4 across, 4H down)."),
        "bad_ref": _("This reference names no square."),
        "across": _("across"),
        "down": _("down"),
        "blank": _("blank"),
        "kept": _("kept from the last round"),
        "points": _("%(n)s points"),
        "no_score": _("no score written"),
        "received_at": _("received at %(time)s"),
        "sealed": _("sealed by the server: %(code)s"),
        "you_hold": _("Your slip: %(word)s at %(ref)s, %(score)s"),
        "replace": _("Replace my slip"),
        "submit": _("Hand in my slip"),
        # Topping (docs/rules.md 7.5): the phone's own time, never the top.
        "topping_running": _("Your time: %(n)s s"),
        "topping_found": _("Top found in %(n)s s"),
        "topping_missed": _("Not the top: try again"),
        "topping_finders": _("Found the top: %(names)s"),
        "top": _("Top"),
        "master": _("Master move"),
        "yours": _("Your result"),
        "paid": _("paid %(n)s"),
        "bonus": _("including the bonus of %(n)s for a bingo"),
        "claimed": _("claimed %(n)s"),
        "no_play": _("no play possible"),
        "top_score": _("%(n)s points"),
        "tied": _("%(n)s points, %(count)s plays"),
        "live": _("live"),
        "reconnecting": _("reconnecting…"),
        "offline": _("offline: retrying"),
        "polling": _("live (polling)"),
        "degraded": _("Live updates are slower for a moment: the server reads the database directly. Every slip is kept."),
        # Nothing heard from the server for ARBITER_LIVE_SILENT_SECONDS (a frozen or sleeping laptop).
        "silent": _("No news from the server for %(n)s s"),
        "silent_phase": _("The server is not answering: a slip may not reach it in time. Tell the arbitrator."),
        "refused_late_sent": _("Not accepted: sent %(n)s s before the end, but the server did not answer in time. "
                               "Ask the arbitrator."),
        "not_joined": _("You have not joined this game on this device."),
        "bag": _("Bag"),
        "table": _("table %(n)s"),
        "slips": _("Slips received: %(received)s / %(players)s"),
        "closed_form": _("The round is closed: no slip can be handed in or changed."),
        # The game over, on the phone: the player's total, the sum of the tops and the percentage.
        "final_result": _("Your game: %(total)s points of %(tops)s, %(percent)s of the top"),
    }


def _tile_values(game: Game) -> dict[str, int]:
    try:
        tiles = game.tournament.tiles
        return {letter.letter: letter.value for letter in tiles.letters}
    except Exception:  # an unknown tile set only loses the small values on the rack tiles
        return {}


def _labels_config(game: Game) -> dict:
    """``{"labels": {...}, "keys": [...]}`` for a page's config when the game's tile set has labels beyond its
    storage characters (the digraph keys of the slip form: each tile of several letters, and Ñ/Ç); nothing
    for English and French, whose pages stay as they were."""
    tiles = game.tournament.tiles
    labels = tile_labels(tiles)
    if not labels:
        return {}
    keys = [label for label in labels.values() if len(label) > 1 or not label.isascii()]
    return {"labels": labels, "keys": keys, "keys_label": _("Tiles of several letters")}


def _game_or_404(game_id: int) -> Game:
    return get_object_or_404(Game.objects.select_related("tournament"), pk=game_id)


def _page_context(game: Game) -> dict:
    snapshot = reading.game_snapshot(game.pk) or {}
    state = snapshot.get("game", {})
    coordinates = game.tournament.coordinates
    return {
        "game": game,
        "tournament": game.tournament,
        "snapshot": snapshot,
        "board": board_context(state.get("board") or game.board, coordinates,
                               (snapshot.get("last") or {}).get("placed"), game.tournament.tiles),
        "config": {
            "game": game.pk,
            "labelling": coordinates,
            "values": _tile_values(game),
            **_labels_config(game),
            "round_seconds": game.tournament.round_seconds,
            "topping": is_topping(game.tournament),
            "silent_seconds": settings.ARBITER_LIVE_SILENT_SECONDS,
            "text": phone_texts(),
            "reasons": reason_texts(),
            "outcomes": outcome_texts(),
            "join_url": reverse("join"),
        },
    }


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The landing page: join a game with its code, the arbitrator's console, the games in play (not over,
    not archived).

    The games are listed without any link: a join code is shown only by the projector and the console (anyone
    who can open this page could join any game with it), and the projector's link is the console's to give."""
    typed = request.GET.get("code")
    error = ""
    if typed is not None:
        code = NOT_CODE.sub("", typed.upper())
        if code:
            return redirect("join-code", code=code)
        error = _("Type the game code.")
    current = Round.objects.filter(game=OuterRef("pk")).current()
    games = list(
        Game.objects.exclude(status=Game.Status.OVER).filter(archived_at__isnull=True)
        .select_related("tournament")
        .annotate(round_number=Subquery(current.values("number")[:1]))
        .order_by("-created_at", "-pk")[:HOME_GAMES]
    )
    return render(request, "home.html", {"games": games, "code_error": error}, status=400 if error else 200)


@require_GET
def join_page(request: HttpRequest, code: str = "") -> HttpResponse:
    """Join a game with its code (typed, or from the QR code that opens /join/<code>)."""
    join_text = {
        "joining": _("Joining…"),
        "failed": _("Could not join: %(message)s"),
        "offline": _("No network: try again."),
        "missing": _("Type the game code and your name."),
        "table_taken": _("Table %(table)s is taken: type another number, or leave it empty to get the next free table."),
        "bad_table": _("A table number is a whole number from 1 to %(max)s."),
        "table_max": 10000,
        # The language of this page, which the player joins in and their phone keeps (web/language.py).
        "language": translation.get_language(),
    }
    return render(request, "phone/join.html", {"code": code.upper(), "join_text": join_text})


@require_GET
def phone_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The player's phone: board, rack, countdown, the slip, the receipt and the results. In the tournament's
    language unless this phone chose another one (tournaments/web/language.py)."""
    game = _game_or_404(game_id)
    language = phone_language(request, game.tournament)
    with translation.override(language):
        response = render(request, "phone/play.html", _page_context(game))
    response["Content-Language"] = language
    return response


@require_GET
def projector_page(request: HttpRequest, key: str) -> HttpResponse:
    """The hall's screen: large board, rack, countdown, last top and master, top of the standings, and the join
    code with its QR code for the room.

    Reached through the game's screen key (``/projector/<key>``, from the console), never its number: game
    numbers can be guessed, and the code would let anyone join any game."""
    game = get_object_or_404(Game.objects.select_related("tournament"), screen_key=key) if key else None
    # The hall reads the tournament's language, whatever the browser driving the screen prefers.
    with translation.override(game.tournament.language):
        seconds = projector_page_seconds(request.GET.get("page_seconds"))
        if seconds is None:
            low, high = settings.ARBITER_PROJECTOR_PAGE_SECONDS_BOUNDS
            return HttpResponse(_("page_seconds: a whole number of seconds from %(low)s to %(high)s.")
                                % {"low": low, "high": high}, status=400, content_type="text/plain; charset=utf-8")
        context = _page_context(game)
        join_url = public_url(request, reverse("join-code", args=[game.join_code]))
        context["join_url"] = join_url
        context["join_qr"] = segno.make(join_url, error="m").svg_inline(scale=6, omitsize=True)
        context["config"]["text"].update(projector_texts())
        context["config"]["page_seconds"] = seconds
        context["config"]["standings_url"] = reverse("projector-standings", args=[key])
        return render(request, "projector/projector.html", context)


def projector_texts() -> dict[str, str]:
    """The projector's own words, beside the phone's."""
    return {
        "rank": _("Rank"),
        "player": _("Player"),
        "total": _("Total"),
        "from_top": _("Behind the sum of tops"),
        "page": _("Page %(n)s / %(count)s"),
        # The headline once the game is over, its standings final (paper slips all entered).
        "final": _("Final standings"),
        # The round's top beside its master: "Top: 44 points", never mistaken for the standings' column.
        "top_line": _("Top: %(points)s"),
        "provisional": _("Provisional: paper slips are still being entered"),
        "seconds_total": _("%(n)s s"),  # topping: a total time in seconds
    }


def projector_page_seconds(asked: str | None) -> int | None:
    """Seconds each page of the standings stays on the projector: ``?page_seconds=`` within
    ``ARBITER_PROJECTOR_PAGE_SECONDS_BOUNDS``, else ``ARBITER_PROJECTOR_PAGE_SECONDS``; None when asked badly."""
    if asked is None or asked == "":
        return settings.ARBITER_PROJECTOR_PAGE_SECONDS
    low, high = settings.ARBITER_PROJECTOR_PAGE_SECONDS_BOUNDS
    if not asked.isdigit() or not low <= int(asked) <= high:
        return None
    return int(asked)


@never_cache
@require_GET
def projector_standings(request: HttpRequest, key: str) -> JsonResponse:
    """Every line of the standings, for the projector's pages (the live snapshot carries only the first
    few): rank, name, table, total and difference from the tops, and whether they are provisional."""
    game = get_object_or_404(Game.objects.only("pk"), screen_key=key) if key else None
    body = live_snapshot.hall_standings(game.pk)
    if body is None:
        raise Http404
    return JsonResponse(body)


@never_cache
@require_GET
def game_live(request: HttpRequest, game_id: int) -> JsonResponse:
    """The live snapshot as one JSON answer: the fallback of the event stream and the pages' time source.

    ``?clock=1`` answers only the server's time and the version (for the clock correction).
    """
    now = timezone.now()
    stamp = {"server_time": now.isoformat(), "server_ms": int(now.timestamp() * 1000)}
    if request.GET.get("clock"):
        # Asked by every page as it opens and then once a minute (live.js): the cache answers, the
        # database only for a game that never changed (or does not exist).
        version = live_snapshot.clock_version(game_id)
        if not version and not Game.objects.filter(pk=game_id).exists():
            raise Http404
        if not live_snapshot.cache_available():
            return JsonResponse({**stamp, "version": version, "degraded": True, "notice": phone_texts()["degraded"]})
        # progress: the mark that moves with each slip handed in, where the version does not.
        return JsonResponse({**stamp, "version": version, "progress": live_snapshot.clock_progress(game_id)})
    snapshot = reading.game_snapshot(game_id)
    if snapshot is None:
        raise Http404
    return JsonResponse({**stamp, **snapshot})


@never_cache
@require_GET
def player_feed(request: HttpRequest, game_id: int) -> JsonResponse:
    """The player's own line of the standings and last result (``Authorization: Bearer <player token>``).

    What a phone asks after each close: a few hundred bytes from the cache, where the API's round detail
    and standings carry every player's rows."""
    try:
        found = PlayerTokenAuthentication().authenticate_for_game(request, game_id)
    except AuthenticationFailed:
        found = None
    player = found[0].player if found else None
    if player is None:
        return JsonResponse(error_body("not_authenticated", _("A player token of this game is needed.")), status=401)
    view = reading.player_view(game_id, player.pk)
    if view is None:
        raise Http404
    return JsonResponse({"player": player.pk, "name": player.name, "table": player.table, **view})


@require_GET
async def game_events(request: HttpRequest, game_id: int) -> StreamingHttpResponse:
    """Server-sent events: the snapshot at once, then at every change (``?progress=1``: slip counts too)."""
    progress = bool(request.GET.get("progress"))
    if isinstance(request, ASGIRequest):
        # The process's watcher builds the snapshot once for every listener of the game. (Not the async
        # ORM here: under ASGI it would hold a database connection for the whole life of each stream.)
        try:
            watched = await live_stream.watcher(reading.close_if_due).open(game_id)
        except TimeoutError:
            return HttpResponse(status=503, headers={"Retry-After": "2"})
        if watched is None:
            raise Http404
        events = live_stream.watcher(reading.close_if_due).stream(watched, progress=progress,
                                                                  heartbeat=live_stream.heartbeat_seconds())
    else:
        if await asyncio.to_thread(reading.snapshot_closing_connections, game_id) is None:
            raise Http404
        events = live_stream.sync_stream(game_id, progress=progress, close_if_due=reading.close_if_due,
                                         heartbeat=live_stream.heartbeat_seconds())
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # a buffering reverse proxy would hold the events back
    return response
