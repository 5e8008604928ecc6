"""A pre-drawn game (engine/pregame.py): played alone from a seed by the rules, the same game for the same seed,
rebuilt from its racks and masters, and its profile's figures."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.board import Board
from engine.drawing import draw_rack, game_is_over, rack_is_valid
from engine.notation import format_ref
from engine.pregame import PregameError, draw_game, hardness, profile, replay_game
from engine.search import find_tops, generate_plays


@pytest.fixture(scope="module")
def game(twl06, english, fisf):
    return draw_game(2025, twl06, english, fisf)


def _as_recorded(game):
    return [(r.rack, {"word": r.master.word, "ref": format_ref(r.master.row, r.master.col, r.master.horizontal)},
             r.rejected) for r in game.rounds]


def test_the_same_seed_draws_the_same_game(game, twl06, english, fisf):
    again = draw_game(2025, twl06, english, fisf)
    assert again == game
    other = draw_game(2026, twl06, english, fisf)
    assert [r.rack for r in other.rounds] != [r.rack for r in game.rounds]
    assert game.seed == 2025


def test_a_game_is_played_to_its_end_by_the_rules(game, twl06, english, fisf):
    assert len(game.rounds) >= 15 and game.end_reason in ("game_over", "no_play")
    board = Board.empty()
    bag = Counter(english.full_bag())
    kept = ""
    for r in game.rounds:
        assert tuple(board.rows()) == r.board
        assert Counter(r.kept) == Counter(kept) or not r.kept  # kept letters, unless they went back
        assert rack_is_valid(r.rack, r.number, english, fisf, available=list(bag.elements()) + list(kept))
        tops = find_tops(board, r.rack, twl06, english, fisf)
        assert r.master in tops.plays and r.master.score == tops.score == r.top_score
        bag = bag - Counter(r.drawn) if r.kept else bag + Counter(kept) - Counter(r.rack)
        used = Counter("?" if blank else letter for _, _, letter, blank in r.master.tiles)
        kept = "".join((Counter(r.rack) - used).elements())
        board = board.place(r.master)
    assert tuple(board.rows()) == game.board
    assert Counter(game.left) == bag + Counter(kept)
    assert game_is_over(list(bag.elements()), kept, english, fisf, round_number=len(game.rounds) + 1)


def test_round_one_is_the_services_first_random_draw(game, english, fisf):
    """The k-th draw uses random.Random(f"{seed}:{k}"), as round_draw does with Game.seed and Game.draws."""
    first = draw_rack(sorted(english.full_bag()), "", 1, random.Random("2025:0"), english, fisf)
    assert game.rounds[0].rack == first.rack and game.rounds[0].rejected == tuple(first.rejected)


def test_max_rounds_stops_the_game(twl06, english, fisf, game):
    short = draw_game(2025, twl06, english, fisf, max_rounds=5)
    assert short.rounds == game.rounds[:5] and short.end_reason == "max_rounds"


def test_profile_figures_match_the_game_counted_here(game, twl06, english, fisf):
    figures = profile(game, fisf, hardest=4)
    assert figures["rounds"] == len(game.rounds)
    assert figures["tops_sum"] == sum(r.master.score for r in game.rounds)
    assert figures["bingos"] == sum(1 for r in game.rounds if len(r.master.tiles) == 7)
    # Blanks placed: the lowercase letters on the final board.
    assert figures["blanks"] == sum(ch.islower() for row in game.board for ch in row)
    assert figures["racks_with_blank"] == sum("?" in r.rack for r in game.rounds)
    # The hardest rounds: every play listed by the search, the top's plays counted here.
    counted = {}
    for r in game.rounds:
        plays = generate_plays(Board.from_rows(r.board), r.rack, twl06, english, fisf)
        top = max(p.score for p in plays)
        counted[r.number] = (sum(p.score == top for p in plays), len(plays), top)
        assert (r.tied_tops, r.plays, r.top_score) == counted[r.number]
    expected = sorted(counted, key=lambda n: (counted[n][0], counted[n][0] / counted[n][1], -counted[n][2], n))[:4]
    assert [row["round"] for row in figures["hardest"]] == expected
    assert [hardness(game.rounds[n - 1]) for n in expected] == sorted(hardness(r) for r in game.rounds)[:4]


def test_a_recorded_game_is_rebuilt_the_same(game, twl06, english, fisf):
    rebuilt = replay_game(_as_recorded(game), twl06, english, fisf)
    assert rebuilt.rounds == game.rounds and rebuilt.board == game.board and rebuilt.left == game.left
    assert rebuilt.seed is None and rebuilt.end_reason == "recorded"


def test_a_record_whose_master_or_rack_does_not_hold_is_refused(game, twl06, english, fisf):
    rounds = _as_recorded(game)
    wrong_master = [*rounds[:3], (rounds[3][0], {"word": "ZZZ", "ref": "H8"}, ()), *rounds[4:]]
    with pytest.raises(PregameError) as refused:
        replay_game(wrong_master, twl06, english, fisf)
    assert refused.value.code == "bad_master" and refused.value.round == 4
    too_many_z = [*rounds[:2], ("ZZZZZZZ", rounds[2][1], ()), *rounds[3:]]
    with pytest.raises(PregameError) as refused:
        replay_game(too_many_z, twl06, english, fisf)
    assert refused.value.code == "bad_rack" and refused.value.round == 3


def test_a_rack_without_a_play_is_cancelled_and_its_letters_go_back(tiny, english, fisf):
    """§3.6: with a word list of two words most racks have no play; each is listed as cancelled before the
    next round's rack, and the game still ends (§3.7 or no rack left to draw)."""
    lexicon = tiny("ZA", "QI")
    game = draw_game(3, lexicon, english, fisf, max_rounds=30)
    cancelled = [rack for r in game.rounds for rack in r.cancelled]
    assert cancelled and game.end_reason in ("game_over", "no_play", "max_rounds")
    for r in game.rounds:
        for rack in r.cancelled:
            assert find_tops(Board.from_rows(r.board), rack, lexicon, english, fisf).score is None
        assert r.master.word.upper() in ("ZA", "QI") or set(r.master.words) & {"ZA", "QI", "za", "qi"}
    # Every tile is on the board or left: cancelled racks went back into the bag.
    placed = Counter("?" if ch.islower() else ch for row in game.board for ch in row if ch != ".")
    assert placed + Counter(game.left) == Counter(english.full_bag())
