"""What every service needs: a game's rules, tiles and lexicon; plays as stored rows; the log; the round in
play and the end of a game."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from tournaments import logchain
from tournaments.errors import ServiceError
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, LogEntry, Round, Tournament
from tournaments.versions import notify_game_changed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Setting:
    """The engine objects a tournament plays with."""

    rules: object
    tileset: object
    lexicon: object
    labelling: str


def setting_of(tournament: Tournament) -> Setting:
    try:
        lexicon = get_lexicon(tournament.lexicon)
    except LookupError:
        raise ServiceError("unknown_lexicon", f"the lexicon {tournament.lexicon!r} is not available",
                           params={"lexicon": tournament.lexicon}) from None
    return Setting(tournament.rules, tournament.tiles, lexicon, tournament.coordinates)


def play_to_dict(play, labelling: str) -> dict:
    from engine.notation import format_ref

    return {
        "word": play.word,
        "ref": format_ref(play.row, play.col, play.horizontal, labelling),
        "score": play.score,
        "row": play.row,
        "col": play.col,
        "horizontal": play.horizontal,
        "tiles": [list(tile) for tile in play.tiles],
        "words": list(play.words),
    }


def play_from_dict(data: dict):
    from engine.movegen import Play

    return Play(
        word=data["word"],
        row=data["row"],
        col=data["col"],
        horizontal=data["horizontal"],
        score=data["score"],
        tiles=tuple(tuple(tile) for tile in data["tiles"]),
        words=tuple(data.get("words", ())),
    )


def tiles_left(rack: str, play: dict | None) -> str:
    """The rack letters a play leaves unplayed (kept for the next draw), in rack order."""
    used = Counter("?" if is_blank else letter.upper() for _, _, letter, is_blank in (play or {}).get("tiles", ()))
    left = []
    for ch in rack:
        if used[ch] > 0:
            used[ch] -= 1
        else:
            left.append(ch)
    return "".join(left)


def sorted_letters(letters) -> str:
    from engine.drawing import sort_tiles

    return sort_tiles(letters)


def late_message(late_by: float) -> str:
    """The message of a result that reads late."""
    return f"the slip arrived {late_by:.1f} s after the end call"


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


def round_in_play(game: Game) -> Round | None:
    return game.rounds.in_play().first()


def end_game(game: Game, reason: str, actor=None) -> None:
    game.status = Game.Status.OVER
    game.end_reason = reason
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "end_reason", "ended_at"])
    log(game=game, action="game_end", actor=actor, after={"reason": reason})
    notify_game_changed(game.pk)
