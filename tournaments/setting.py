"""What a game plays with: its rules, tiles and lexicon (the engine's objects), its plays as stored rows, and
the judgement of one slip by the rules.

Below the services and the readers alike: the services (tournaments.services, which name these on their face)
and the readers (tournaments.selectors, review_selectors, training_selectors) both import it; it imports
neither."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip, zero
from tournaments.errors import ServiceError
from tournaments.lexicons import get_lexicon
from tournaments.models import Round, Slip, Tournament


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
        raise ServiceError("unknown_lexicon",
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


def judge(setting: Setting, round: Round, slip: Slip | None, board=None):
    """The engine's judgement of one player's slip in this round (``no_slip`` without one)."""

    if slip is None:
        return zero("no_slip")
    if slip.several:
        return zero("several_slips")
    return judge_slip(
        board if board is not None else Board.from_rows(round.board),
        round.rack,
        round.number,
        EngineSlip(slip.word, slip.ref or None, slip.claimed),
        setting.lexicon,
        setting.tileset,
        setting.rules,
        labelling=setting.labelling,
    )


def placement(setting: Setting, judgement) -> str:
    """The reference of the placement a judgement paid (``H4``), in the tournament's labelling; "" when it
    placed nothing (a zero)."""
    from engine.notation import format_ref

    play = getattr(judgement, "play", None)
    return format_ref(play.row, play.col, play.horizontal, setting.labelling) if play is not None else ""
