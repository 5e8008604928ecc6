"""A game played from a sealed pack (issue 25, the centre; docs/packs.md): what the usual services do
differently for it. The pack is imported and unlocked by tournaments/centre.py; here only its opened game
(``GamePack.game_text``, empty until the key is given) is read.

- Each draw reveals the pack's next rack, with the draws it recorded as rejected; a rack the pack's game had
  cancelled for want of a play (§3.6) is revealed first and is cancelled at the close as in a live game.
- The master is the pack's: it is set when the round closes, and choosing another is refused
  (409 ``pack_master``).
- Anything that would change the game's sequence (a rack typed or replaced, a physical draw rejected) is
  refused (409 ``pack_sequence``). Before the key is given, no rack can be drawn (409 ``pack_locked``).
- A round paused, extended, or cancelled and drawn again keeps its rack: a cancelled round gives the same
  rack back.
"""

from __future__ import annotations

import json

from tournaments.errors import Conflict
from tournaments.models import Game, GamePack, Round

# The end of a game whose pack has no more rounds.
PACK_END = "pack_end"


def pack_of(game: Game) -> GamePack | None:
    return GamePack.objects.filter(game_id=game.pk).first()


def is_sealed(game_id: int) -> bool:
    return GamePack.objects.filter(game_id=game_id).exists()


def refuse_if_sealed(game_id: int, why: str) -> None:
    """409 ``pack_sequence`` for an action that would change a pack's sequence (``why``: ``typed``,
    ``rejected``, ``fix``)."""
    if is_sealed(game_id):
        raise Conflict("pack_sequence", params={"why": why})


def _rounds(pack: GamePack) -> list[dict]:
    if pack.unlocked_at is None or not pack.game_text:
        raise Conflict("pack_locked")
    return json.loads(pack.game_text)["rounds"]


def pack_rounds_count(pack: GamePack) -> int:
    return len(_rounds(pack))


def next_pack_rack(game: Game, number: int) -> tuple[str, list[str]] | None:
    """The rack the next draw of round ``number`` reveals and the draws recorded as rejected before it;
    None when the pack has no round ``number`` (its game is over). A rack the pack's game cancelled (no
    play) comes first, once per cancellation already made at a close."""
    pack = pack_of(game)
    rounds = _rounds(pack)
    if number > len(rounds):
        return None
    recorded = rounds[number - 1]
    racks = [*recorded.get("cancelled", ()), recorded["rack"]]
    # Rounds of this number cancelled at the close for want of a play (an arbitrator's cancellation has a
    # reason, and is drawn again with the same rack).
    done = Round.objects.filter(game_id=game.pk, number=number, status=Round.Status.CANCELLED,
                                cancel_reason="").count()
    if done < len(racks) - 1:
        return racks[done], []
    return recorded["rack"], list(recorded.get("rejected") or ())


def pack_master(game_id: int, number: int) -> dict | None:
    """The pack's master of round ``number`` (word, row, col, horizontal, score, tiles), or None."""
    pack = GamePack.objects.filter(game_id=game_id).first()
    if pack is None:
        return None
    rounds = _rounds(pack)
    return rounds[number - 1]["master"] if number <= len(rounds) else None


def master_for(round: Round, tops: list[dict]) -> dict | None:
    """The round's master in a pack's game: the tied top that is the pack's master (as the tops are written),
    else the pack's master as recorded. None for a game without a pack."""
    master = pack_master(round.game_id, round.number)
    if master is None:
        return None
    where = (master["row"], master["col"], master["horizontal"], master["word"])
    for top in tops or ():
        if (top["row"], top["col"], top["horizontal"], top["word"]) == where:
            return top
    return master
