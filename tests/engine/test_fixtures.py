"""The 200 reference positions (TWL06): same top score, same set of tied plays, same number of plays."""
import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.checking import check_play
from engine.movegen import find_tops, generate_plays

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "positions_twl06.jsonl"
POSITIONS = [json.loads(line) for line in FIXTURES.read_text().splitlines() if line.strip()]


def test_all_positions_are_there():
    assert len(POSITIONS) == 200


def _key(play):
    return (play["word"], play["row"], play["col"], play["horizontal"], play["score"])


@pytest.mark.parametrize("position", POSITIONS, ids=[p["id"] for p in POSITIONS])
def test_tops(position, twl06, english, fisf):
    board = Board.from_rows(position["board"])
    tops = find_tops(board, position["rack"], twl06, english, fisf)
    assert tops.score == position["top_score"]
    got = sorted((p.word, p.row, p.col, p.horizontal, p.score) for p in tops.plays)
    assert got == sorted(_key(m) for m in position["top_moves"])
    for play in tops.plays:
        checked = check_play(board, position["rack"], play.word, play.row, play.col, play.horizontal, twl06, english, fisf)
        assert (checked.score, checked.tiles, checked.words) == (play.score, play.tiles, play.words)


@pytest.mark.parametrize("position", POSITIONS, ids=[p["id"] for p in POSITIONS])
def test_number_of_plays(position, twl06, english, fisf):
    plays = generate_plays(Board.from_rows(position["board"]), position["rack"], twl06, english, fisf)
    placements = {frozenset((r, c, letter, blank) for r, c, letter, blank in p.tiles) for p in plays}
    assert len(placements) == len(plays) == position["n_moves"]
