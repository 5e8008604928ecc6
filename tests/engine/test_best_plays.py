"""best_plays and count_plays: checked against generate_plays on the 200 reference positions and on tiny
word lists, by both searches: the compiled one (``engine.kernel``, when Numba is installed) and the pure
Python one it stands in for (``engine.movegen``), as ``engine.search`` runs them."""
import json
import warnings
from collections import Counter
from pathlib import Path

import pytest

from engine import movegen
from engine import search as engine_search
from engine.board import Board
from engine.search import best_plays, count_plays, find_tops, generate_plays, score_spread

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "positions_twl06.jsonl"
POSITIONS = [json.loads(line) for line in FIXTURES.read_text().splitlines() if line.strip()]
SEARCHES = ["compiled", "python"]


def searches():
    """The searches this machine runs: the compiled one when Numba is installed, and the pure-Python one."""
    return ["compiled", "python"] if engine_search.compiled_search_installed() else ["python"]


@pytest.fixture(params=SEARCHES)
def search(request):
    """A test taking this fixture runs once with each search."""
    compiled = request.param == "compiled"
    if compiled and not engine_search.compiled_search_installed():
        pytest.skip("Numba is not installed: only the pure-Python search runs")
    was = engine_search.use_compiled_search(compiled)
    yield request.param
    engine_search.use_compiled_search(was)


def n_best(plays, n):
    """The n best of ``plays`` by sorting, with every play tied at the n-th score."""
    plays = sorted(plays, key=lambda p: -p.score)
    if not plays:
        return []
    floor = plays[min(n, len(plays)) - 1].score
    return [p for p in plays if p.score >= floor]


def by_order(plays):
    return sorted(plays, key=lambda p: (-p.score, p.row, p.col, not p.horizontal, p.word, p.tiles))


@pytest.mark.parametrize("position", POSITIONS, ids=[p["id"] for p in POSITIONS])
def test_best_plays_and_count_agree_with_generate_plays(position, twl06, english, fisf):
    board, rack = Board.from_rows(position["board"]), position["rack"]
    plays = generate_plays(board, rack, twl06, english, fisf)  # pure Python in both searches
    assert len(plays) == position["n_moves"]
    was = engine_search.use_compiled_search(False)
    try:
        for search in searches():
            compiled = search == "compiled"
            engine_search.use_compiled_search(compiled)
            assert count_plays(board, rack, twl06, english, fisf) == len(plays)
            if compiled:  # in pure Python, score_spread counts generate_plays itself
                assert score_spread(board, rack, twl06, english, fisf) == Counter(p.score for p in plays)
            for n in (10, 1, 3, 40):
                best = best_plays(board, rack, twl06, english, fisf, n=n)
                assert len(set(best)) == len(best)
                assert by_order(best) == by_order(n_best(plays, n)), (search, n)
                assert [p.score for p in best] == sorted((p.score for p in best), reverse=True)
            tops = find_tops(board, rack, twl06, english, fisf)
            assert set(best_plays(board, rack, twl06, english, fisf, n=1)) == set(tops.plays)
            assert (engine_search._kernel() is not None) == compiled  # the compiled search did not fail
    finally:
        engine_search.use_compiled_search(was)


@pytest.mark.usefixtures("search")
def test_ties_at_the_nth_score_are_all_kept(tiny, english, fisf):
    lexicon = tiny("AB", "BA")
    best = best_plays(Board.empty(), "AB", lexicon, english, fisf, n=1)
    assert len(best) == 4 and {p.score for p in best} == {8}
    assert best == sorted(best, key=lambda p: (p.row, p.col, p.word))


@pytest.mark.usefixtures("search")
def test_fewer_plays_than_asked(tiny, english, fisf):
    lexicon = tiny("AT")
    plays = generate_plays(Board.empty(), "AT", lexicon, english, fisf)
    assert set(best_plays(Board.empty(), "AT", lexicon, english, fisf, n=10)) == set(plays)
    assert best_plays(Board.empty(), "QQ", lexicon, english, fisf, n=10) == []
    assert count_plays(Board.empty(), "QQ", lexicon, english, fisf) == 0


@pytest.mark.usefixtures("search")
def test_n_must_be_positive(tiny, english, fisf):
    with pytest.raises(ValueError):
        best_plays(Board.empty(), "AT", tiny("AT"), english, fisf, n=0)


@pytest.mark.usefixtures("search")
def test_blank_placements_are_distinct_plays(tiny, english, fisf, board_with):
    lexicon = tiny("CAT", "CATS", "TEES", "TEE")
    board = board_with(("CAT", 7, 6, True))
    rack = "S?"
    plays = generate_plays(board, rack, lexicon, english, fisf)
    words = sorted(p.word for p in plays if p.row == 7 and p.col == 6 and p.horizontal)
    assert words == ["CATS", "CATs"]
    assert count_plays(board, rack, lexicon, english, fisf) == len(plays)
    # Two blanks for two E's: which tile is which blank makes distinct plays (TeE, TEe, Tee).
    board = board_with(("T", 7, 7, True))
    plays = generate_plays(board, "??", lexicon, english, fisf)
    across = sorted(p.word for p in plays if p.horizontal and p.row == 7 and p.col == 7 and len(p.word) == 3)
    assert across == ["Tee"]
    plays = generate_plays(board, "E?", lexicon, english, fisf)
    across = sorted(p.word for p in plays if p.horizontal and p.row == 7 and p.col == 7 and len(p.word) == 3)
    assert across == ["TEe", "TeE"]
    assert count_plays(board, "E?", lexicon, english, fisf) == len(plays) == len(set(plays))
    best = best_plays(board, "E?", lexicon, english, fisf, n=len(plays))
    assert set(best) == set(plays)


@pytest.mark.usefixtures("search")
def test_a_one_tile_play_forming_two_words_is_counted_once(tiny, english, fisf, board_with):
    lexicon = tiny("AT", "AA", "AS", "AAS")
    board = board_with(("AT", 7, 7, True), ("AA", 8, 5, True))
    plays = generate_plays(board, "S?", lexicon, english, fisf)
    assert count_plays(board, "S?", lexicon, english, fisf) == len(plays) == len(set(plays))
    singles = [p for p in plays if len(p.tiles) == 1 and p.tiles[0][:2] == (8, 7)]
    assert sorted((p.word, p.horizontal) for p in singles) == [("AAS", True), ("AAs", True)]
    assert set(best_plays(board, "S?", lexicon, english, fisf, n=len(plays))) == set(plays)


def test_a_compiled_search_that_fails_gives_way_to_the_python_one(twl06, english, fisf, monkeypatch):
    if not engine_search.compiled_search_installed():
        pytest.skip("Numba is not installed: only the pure-Python search runs")
    position = POSITIONS[0]
    board, rack = Board.from_rows(position["board"]), position["rack"]
    expected = by_order(n_best(generate_plays(board, rack, twl06, english, fisf), 10))
    was = engine_search.use_compiled_search(True)

    def refused(*args):
        raise RuntimeError("refused by this Numba")

    monkeypatch.setattr(engine_search._load_kernel(), "search", refused)
    try:
        with pytest.warns(RuntimeWarning, match="the pure-Python search runs from now on"):
            best = best_plays(board, rack, twl06, english, fisf, n=10)
        assert by_order(best) == expected
        assert engine_search._kernel() is None
        assert count_plays(board, rack, twl06, english, fisf) == position["n_moves"]
    finally:
        engine_search.use_compiled_search(was)


def test_movegen_is_the_reference_and_never_runs_the_compiled_search(twl06, english, fisf, monkeypatch):
    """engine.movegen's functions run the pure-Python search even while engine.search runs the compiled
    one: a compiled search that would refuse is never called, and nothing warns."""
    if not engine_search.compiled_search_installed():
        pytest.skip("Numba is not installed: only the pure-Python search runs")
    position = POSITIONS[1]
    board, rack = Board.from_rows(position["board"]), position["rack"]
    plays = generate_plays(board, rack, twl06, english, fisf)
    was = engine_search.use_compiled_search(True)

    def refused(*args):
        raise RuntimeError("the reference search called the compiled one")

    monkeypatch.setattr(engine_search._load_kernel(), "search", refused)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert by_order(movegen.best_plays(board, rack, twl06, english, fisf, n=10)) == by_order(n_best(plays, 10))
            assert movegen.count_plays(board, rack, twl06, english, fisf) == position["n_moves"]
            tops = movegen.find_tops(board, rack, twl06, english, fisf)
            assert set(tops.plays) == set(n_best(plays, 1))
            assert movegen.score_spread(board, rack, twl06, english, fisf) == Counter(p.score for p in plays)
        assert engine_search._kernel() is not None  # still on: nothing failed
    finally:
        engine_search.use_compiled_search(was)
