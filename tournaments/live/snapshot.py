"""The cached read model of a game: the public snapshot every page shows, built once per version.

Above the selectors (it assembles their reads) and the services (a reader that finds a round past its
deadline closes it on the way: the deadline is the truth).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time

from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from tournaments import selectors
from tournaments.live.incidents import incidents_shown
from tournaments.models import Game, LogEntry, Player, Result, Round
from tournaments.relay_models import RelayLink, RelayRack
from tournaments.topping_selectors import progress_finders
from tournaments.versions import cache_available, game_version, live_key, progress_mark

logger = logging.getLogger(__name__)

SNAPSHOT_TIMEOUT = 600
SNAPSHOT_BUILD_SECONDS = 5.0
SNAPSHOT_WAIT_SECONDS = 2.0
STANDINGS_SHOWN = 10


# Never the join code: the feed is public and game ids are easy to guess; the code is shown in the hall.
# Nor the count of players: a thousand arrivals must not wake every phone already waiting (it is under
# "progress", sent to the projector and the console only).
PUBLIC_GAME_FIELDS = (
    "id", "status", "round", "round_status", "board", "bag_count", "rack", "kept", "drawn", "rejected",
    "deadline", "coordinates", "labels", "round_seconds", "tileset", "number", "end_reason",
    "tournament", "tournament_name",
)


# Changes of these alone (slips received, arrivals, players' own rows) are sent only to the listeners that
# asked for progress: the phones are not woken by them.
PROGRESS_FIELDS = ("progress", "progress_mark", "players_digest")


def _snapshot_key(game_id: int, version: int) -> str:
    return live_key(game_id, "snapshot", version)


def _player_key(game_id: int, digest: str | None, player_id) -> str:
    return live_key(game_id, "player", digest, player_id)


PLAYERS = "_players"  # the per-player rows build_snapshot hands to game_snapshot, not part of the snapshot


def build_snapshot(game_id: int) -> dict | None:
    """The public state of a game: what any page may show (no slips of other players before the close)."""

    game = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if game is None:
        return None
    state = selectors.game_state(game=game)
    public = {key: state[key] for key in PUBLIC_GAME_FIELDS if key in state}
    current = game.rounds.current().first()
    mark = progress_mark(game_id)  # read before counting: the counts are at least as new as the mark
    progress = {"round": None, "received": None, "players": state.get("players")}
    if current is not None and current.status == Round.Status.OPEN:
        counts = selectors.round_counts(round=current)
        progress = {"round": current.number, "received": counts["received"], "players": counts["players"],
                    **progress_finders(current)}
    last_closed, (last, rows, players) = _scores(game)
    if last is None:
        rows = []  # before the first close the standings are a list of zeros in registration order
    return {
        PLAYERS: players,
        "game_id": game.pk,
        "status": public.get("status", game.status),
        "round": current.number if current is not None else None,
        "round_status": current.status if current is not None else None,
        "deadline": current.deadline.isoformat() if current is not None and current.deadline else None,
        # The round's start and the arbitrator's extensions: a topping phone's running time counts from the
        # start (pauses included) and stops at the round's time with its extensions (docs/rules.md 7.5).
        "started_at": current.started_at.isoformat() if current is not None and current.started_at else None,
        "extended_seconds": current.extended_seconds if current is not None else 0,
        "game": public,
        "last": last,
        "progress": progress,
        "progress_mark": mark,
        "standings": rows[:STANDINGS_SHOWN],
        # The last closed round still waits for paper slips: its standings may change (rounds closed in
        # number order, so the last closed round is the one read above).
        "provisional": last_closed is not None and not last_closed.slips_complete,
        # The game over and open to training (for everyone, or the club's players, whom a phone's player
        # is): the phone links to it.
        "training_open": game.status == Game.Status.OVER and game.training != Game.Training.CLOSED,
        **incidents_shown(game, current),
        "relay": _relay_shown(game.pk),
    }


def _relay_shown(game_id: int) -> dict | None:
    """A game following an organiser's live game (a multiplex, tournaments/relay.py): its link up or down
    since when, and the rounds whose rack differs from the organiser's; None for any other game. In the
    snapshot so that the console's stream tells of a change of the link, which changes nothing else."""
    link = RelayLink.objects.filter(game_id=game_id).values("pk", "down_since").first()
    if link is None:
        return None
    mismatches = list(RelayRack.objects.filter(link_id=link["pk"], compared=RelayRack.Check.MISMATCH)
                      .order_by("number").values_list("number", flat=True))
    return {"up": link["down_since"] is None,
            "down_since": link["down_since"].isoformat() if link["down_since"] else None,
            "mismatches": mismatches}


def _scores_signature(game) -> str:
    """What the standings and the players' results depend on, read in a few small queries: while slips
    arrive it does not move, so the standings are not computed again for every slip."""


    players = Player.objects.in_game(game).aggregate(n=Count("id"), last=Max("id"))
    closed = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number")
                  .values_list("id", "top_score", "master"))
    results = Result.objects.filter(round__game=game, round__status=Round.Status.CLOSED).aggregate(
        n=Count("id"), paid=Sum("paid"), corrected=Count("id", filter=Q(corrected=True)),
        # A late slip arriving after the close turns a "no slip" into "late", paying the same 0.
        late=Count("id", filter=Q(reason="late")))
    log = LogEntry.objects.filter(game=game).aggregate(last=Max("id"))
    # created_at: a game of the same id in a recreated database (the cache outlived it) is another game.
    parts = [game.created_at, game.status, game.tournament.rule_overrides, players, closed, results, log]
    return hashlib.sha256(snapshot_json(parts).encode()).hexdigest()[:24]


def placed_squares(master: dict | None) -> list[list[int]]:
    """The squares (row, column) where a master move put its tiles: the board's last move, which the phone
    and the projector mark (nothing when the round had no play)."""
    return [[row, col] for row, col, *_ in (master or {}).get("tiles", ())]


def _scores(game) -> tuple[Round | None, tuple[dict | None, list[dict], dict]]:
    """The last closed round, and its tops and master, the standings and each player's own rows: from the
    cache while their signature holds.

    The signature is read first, and what it stands for after it: what is stored under a signature is then
    never older than the signature. Read the other way, a close committed in between left the open round's
    standings (no last round) under the closed round's signature, for every later snapshot to find."""

    key = live_key(game.pk, "scores", _scores_signature(game))
    last_closed = game.rounds.filter(status=Round.Status.CLOSED).order_by("-number").first()
    found = cache.get(key)
    if found is not None:
        return last_closed, found
    last = None
    detail = {}
    if last_closed is not None:
        detail = selectors.round_detail(round=last_closed)
        last = {key: detail.get(key) for key in ("number", "rack", "top_score", "tops", "master")}
        last["placed"] = placed_squares(last_closed.master)
        # The players whose result the arbitrator changed after the close: their phones ask for their own
        # line again (a change below the head of the standings moves nothing else a phone is sent).
        last["amended"] = sorted(result["player"] for result in detail.get("results") or [] if result.get("corrected"))
    rows = [
        {**{k: row.get(k) for k in ("rank", "player", "name", "table", "total", "diff", "percent")},
         **({"seconds": row["seconds"]} if "seconds" in row else {})}  # topping: the total time
        for row in selectors.game_standings(game=game)
    ]
    # Each player's own line and last result, kept apart: a phone fetches its own few hundred bytes rather
    # than every player's rows (a thousand phones at the close).
    players = {row["player"]: {"standing": row, "result": None} for row in rows}
    bonus_of = bonus_reader(last_closed) if last_closed is not None else None
    for result in detail.get("results") or []:
        players.setdefault(result["player"], {"standing": None, "result": None})
        players[result["player"]]["result"] = {"round": last_closed.number, **result, "bonus": bonus_of(result)}
    cache.set(key, (last, rows, players), timeout=SNAPSHOT_TIMEOUT)
    return last_closed, (last, rows, players)


LIVE_FIELDS = ("status", "round", "round_status", "deadline")


def live_body(game_id: int) -> dict | None:
    """The body of GET /api/games/{id}/live: version, status, round, round status, deadline, server time
    (None: no game). Read from the one cached snapshot the pages read."""
    return live_body_of(game_id, game_snapshot(game_id))


def live_body_of(game_id: int, snapshot: dict | None) -> dict | None:
    """live_body from a snapshot already read."""
    if snapshot is None:
        return None
    version = snapshot["version"]
    if not isinstance(version, int):  # degraded, without the cache: the counter as the cache last gave it
        version = game_version(game_id)
    return {"version": version, **{key: snapshot[key] for key in LIVE_FIELDS},
            "paused": snapshot.get("paused", False), "time_left": snapshot.get("time_left"),
            "server_time": timezone.now().isoformat()}


def game_snapshot(game_id: int) -> dict | None:
    """The snapshot at the current version. It only reads: a round whose deadline has passed is closed by
    the callers that read for a request or a stream (tournaments/reading.py, the stream's watcher)."""

    snapshot = _cached_snapshot(game_id)
    if snapshot is not None and not snapshot.get("degraded"):
        snapshot = with_progress(snapshot, progress_mark(game_id))
    return snapshot


def degraded_snapshot(game_id: int) -> dict | None:
    """Without the cache: the snapshot from the database alone, marked ``degraded`` for the pages."""
    snapshot = build_snapshot(game_id)
    if snapshot is None:
        return None
    snapshot.pop(PLAYERS, None)
    snapshot["degraded"] = True
    # No version counter without the cache: the content's digest stands for it (pages compare versions).
    snapshot["version"] = "db-" + hashlib.sha256(snapshot_json(snapshot).encode()).hexdigest()[:16]
    return snapshot


def clock_progress(game_id: int) -> int:
    """The progress mark for the pages' clock poll (0 without the cache)."""
    return progress_mark(game_id) if cache_available() else 0


def clock_version(game_id: int):
    """The version the pages' clock poll compares: the counter, or without the cache the digest of the
    state read from the database (None: no such game)."""
    if cache_available():
        version = game_version(game_id)
        if cache_available():
            return version
    snapshot = degraded_snapshot(game_id)
    return None if snapshot is None else snapshot["version"]


def _cached_snapshot(game_id: int) -> dict | None:
    """The snapshot at the current version, from the shared cache when another process already built it.

    After a change a thousand polls may miss the cache at once: one of them builds (a lock in the cache),
    the others wait for its result instead of each opening a database connection."""
    if not cache_available():
        return degraded_snapshot(game_id)
    version = game_version(game_id)
    key = _snapshot_key(game_id, version)
    snapshot = cache.get(key)
    if snapshot is not None:
        return snapshot
    lock = f"{key}:building"
    latest_key = live_key(game_id, "snapshot", "latest")
    if not cache.add(lock, 1, timeout=SNAPSHOT_BUILD_SECONDS):
        waited_until = time.monotonic() + SNAPSHOT_WAIT_SECONDS
        while time.monotonic() < waited_until:
            time.sleep(0.02)
            snapshot = cache.get(key)
            if snapshot is not None:
                return snapshot
        # An overloaded server: rather than a stampede of builds, the state one change behind; its
        # version says so, and the next ask gets the new one.
        snapshot = cache.get(latest_key)
        if snapshot is not None:
            return snapshot
    try:
        # Between our miss and taking the lock, another builder may have finished and let the lock go.
        snapshot = cache.get(key)
        if snapshot is not None:
            return snapshot
        began = time.monotonic()
        snapshot = build_snapshot(game_id)
        if snapshot is None:
            return None
        players = snapshot.pop(PLAYERS, {})
        snapshot["version"] = version
        # The players' rows change only with a close, a master or a correction, not with each slip: they
        # are stored under a digest of their content, written once per content.
        digest = hashlib.sha256(snapshot_json({str(k): v for k, v in players.items()}).encode()).hexdigest()[:20]
        snapshot["players_digest"] = digest
        if cache.add(_player_key(game_id, digest, "written"), 1, timeout=SNAPSHOT_TIMEOUT):
            cache.set_many({_player_key(game_id, digest, pid): row for pid, row in players.items()},
                           timeout=SNAPSHOT_TIMEOUT)
        cache.set_many({key: snapshot, latest_key: snapshot}, timeout=SNAPSHOT_TIMEOUT)
        logger.info("snapshot of game %s at version %s built in %.0f ms (%d players)", game_id, version,
                    (time.monotonic() - began) * 1000, len(players))
    finally:
        cache.delete(lock)
    return snapshot


def bonus_reader(round):
    """The bingo bonus in a result's pay (50 for 7 tiles placed; 75 for 8 in 7 et 8), for the results of one
    round: ``bonus_reader(round)(result)`` is the bonus of the tiles its word placed at the placement paid, on
    the round's board; 0 for a result that pays nothing. The board and the tournament's setting are made once
    (for the thousands of results of a festival's round, not once each)."""
    from engine.board import Board
    from tournaments.setting import setting_of

    setting = setting_of(round.game.tournament)
    board = Board.from_rows(round.board)
    # A hall hands in a few distinct plays many times: each is read once (parsing the word and its square
    # was a third of a whole snapshot's build at 1,000 players).
    known: dict[tuple, int] = {}

    def bonus_of(result: dict) -> int:
        play = (result.get("paid"), result.get("word"), result.get("placement") or result.get("ref"))
        if play not in known:
            known[play] = _bonus(result, setting, board)
        return known[play]

    return bonus_of


def _bonus(result: dict, setting, board) -> int:
    from engine.judging import read_word
    from engine.layout import SIZE
    from engine.notation import RefError, WordError, parse_ref, parse_word

    where = result.get("placement") or result.get("ref")
    if not result.get("paid") or not result.get("word") or not where:
        return 0
    try:
        ref = parse_ref(where, setting.labelling)
        word = parse_word(read_word(result["word"], setting.tileset, setting.lexicon), setting.tileset)
    except (RefError, WordError, ValueError):
        return 0
    squares = [(ref.row, ref.col + i) if ref.horizontal else (ref.row + i, ref.col) for i in range(len(word))]
    placed = sum(1 for row, col in squares if row < SIZE and col < SIZE and not board.tile(row, col))
    return setting.rules.bonus_for(placed)


def player_view(game_id: int, player_id: int) -> dict | None:
    """A player's own standing and last result at the game's current version (None: no such game)."""
    snapshot = game_snapshot(game_id)
    if snapshot is None:
        return None
    if snapshot.get("degraded"):
        built = build_snapshot(game_id) or {}
        row = built.get(PLAYERS, {}).get(player_id) or {"standing": None, "result": None}
        return {"version": snapshot["version"], "last_round": (built.get("last") or {}).get("number"),
                "degraded": True, **row}
    row = cache.get(_player_key(game_id, snapshot.get("players_digest"), player_id))
    if row is None:  # a player who joined since, or a row evicted from the cache
        row = {"standing": None, "result": None}
    return {"version": snapshot["version"], "last_round": (snapshot.get("last") or {}).get("number"), **row}


def without_progress(snapshot: dict) -> dict:
    return {key: value for key, value in snapshot.items() if key not in PROGRESS_FIELDS and key != "version"}


def progress_counts(game_id: int, mark: int) -> dict | None:
    """The slips received in the game's open round, as of progress ``mark`` (cached per mark)."""

    key = live_key(game_id, "progress", mark)
    found = cache.get(key)
    if found is not None:
        return found
    current = Round.objects.filter(game_id=game_id).current().select_related("game__tournament").first()
    if current is None or current.status != Round.Status.OPEN:
        return None
    counts = selectors.round_counts(round=current)
    found = {"round": current.number, "received": counts["received"], "players": counts["players"],
             **progress_finders(current)}
    cache.set(key, found, timeout=SNAPSHOT_TIMEOUT)
    return found


def with_progress(snapshot: dict, mark: int) -> dict:
    """The snapshot with its slip counts as of ``mark`` (itself when nothing moved or no round is open)."""
    if snapshot.get("progress_mark", mark) == mark or snapshot.get("round_status") != "open":
        return snapshot
    counts = progress_counts(snapshot["game_id"], mark)
    if counts is None:
        return snapshot
    return {**snapshot, "progress": counts, "progress_mark": mark}


def snapshot_json(snapshot: dict) -> str:

    return json.dumps(snapshot, cls=DjangoJSONEncoder, separators=(",", ":"))


def closing_connections(function, *args):
    """Run ``function`` in a thread outside any request, closing (returning to the pool) the database
    connection it opened."""
    try:
        return function(*args)
    finally:
        connections.close_all()


def snapshot_closing_connections(game_id: int) -> dict | None:
    """game_snapshot for a thread outside any request: it closes the database connection it opened."""
    return closing_connections(game_snapshot, game_id)


HALL_FIELDS = ("rank", "player", "name", "table", "total", "diff")


def hall_standings(game_id: int) -> dict | None:
    """Every line of the standings, for the projector's pages (the snapshot carries the first
    STANDINGS_SHOWN): from the cache the snapshot's come from; none before the first close (None: no game)."""
    game = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if game is None:
        return None
    last_closed, (last, rows, _) = _scores(game)
    return {
        "round": last["number"] if last else None,
        "provisional": last_closed is not None and not last_closed.slips_complete,
        "standings": [{**{key: row.get(key) for key in HALL_FIELDS},
                       **({"seconds": row["seconds"]} if "seconds" in row else {})}  # topping: the time
                      for row in rows] if last else [],
    }
