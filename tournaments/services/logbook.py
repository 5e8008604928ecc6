"""The game's log: every change a service makes is appended to its chain (tournaments.logchain)."""

from __future__ import annotations

import random
import time

from django.db import connection, transaction
from django.utils import timezone

from tournaments import logchain
from tournaments.models import Game, LogEntry, PendingLogEntry

PLAYER, SERVER = "player", "server"
FLUSH_POLL_SECONDS = 0.01  # how often a slip whose log entry waits looks whether it was chained


def _who(actor, after, by: str):
    """The actor (a signed-in user) or None, and ``after`` naming who acted when no arbitrator did."""
    actor = actor if getattr(actor, "is_authenticated", False) and getattr(actor, "pk", None) else None
    if actor is None:  # no arbitrator acted: the entry says who did ("player": its player; "server": the clock…)
        after = {**(after or {}), "by": by if by in (PLAYER, SERVER) else SERVER}
    return actor, after


def log(*, game, action: str, actor=None, round=None, slip=None, player=None, before=None, after=None,  # noqa: PLR0913 - keyword-only: each argument is named at the call
        reason: str = "", by: str = SERVER, rows: dict | None = None) -> LogEntry:
    """Append an entry to the game's log chain (``tournaments.logchain``). The game's row is locked until the
    caller's transaction commits, so two entries never take the same place in the chain; services lock a
    round before its game, never the other way round, so this last lock keeps their order. The game's
    pending entries (``log_pending``) are appended first.

    Every entry names who acted: an arbitrator (``actor``, a signed-in user), else ``after["by"]``:
    ``"player"`` (the entry's player, from their phone) or ``"server"`` (the clock, a restore's playback, a
    command).

    ``rows``: the digests of the slips, results and late slips this change wrote (logchain.rows_of), chained
    with the entry (verifylog recomputes them from the rows)."""
    actor, after = _who(actor, after, by)
    with transaction.atomic():
        Game.objects.select_for_update().filter(pk=game.pk).values_list("pk").first()
        last = LogEntry.objects.filter(game_id=game.pk).order_by("-seq").values("seq", "hash").first()
        entries = _take_pending(game.pk)
        entry = LogEntry(
            game=game, round=round, slip=slip, player=player, actor=actor, action=action,
            before=logchain.normalised(before), after=logchain.normalised(after), reason=reason, rows=rows or None,
        )
        _chain(last, [*entries, entry])
        if entries:
            LogEntry.objects.bulk_create(entries)
        entry.save(force_insert=True)
    return entry


def lock_game_if_free(game_id: int) -> bool:
    """Lock the game's row for the caller's transaction when no other transaction holds it (on PostgreSQL;
    elsewhere it waits, as ``log`` does); return whether it is locked."""
    skip = connection.vendor == "postgresql"
    return Game.objects.select_for_update(skip_locked=skip).filter(pk=game_id).values_list("pk").first() is not None


def log_pending(*, game, action: str, actor=None, round=None, slip=None, player=None, before=None, after=None,  # noqa: PLR0913 - keyword-only: each argument is named at the call
                reason: str = "", by: str = SERVER, rows: dict | None = None) -> PendingLogEntry:
    """Write an entry in the caller's transaction without taking the game's lock: it joins the chain at the
    next ``flush_pending`` (call it once the transaction has committed) or the next ``log`` of the game,
    whichever comes first. For the crowd of slips served after a close: each is judged in its own
    transaction, side by side, and their entries are chained many at a time."""
    actor, after = _who(actor, after, by)
    return PendingLogEntry.objects.create(
        game_id=game.pk, round=round, slip=slip, player=player, actor=actor, action=action,
        before=logchain.normalised(before), after=logchain.normalised(after), reason=reason, rows=rows or None,
    )


def head(game_id: int) -> tuple[int, str]:
    """The game's chain head: its last entry's place and hash (0 and the genesis value for an empty log)."""
    last = LogEntry.objects.filter(game_id=game_id).order_by("-seq").values_list("seq", "hash").first()
    return (last[0], last[1]) if last else (0, logchain.GENESIS)


def flush_pending(game_id: int, mine: int | None = None) -> int:
    """Append the game's pending entries to its chain, in the order they were written, in one transaction;
    return how many this call appended. ``mine``: a pending entry of the caller, committed. On PostgreSQL,
    while another call holds the game's lock this one does not queue behind it: it looks every
    FLUSH_POLL_SECONDS whether its entry was taken meanwhile (then returns) or the lock is free (then
    appends whatever is pending), so that one transaction chains the entries of a whole crowd."""
    skip = connection.vendor == "postgresql" and not connection.in_atomic_block
    while True:
        with transaction.atomic():
            locked = Game.objects.select_for_update(skip_locked=skip).filter(pk=game_id).values_list("pk").first()
            if locked is not None:
                entries = _take_pending(game_id)
                if not entries:
                    return 0
                last = LogEntry.objects.filter(game_id=game_id).order_by("-seq").values("seq", "hash").first()
                _chain(last, entries)
                LogEntry.objects.bulk_create(entries)
                return len(entries)
        if mine is None or not PendingLogEntry.objects.filter(pk=mine).exists():
            return 0  # no entry of this caller waits: the holder of the lock takes what is pending
        time.sleep(FLUSH_POLL_SECONDS * (0.5 + random.random()))


def _take_pending(game_id: int) -> list[LogEntry]:
    """The game's pending entries, in the order they were written, as log entries not yet chained; removed
    from the pending ones (the caller's transaction holds the game's lock, and stores them)."""
    pending = list(PendingLogEntry.objects.filter(game_id=game_id).order_by("id"))
    if pending:
        PendingLogEntry.objects.filter(pk__in=[p.pk for p in pending]).delete()
    return [LogEntry(game_id=p.game_id, round_id=p.round_id, slip_id=p.slip_id, player_id=p.player_id,
                     actor_id=p.actor_id, action=p.action, before=p.before, after=p.after, reason=p.reason,
                     rows=p.rows)
            for p in pending]


def _chain(last, entries: list[LogEntry]) -> None:
    """Number, time and hash ``entries`` after ``last`` (the chain's last entry's seq and hash, or None)."""
    seq, prev = (last["seq"], last["hash"]) if last else (0, logchain.GENESIS)
    for entry in entries:
        seq += 1
        entry.at, entry.seq, entry.prev_hash = timezone.now(), seq, prev
        entry.hash = prev = logchain.hash_of(entry)
