"""A pre-drawn game: the whole game played alone, round after round, before the event (issue 25, part 1).

``draw_game`` plays it from a seed with the rules' draws (``engine.drawing.draw_rack``, rejections
recorded), the engine's search (``engine.search.find_tops``) and the default master choice
(``engine.master.choose_master``, the arbitrator's proposal in a live game). Round ``n`` draws with
``random.Random(f"{seed}:{n - 1}")``, the generator the service uses for a game whose racks are all drawn at
random (``Game.seed``, ``Game.draws``): the same seed gives the same game, here as in a live room.

``replay_game`` rebuilds a game from its rounds as recorded elsewhere (racks and masters named by word and
reference, e.g. a game record): every rack is checked against the bag and every master against the board.

``profile`` says what a candidate game is like, so the organiser can choose or reject it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace

from .board import Board
from .checking import PlayError, check_play
from .drawing import (
    Draw,
    RackError,
    check_typed_rack,
    draw_rack,
    explosive_chooser,
    game_is_over,
    replace_played_blanks,
    sort_tiles,
    tile_order,
)
from .master import choose_master, leave
from .notation import NotationError, format_ref, parse_ref
from .play import Play
from .search import find_tops, score_spread

HARDEST_SHOWN = 3  # rounds named by a profile as the hardest, unless asked otherwise
MAX_CANCELLED_IN_A_ROW = 50  # racks in a row without a play after which the game is over


class PregameError(ValueError):
    """A game that cannot be rebuilt: ``code`` (``bad_rack``, ``bad_master``), ``round`` and ``detail``."""

    def __init__(self, code: str, round_number: int, detail: str):
        self.code = code
        self.round = round_number
        self.detail = detail
        super().__init__(f"round {round_number}: {detail}")


@dataclass(frozen=True)
class PregameRound:
    number: int
    rack: str  # display order: kept letters first
    kept: str
    drawn: str
    rejected: tuple[str, ...]  # draws refused by the vowel/consonant rule before this rack (-KEPT+NEW)
    cancelled: tuple[str, ...]  # racks drawn before this one that had no play at all (§3.6)
    master: Play | None
    top_score: int | None
    tied_tops: int  # distinct plays scoring the top
    plays: int  # every legal play with this rack on this board
    board: tuple[str, ...]  # the board the rack was played on


@dataclass(frozen=True)
class Pregame:
    seed: int | None  # None for a game rebuilt from a record
    rounds: tuple[PregameRound, ...]
    board: tuple[str, ...]  # after the last master
    left: str  # the letters never placed (bag and last leave), sorted
    end_reason: str  # "game_over" (§3.7), "no_play", "max_rounds" or "recorded"


def _round(number, board: Board, draw, master, cancelled, lexicon, tileset, rules) -> PregameRound:
    spread = score_spread(board, draw.rack, lexicon, tileset, rules)
    top = max(spread) if spread else None
    return PregameRound(number=number, rack=draw.rack, kept=draw.kept, drawn=draw.drawn,
                        rejected=tuple(draw.rejected), cancelled=tuple(cancelled), master=master, top_score=top,
                        tied_tops=spread.get(top, 0) if top is not None else 0, plays=sum(spread.values()),
                        board=tuple(board.rows()))


def draw_game(seed: int, lexicon, tileset, rules, max_rounds: int | None = None) -> Pregame:
    """Play a whole game from ``seed``: each round the rack drawn by the rules, the tops found, the master
    chosen by default and placed, its leave kept; until the game is over (§3.7) or ``max_rounds`` are played.

    The ``k``-th random draw (0-based, a cancelled round's included) uses ``random.Random(f"{seed}:{k}")``, as
    the service does with ``Game.seed`` and ``Game.draws``. A rack with no play at all is cancelled (§3.6):
    its letters go back into the bag, it is listed in the next round's ``cancelled``, and a new rack is drawn;
    when the bag then holds no more than a rack, or ``MAX_CANCELLED_IN_A_ROW`` racks in a row had no play, the
    game is over (``no_play``)."""
    board = Board.empty()
    bag = sorted(tileset.full_bag(), key=tile_order)
    kept = ""
    rounds: list[PregameRound] = []
    cancelled: list[str] = []
    draws = 0
    end_reason = "game_over"
    while True:
        number = len(rounds) + 1
        if max_rounds is not None and number > max_rounds:
            end_reason = "max_rounds"
            break
        if game_is_over(bag, kept, tileset, rules, round_number=number):
            break
        try:
            chooser = explosive_chooser(board, lexicon, tileset, rules) if rules.explosive else None
            draw = draw_rack(bag, kept, number, random.Random(f"{seed}:{draws}"), tileset, rules, choose_blank=chooser)
        except RackError as error:
            if error.code != "game_over":
                raise
            break
        draws += 1
        tops = find_tops(board, draw.rack, lexicon, tileset, rules)
        if tops.score is None:
            cancelled.append(draw.rack)
            bag, kept = sorted(list(draw.bag) + list(draw.rack), key=tile_order), ""
            if len(bag) <= rules.rack_size or len(cancelled) >= MAX_CANCELLED_IN_A_ROW:
                end_reason = "no_play"
                break
            continue
        master = choose_master(tops, board, list(draw.bag), tileset, rules, rack=draw.rack)
        rounds.append(_round(number, board, draw, master, cancelled, lexicon, tileset, rules))
        cancelled = []
        bag, kept = list(draw.bag), leave(draw.rack, master)
        board, bag = _place_master(board, master, bag, rules)
    return Pregame(seed=seed, rounds=tuple(rounds), board=tuple(board.rows()), left=sort_tiles(bag + list(kept)),
                   end_reason=end_reason)


def _place_master(board: Board, master, bag: list[str], rules) -> tuple[Board, list[str]]:
    """The board after the master, and the bag: in joker and explosive games a blank the master placed becomes
    its letter while the bag holds one, and goes back into the bag (drawing.replace_played_blanks)."""
    board = board.place(master)
    if rules.joker or rules.explosive:
        board, bag, _letters = replace_played_blanks(board, master.tiles, bag,
                                                     replace(rules, joker=True, explosive=False))
    return board, list(bag)


def replay_game(rounds, lexicon, tileset, rules, labelling: str = "rows-letters") -> Pregame:
    """Rebuild a game from its played rounds, in order: an iterable of ``(rack, master, rejected)``, ``master``
    a dict holding ``word`` and ``ref`` (in ``labelling``), ``rejected`` the draws refused before the rack.

    Each rack must be letters of the bag completing the letters kept from the last master (or, after a
    rejection or a cancelled round, letters of the bag and the kept ones: they went back); each master a
    legal play of that rack on that board, scored here. PregameError names the round at fault."""
    board = Board.empty()
    bag = sorted(tileset.full_bag(), key=tile_order)
    kept = ""
    played: list[PregameRound] = []
    # An explosive rack is recorded after its blank became a letter: checked as drawn from the bag as it is.
    typed_rules = replace(rules, explosive=False) if rules.explosive else rules
    for number, (rack, master, rejected) in enumerate(rounds, start=1):
        letters = "".join(str(rack or "").replace("+", "").split()).upper()
        whole_new = bool(rejected) or not Counter(kept) <= Counter(letters)
        try:
            draw = check_typed_rack(bag, kept, letters, number, tileset, typed_rules, after_rejection=whole_new)
        except RackError as error:
            raise PregameError("bad_rack", number, error.message) from None
        if not isinstance(master, dict):
            raise PregameError("bad_master", number, "the round has no master")
        try:
            ref = parse_ref(str(master.get("ref", "")), labelling)
            play = check_play(board, draw.rack, str(master.get("word", "")), ref.row, ref.col, ref.horizontal,
                              lexicon, tileset, rules)
        except (NotationError, PlayError) as error:
            raise PregameError("bad_master", number, str(error)) from None
        draw = Draw(draw.rack, draw.kept, draw.drawn, list(rejected or ()), draw.bag)
        played.append(_round(number, board, draw, play, (), lexicon, tileset, rules))
        bag, kept = list(draw.bag), leave(draw.rack, play)
        board, bag = _place_master(board, play, bag, rules)
    return Pregame(seed=None, rounds=tuple(played), board=tuple(board.rows()), left=sort_tiles(bag + list(kept)),
                   end_reason="recorded")


def hardness(round: PregameRound) -> tuple:
    """How hard a round's top is to find, hardest first when sorted: the fewest distinct plays scoring the
    top (``tied_tops``: one play alone is harder to find than five that score the same), then the smallest
    share of all plays that the top's plays are (a lone top among 900 plays is harder than among 40), then the
    highest top. Rounds without a play come last."""
    if round.top_score is None:
        return (1, 0, 0.0, 0, round.number)
    return (0, round.tied_tops, round.tied_tops / round.plays, -round.top_score, round.number)


def profile(game: Pregame, rules, labelling: str = "rows-letters", hardest: int = HARDEST_SHOWN) -> dict:
    """A candidate game's figures: ``rounds``; ``tops_sum`` (the masters' scores added up); ``bingos``
    (masters earning a bonus: 7 tiles placed, or 8 in 7 et 8, ``rules.bonus_for``); ``blanks`` (blanks the masters placed) and
    ``racks_with_blank`` (racks holding one or more); ``rejected`` (rejected draws); ``hardest``, the
    ``hardest`` rounds by ``hardness`` (round, rack, master, top, tied tops, all plays)."""
    masters = [r.master for r in game.rounds if r.master is not None]
    ranked = sorted((r for r in game.rounds if r.top_score is not None), key=hardness)[:hardest]
    return {
        "rounds": len(game.rounds),
        "tops_sum": sum(m.score for m in masters),
        "bingos": sum(1 for m in masters if rules.bonus_for(len(m.tiles))),
        "blanks": sum(1 for m in masters for *_, is_blank in m.tiles if is_blank),
        "racks_with_blank": sum(1 for r in game.rounds if "?" in r.rack),
        "rejected": sum(len(r.rejected) for r in game.rounds),
        "hardest": [
            {"round": r.number, "rack": r.rack, "top": r.top_score, "tied_tops": r.tied_tops, "plays": r.plays,
             "master": master_text(r.master, labelling)}
            for r in ranked
        ],
    }


def master_text(play: Play | None, labelling: str = "rows-letters") -> str:
    if play is None:
        return "—"
    return f"{play.word} {format_ref(play.row, play.col, play.horizontal, labelling)} {play.score}"
