"""The move search with the variants' racks of 8, by both searches (compiled and pure Python), and whole
games of each variant played by the engine (draw, top, master, the joker and explosive rules).

The oracle for 7 sur 8 is the classic search on 7-tile racks (checked elsewhere against every play and the
reference positions): a rack of 8 placing at most 7 tiles has for top the best top of its eight racks of 7
(one tile left out), and the same top plays.  For 7 et 8 the bonuses are added here to the plays the
reference generator lists with no bonus at all: 50 for 7 tiles, 75 for 8.
"""
from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from pathlib import Path

import pytest

from engine import search as engine_search
from engine.board import Board
from engine.checking import PlayError, check_play
from engine.drawing import RackError, draw_rack, explosive_chooser, replace_played_blanks
from engine.master import choose_master
from engine.pregame import draw_game, profile
from engine.rules import variant_rules
from engine.search import find_tops, generate_plays

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "positions_twl06.jsonl"
ALL_POSITIONS = [json.loads(line) for line in FIXTURES.read_text().splitlines() if line.strip()]
POSITIONS = [p for p in ALL_POSITIONS if p["bag"] > 0][:100]
SEVEN_OF_EIGHT = variant_rules("seven_of_eight")
SEVEN_AND_EIGHT = variant_rules("seven_and_eight")
NO_BONUS = variant_rules("seven_and_eight", bingo_bonus=0, big_bingo_bonus=0)


def searches():
    return ["compiled", "python"] if engine_search.compiled_search_installed() else ["python"]


@pytest.fixture(params=["compiled", "python"])
def search(request):
    """Each test taking this runs with each search; a compiled search that fails is an error here, not a
    quiet fall back to the other."""
    if request.param == "compiled" and not engine_search.compiled_search_installed():
        pytest.skip("Numba is not installed: only the pure-Python search runs")
    was = engine_search.use_compiled_search(request.param == "compiled")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield request.param
    engine_search.use_compiled_search(was)


def eight_tile_rack(position, english) -> str:
    """The position's rack of 7 and one more tile of those unseen (not on the board, not in the rack),
    chosen by the position's seed."""
    on_board = Counter("?" if ch.islower() else ch for row in position["board"] for ch in row if ch != ".")
    unseen = Counter(english.full_bag()) - on_board - Counter(position["rack"])
    extra = random.Random(position["seed"] * 100 + position["turn"]).choice(sorted(unseen.elements()))
    return position["rack"] + extra


def key(play):
    return (play.row, play.col, play.horizontal, play.tiles)


def test_seven_of_eight_tops_are_the_best_of_the_racks_of_seven(search, twl06, english, fisf):
    eight_tile_plays = 0
    for position in POSITIONS:
        board, rack = Board.from_rows(position["board"]), eight_tile_rack(position, english)
        tops = find_tops(board, rack, twl06, english, SEVEN_OF_EIGHT)
        sevens = [find_tops(board, rack[:i] + rack[i + 1:], twl06, english, fisf) for i in range(len(rack))]
        best = max((t.score for t in sevens if t.score is not None), default=None)
        assert tops.score == best, position["id"]
        expected = {key(p) for t in sevens if t.score == best for p in t.plays}
        assert {key(p) for p in tops.plays} == expected, position["id"]
        assert all(len(p.tiles) <= 7 for p in tops.plays)
        eight_tile_plays += any(len(p.tiles) == 7 for p in tops.plays)
    assert eight_tile_plays > 0  # some top places 7 of the 8 tiles (the bonus path is exercised)


def test_seven_and_eight_tops_add_50_for_seven_tiles_and_75_for_eight(search, twl06, english):
    for position in POSITIONS:
        board, rack = Board.from_rows(position["board"]), eight_tile_rack(position, english)
        plays = generate_plays(board, rack, twl06, english, NO_BONUS)  # the reference generator, no bonus
        scored = [(p.score + {7: 50, 8: 75}.get(len(p.tiles), 0), p) for p in plays]
        best = max((s for s, _ in scored), default=None)
        tops = find_tops(board, rack, twl06, english, SEVEN_AND_EIGHT)
        assert tops.score == best, position["id"]
        assert {key(p) for p in tops.plays} == {key(p) for s, p in scored if s == best}, position["id"]


def test_a_whole_rack_of_eight_on_the_empty_board(search, twl06, english):
    board = Board.empty()
    raw = {key(p): p.score for p in generate_plays(board, "ABSOLUTE", twl06, english, NO_BONUS)}
    tops = find_tops(board, "ABSOLUTE", twl06, english, SEVEN_AND_EIGHT)
    assert all(len(p.tiles) == 8 for p in tops.plays)
    assert all(p.score == raw[key(p)] + 75 for p in tops.plays)
    # In 7 sur 8 no play places the eighth tile.
    tops = find_tops(board, "ABSOLUTE", twl06, english, SEVEN_OF_EIGHT)
    assert tops.score is not None and all(len(p.tiles) <= 7 for p in tops.plays)


def play_engine_game(seed, rules, twl06, english, rounds=30):
    """A whole game the engine plays: each rack drawn by the variant, its top, the proposed master."""
    rng = random.Random(seed)
    bag, kept, board = english.full_bag(), "", Board.empty()
    masters, stats = [], Counter()
    for round_number in range(1, rounds + 1):
        chooser = explosive_chooser(board, twl06, english, rules) if rules.explosive else None
        try:
            draw = draw_rack(bag, kept, round_number, rng, english, rules, choose_blank=chooser)
        except RackError:
            break
        if draw.replaced:
            # When every top of the rack as drawn needs its blank, the blank became the letter it stands for
            # in the first of them; otherwise a letter of the bag at random.
            before = find_tops(board, draw.rack.replace(draw.replaced, "?", 1), twl06, english, rules)
            if before.plays and all(any(t[3] for t in p.tiles) for p in before.plays):
                assert [t[2].upper() for t in before.plays[0].tiles if t[3]][0] == draw.replaced
                stats["top_letter"] += 1
        tops = find_tops(board, draw.rack, twl06, english, rules)
        if tops.score is None:
            break
        master = choose_master(tops, board, draw.bag, english, rules, rack=draw.rack)
        assert master.score == tops.score and len(master.tiles) <= rules.max_placed
        board = board.place(master)
        board, bag, _ = replace_played_blanks(board, master.tiles, draw.bag, rules)
        leave = Counter(draw.rack) - Counter("?" if t[3] else t[2] for t in master.tiles)
        kept = "".join(sorted(leave.elements()))
        masters.append((draw, master))
        if not bag and not kept:
            break
    return masters, stats


@pytest.mark.parametrize("variant", ["joker", "explosive", "seven_of_eight", "seven_and_eight"])
def test_whole_engine_games_of_each_variant(variant, twl06, english):
    rules = variant_rules(variant)
    top_letters = 0
    for seed in range(2):
        masters, stats = play_engine_game(seed, rules, twl06, english)
        assert len(masters) >= 8
        top_letters += stats["top_letter"]
        if rules.joker:
            # Every rack held a blank while one was left (both blanks cannot be gone in 8 rounds).
            assert all("?" in draw.rack for draw, _ in masters[:8])
        if rules.explosive:
            assert any(draw.replaced for draw, _ in masters)
        if rules.rack_size == 8:
            assert all(len(draw.rack) == 8 for draw, _ in masters[:8])
    if rules.explosive:
        assert top_letters > 0


@pytest.mark.parametrize("rules", [SEVEN_OF_EIGHT, SEVEN_AND_EIGHT], ids=["seven_of_eight", "seven_and_eight"])
def test_a_candidate_game_of_eight_tile_racks_counts_its_bonuses(rules, twl06, english):
    game = draw_game(2025, twl06, english, rules, max_rounds=12)
    assert all(len(r.rack) == 8 for r in game.rounds)
    assert all(len(r.master.tiles) <= rules.max_placed for r in game.rounds)
    assert profile(game, rules)["bingos"] == sum(1 for r in game.rounds if len(r.master.tiles) in (7, 8))
    assert profile(game, rules)["bingos"] > 0


def test_a_slip_placing_eight_tiles_in_seven_of_eight_is_refused(twl06, english):
    board = Board.empty()
    with pytest.raises(PlayError) as refused:
        check_play(board, "ABSOLUTE", "ABSOLUTE", 7, 3, True, twl06, english, SEVEN_OF_EIGHT)
    assert refused.value.reason == "not_in_rack" and "at most 7 tiles" in refused.value.message
    raw = check_play(board, "ABSOLUTE", "ABSOLUTE", 7, 3, True, twl06, english, NO_BONUS).score
    assert check_play(board, "ABSOLUTE", "ABSOLUTE", 7, 3, True, twl06, english, SEVEN_AND_EIGHT).score == raw + 75
    # Seven of the eight: paid with the 50 bonus in both.
    seven = next(p for p in generate_plays(board, "ABSOLUTE", twl06, english, NO_BONUS) if len(p.tiles) == 7)
    for rules in (SEVEN_OF_EIGHT, SEVEN_AND_EIGHT):
        paid = check_play(board, "ABSOLUTE", seven.word, seven.row, seven.col, seven.horizontal, twl06, english, rules)
        assert paid.score == seven.score + 50
