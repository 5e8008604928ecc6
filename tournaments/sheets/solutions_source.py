"""The solutions sheet's plain data, read from a game's closed rounds and the engine's best plays.

Like ``sources`` for the other sheets, the only module of the solutions sheet that knows the models. Per
closed round: the rack, the best plays (``engine.search.best_plays``: the master first, then the other tied
tops, then the next best, down to ``ARBITER_SOLUTIONS_PLAYS`` plays in all with every tie at the last score),
how many of the round's players found the top (``selectors.found_top``, as the review counts them), and the
round's solo (rules §3.5, as the standings count it: none below the solo threshold or under rules without
solos).
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.core.cache import cache

from engine.board import Board
from engine.notation import format_ref
from engine.search import best_plays
from engine.tally import count_solos, solos_count
from tournaments import selectors
from tournaments.models import Game, Player, Result, Round
from tournaments.selectors import NOT_PLAYED
from tournaments.services import setting_of

from .solutions import SolutionPlay, SolutionRound, Solutions
from .sources import header_for, rack_display

# A closed round's board and rack never change: its best plays are kept, keyed by the position, the word
# list, the tiles and the rules (a sheet printed again is instant).
_CACHE_SECONDS = 7 * 24 * 3600


def _key(play) -> tuple:
    return (play["row"], play["col"], play["horizontal"], play["word"]) if isinstance(play, dict) else (
        play.row, play.col, play.horizontal, play.word)


def _best(round: Round, setting, count: int) -> list[dict]:
    """The round's ``count`` best plays (and every tie at the last score), best first, as plain dicts."""
    position = hashlib.sha256(json.dumps([round.board, round.rack, setting.tileset.name, repr(setting.rules)]).encode()).hexdigest()
    key = f"solutions:{setting.lexicon.sha256}:{position}:{count}"
    found = cache.get(key)
    if found is None:
        plays = best_plays(Board.from_rows(round.board), round.rack, setting.lexicon, setting.tileset,
                           setting.rules, count)
        found = [{"word": p.word, "row": p.row, "col": p.col, "horizontal": p.horizontal, "score": p.score}
                 for p in plays]
        cache.set(key, found, _CACHE_SECONDS)
    return found


def ordered(plays: list[dict], master: dict | None, labelling: str, tiles=None) -> tuple[SolutionPlay, ...]:
    """The plays with their rank (tied plays share it), the master first among the tops; with the tile set,
    each word by its tiles' labels (CARRO, not the stored CAΞO)."""
    top = plays[0]["score"] if plays else None
    master_key = _key(master) if master else None
    rows, rank = [], 0
    for index, play in enumerate(plays):
        if index == 0 or play["score"] != plays[index - 1]["score"]:
            rank = index + 1
        rows.append(SolutionPlay(
            rank=rank,
            word=tiles.show(play["word"]) if tiles is not None else play["word"],
            ref=format_ref(play["row"], play["col"], play["horizontal"], labelling),
            score=play["score"],
            top=play["score"] == top,
            master=_key(play) == master_key,
        ))
    rows.sort(key=lambda row: (row.rank, not row.master))  # stable: the engine's order otherwise
    return tuple(rows)


def _players_and_scores(game: Game, rounds: list[Round]) -> tuple[dict[int, str], dict[int, dict[int, tuple]]]:
    names = dict(Player.objects.in_game(game).values_list("id", "name"))
    results: dict[int, dict[int, tuple]] = {r.pk: {} for r in rounds}
    for round_id, player_id, paid, reason in Result.objects.filter(round__in=rounds).values_list(
        "round_id", "player_id", "paid", "reason"
    ):
        results[round_id][player_id] = (paid, reason)
    return names, results


def solutions_sheet(game: Game) -> Solutions:
    """The solutions of the game's closed rounds, in round order. A cancelled round is left out: its letters
    went back into the bag and the round was drawn again under its number."""
    tournament = game.tournament
    labelling = tournament.coordinates
    count = settings.ARBITER_SOLUTIONS_PLAYS
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    setting = setting_of(tournament) if rounds else None
    names, results = _players_and_scores(game, rounds)
    found_tops = selectors.found_top(rounds=rounds)  # who found the top, out of whom: as the review counts
    # Solos count as the standings count them (selectors._game_table): the rules have solos and the game had
    # enough players, those who played at least one round; otherwise no round names a solo.
    played_game = {player for paid in results.values() for player, (_paid, reason) in paid.items()
                   if reason not in NOT_PLAYED}
    with_solos = solos_count(len(played_game), tournament.rules)
    lines = []
    for r in rounds:
        rack = rack_display(r.kept, r.drawn, tournament.tiles) if r.kept or r.drawn else tournament.tiles.typed(r.rack)
        plays = _best(r, setting, count) if r.top_score is not None else []
        paid = results[r.pk]
        # Every player of the game, 0 without a result: the round's paid scores as the standings read them.
        scores = {player: paid.get(player, (0, ""))[0] for player in names}
        solo = next(iter(count_solos([scores])), None) if with_solos else None
        lines.append(SolutionRound(
            number=r.number,
            rack=rack,
            plays=ordered(plays, r.master, labelling, tournament.tiles),
            top_score=r.top_score,
            tops=len(r.tops) if r.tops else sum(1 for p in plays if p["score"] == r.top_score),
            players=found_tops[r.pk]["players"],
            found_top=found_tops[r.pk]["found"],
            solo=names.get(solo, "") if solo is not None else "",
            solo_score=scores.get(solo, 0) if solo is not None else 0,
        ))
    return Solutions(header=header_for(tournament, game), rounds=tuple(lines),
                     status="over" if game.status == Game.Status.OVER else "")
