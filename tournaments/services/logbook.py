"""The game's log: every change a service makes is appended to its chain (tournaments.logchain)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from tournaments import logchain
from tournaments.models import Game, LogEntry

PLAYER, SERVER = "player", "server"


def log(*, game, action: str, actor=None, round=None, slip=None, player=None, before=None, after=None,  # noqa: PLR0913 - keyword-only: each argument is named at the call
        reason: str = "", by: str = SERVER) -> LogEntry:
    """Append an entry to the game's log chain (``tournaments.logchain``). The game's row is locked until the
    caller's transaction commits, so two entries never take the same place in the chain; services lock a
    round before its game, never the other way round, so this last lock keeps their order.

    Every entry names who acted: an arbitrator (``actor``, a signed-in user), else ``after["by"]``:
    ``"player"`` (the entry's player, from their phone) or ``"server"`` (the clock, a restore's playback, a
    command)."""
    actor = actor if getattr(actor, "is_authenticated", False) and getattr(actor, "pk", None) else None
    if actor is None:  # no arbitrator acted: the entry says who did ("player": its player; "server": the clock…)
        after = {**(after or {}), "by": by if by in (PLAYER, SERVER) else SERVER}
    with transaction.atomic():
        Game.objects.select_for_update().filter(pk=game.pk).values_list("pk").first()
        last = LogEntry.objects.filter(game_id=game.pk).order_by("-seq").values("seq", "hash").first()
        entry = LogEntry(
            game=game, round=round, slip=slip, player=player, actor=actor, action=action,
            before=logchain.normalised(before), after=logchain.normalised(after), reason=reason,
            at=timezone.now(), seq=(last["seq"] + 1) if last else 1,
            prev_hash=last["hash"] if last else logchain.GENESIS,
        )
        entry.hash = logchain.hash_of(entry)
        entry.save(force_insert=True)
    return entry
