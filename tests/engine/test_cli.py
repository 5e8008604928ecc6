import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from engine.board import Board
from engine.cli import simulate_game
from engine.lexicon import load_lexicon
from engine.rules import rules_preset
from engine.search import find_tops
from engine.tiles import load_tileset

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "positions_twl06.jsonl"


def run_engine(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def fixture_lines(count_per_kind=2):
    chosen, seen = [], Counter()
    for line in FIXTURES.read_text().splitlines():
        position = json.loads(line)
        kind = (position["blanks_in_rack"], position["top_score"] is None)
        if seen[kind] < count_per_kind:
            seen[kind] += 1
            chosen.append(position)
    return chosen


def move_key(move):
    return (move["row"], move["col"], move["horizontal"], move["word"], move["score"])


def test_tops_command_reproduces_the_fixture_tops_in_input_order():
    positions = fixture_lines()
    stdin = "".join(json.dumps(p) + "\n" for p in positions)
    result = run_engine("tops", "--lexicon", "TWL06", stdin=stdin)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == len(positions)
    for position, out in zip(positions, lines, strict=True):
        assert set(out) == {"top_score", "top_moves", "ms"}
        assert out["top_score"] == position["top_score"], position["id"]
        assert sorted(map(move_key, out["top_moves"])) == sorted(map(move_key, position["top_moves"])), position["id"]
        assert isinstance(out["ms"], (int, float)) and out["ms"] >= 0


def test_tops_command_reports_bad_lines_and_goes_on():
    empty = ["." * 15] * 15
    stdin = "not json\n\n" + json.dumps({"board": empty[:3], "rack": "A"}) + "\n"
    stdin += json.dumps({"board": empty, "rack": "ZZ"}) + "\n"
    result = run_engine("tops", "--lexicon", "TWL06", stdin=stdin)
    assert result.returncode == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [("error" in line) for line in lines] == [True, True, False]
    assert lines[2]["top_score"] is None and lines[2]["top_moves"] == []


def test_unknown_lexicon_is_an_error():
    result = run_engine("tops", "--lexicon", "NOSUCHLIST", "--lexicon-cache", "/tmp/arbiter-no-such-cache")
    assert result.returncode == 2
    assert "NOSUCHLIST" in result.stderr


def test_simulate_is_replayed_by_its_seed():
    first = run_engine("simulate", "--seed", "11", "--lexicon", "TWL06", "--json")
    again = run_engine("simulate", "--seed", "11", "--lexicon", "TWL06", "--json")
    other = run_engine("simulate", "--seed", "12", "--lexicon", "TWL06", "--json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout
    rounds = [json.loads(line) for line in first.stdout.splitlines()]
    summary = rounds.pop()
    total = 0
    for item in rounds:
        total += item["score"]
        assert item["total"] == total
        assert item["cancelled"] if "cancelled" in item else item["word"] and item["ref"]
    assert summary["total"] == total and summary["seed"] == 11 and summary["end"]


def test_simulate_prints_a_table():
    result = run_engine("simulate", "--seed", "3", "--lexicon", "TWL06")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Duplicate game, seed 3"
    assert lines[1].split() == ["round", "rack", "master", "ref", "score", "total"]
    assert lines[-1].startswith("total ")
    assert lines[2].split()[0] == "1"


def test_every_master_of_a_simulated_game_is_a_top_and_no_tile_is_lost():
    english, rules = load_tileset("english"), rules_preset("fisf")
    lexicon = load_lexicon("TWL06")
    game = simulate_game(5, lexicon, english, rules)
    board = Board.empty()
    assert game.rounds
    for record in game.rounds:
        rack = record.rack.replace("+", "")
        tops = find_tops(board, rack, lexicon, english, rules)
        if record.master is None:
            assert tops.score is None
            continue
        assert record.master in tops.plays
        board = board.place(record.master)
    assert board == game.board
    on_board = Counter("?" if ch.islower() else ch for row in board.rows() for ch in row if ch != ".")
    assert on_board + Counter(game.left) == Counter(english.full_bag())
    assert game.total == sum(record.score for record in game.rounds)


def test_check_command_judges_slips_on_a_reference_position():
    position = json.loads(FIXTURES.read_text().splitlines()[0])
    top = position["top_moves"][0]  # BLOW down from 5D for 28
    assert (top["word"], top["row"], top["col"], top["horizontal"]) == ("BLOW", 3, 4, False)
    slips = [("BLOW", "5D", 28), ("BLOW", "5D", 27), ("BLOW", "D5", 28), ("BLOW", None, 28), ("BLWO", "5D", 28)]
    stdin = "".join(
        json.dumps({"board": position["board"], "rack": position["rack"], "round": 17, "word": w, "ref": r, "claimed": c})
        + "\n"
        for w, r, c in slips
    )
    result = run_engine("check", "--lexicon", "TWL06", stdin=stdin)
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(o["paid"], o["outcome"], o["reason"]) for o in out] == [
        (28, "ok", "ok"),
        (28, "warning", "wrong_score"),
        (28, "warning", "reversed_ref"),
        (23, "penalty", "wrong_ref"),
        (0, "zero", "invalid_word"),
    ]


def test_rounds_without_a_play_are_cancelled_and_redrawn(tmp_path):
    from engine.lexicon import import_lexicon

    english, rules = load_tileset("english"), rules_preset("fisf")
    words = ["AE", "EA", "AT", "TA", "ET", "TE", "EAT", "TEA", "ATE", "ETA", "EE", "AA"]
    lexicon = import_lexicon("tiny-game", words, english, cache_dir=tmp_path).lexicon
    game = simulate_game(3, lexicon, english, rules)
    cancelled = [r for r in game.rounds if r.master is None]
    assert cancelled and game.end
    board = Board.empty()
    numbers = []
    for record in game.rounds:
        tops = find_tops(board, record.rack.replace("+", ""), lexicon, english, rules)
        if record.master is None:
            assert tops.score is None
        else:
            assert record.master in tops.plays
            board = board.place(record.master)
            numbers.append(record.number)
    assert numbers == list(range(1, len(numbers) + 1))  # a cancelled round does not count
    on_board = Counter("?" if ch.islower() else ch for row in board.rows() for ch in row if ch != ".")
    assert on_board + Counter(game.left) == Counter(english.full_bag())


def test_warm_readies_the_search_it_says_and_python_when_told():
    from engine.search import compiled_search_installed

    result = run_engine("warm", "--lexicon", "TWL06")
    assert result.returncode == 0, result.stderr
    expected = "compiled" if compiled_search_installed() else "python"
    assert result.stdout.splitlines()[-1].startswith(f"search: {expected}, ready in ")
    env = {**os.environ, "ARBITER_ENGINE": "python"}
    result = subprocess.run([sys.executable, "-m", "engine", "warm"], capture_output=True, text=True, cwd=ROOT,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("search: python, ready in ")


def test_warm_says_what_it_does_while_it_builds_a_word_list(tmp_path):
    """A cold lexicon cache: the word graph of TWL06 is built (seconds of CPU), and ``warm`` says so while it
    works, at least every ARBITER_WARM_TICK_SECONDS (here 0.5 s), with about how long is left; the pure-Python
    search has nothing to compile: nothing is written to Numba's cache."""
    numba_cache = tmp_path / "numba"
    numba_cache.mkdir()
    env = {**os.environ, "ARBITER_ENGINE": "python", "ARBITER_WARM_TICK_SECONDS": "0.5",
           "NUMBA_CACHE_DIR": str(numba_cache)}
    result = subprocess.run([sys.executable, "-m", "engine", "warm", "--lexicon-cache", str(tmp_path / "lexicons")],
                            capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("search: python, ready in ")
    assert any(line.startswith("  the word list TWL06 (built once, then read from its cache): ")
               and (" s left" in line or "longer than the usual" in line) for line in lines[:-1]), lines
    assert not any("Compiling" in line for line in lines), lines
    assert list(numba_cache.iterdir()) == []


def test_whether_the_compiled_search_is_in_numbas_cache_is_read_from_the_files(tmp_path, monkeypatch):
    """``compiled_search_cached`` (what warm says it will do) looks for the index of kernel.search in
    NUMBA_CACHE_DIR, written after engine/kernel.py was, without importing Numba."""
    from engine import search

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not search.compiled_search_cached()
    index = tmp_path / "engine_abc" / "kernel.search-791.py311.nbi"
    index.parent.mkdir()
    index.write_bytes(b"")
    assert search.compiled_search_cached()
    kernel = Path(search.__file__).with_name("kernel.py").stat().st_mtime
    os.utime(index, (kernel - 60, kernel - 60))
    assert not search.compiled_search_cached(), "an index older than engine/kernel.py is stale"
