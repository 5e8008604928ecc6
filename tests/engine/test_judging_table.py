"""The paying table (rules document §4, preset fisf) read a second time, independently of engine.judging,
and compared with judge_slip on the reference positions for many slips: right, reversed, elsewhere and
missing references; right, other reachable, wrong and missing scores; blanks marked, not marked, or every
letter written lowercase.

The reading here works from the full list of legal plays (generate_plays) rather than by checking the
written play, so the two only agree when both follow the table.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

from engine.board import Board
from engine.judging import Slip, judge_slip
from engine.movegen import Play, generate_plays
from engine.notation import RefError, format_ref, parse_ref

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "positions_twl06.jsonl"


def _step(horizontal: bool) -> tuple[int, int]:
    return (0, 1) if horizontal else (1, 0)


def _with_twins(board: Board, plays: list[Play]) -> list[Play]:
    """generate_plays lists a one-tile play once; a slip may name it by either of the words it forms."""
    out = list(plays)
    for play in plays:
        if len(play.tiles) != 1 or len(play.words) < 2:
            continue
        row, col = play.tiles[0][:2]
        dr, dc = _step(not play.horizontal)
        while 0 <= row - dr and 0 <= col - dc and board.get(row - dr, col - dc) != ".":
            row, col = row - dr, col - dc
        out.append(Play(play.words[1], row, col, not play.horizontal, play.score, play.tiles, play.words))
    return out


def _blanks(play: Play) -> frozenset:
    return frozenset((r, c) for r, c, _, is_blank in play.tiles if is_blank)


def _marked(play: Play, written: str) -> frozenset:
    """Squares of new tiles the slip writes in lowercase (marked as blanks)."""
    new = {(r, c) for r, c, _, _ in play.tiles}
    dr, dc = _step(play.horizontal)
    squares = [(play.row + i * dr, play.col + i * dc) for i in range(len(written))]
    return frozenset(sq for sq, ch in zip(squares, written, strict=True) if ch.islower() and sq in new)


def _stray(play: Play, board: Board, rng: random.Random) -> str:
    """The play as written, with one letter of a new real tile marked as a blank (a stray mark)."""
    dr, dc = _step(play.horizontal)
    real = {(r, c) for r, c, _, is_blank in play.tiles if not is_blank}
    indexes = [i for i in range(len(play.word)) if (play.row + i * dr, play.col + i * dc) in real]
    if not indexes:
        return play.word
    i = rng.choice(indexes)
    return play.word[:i] + play.word[i].lower() + play.word[i + 1:]


def _expected(by_word: dict, lexicon, written: str, ref: str | None, claimed: int | None) -> tuple[int, str]:
    if written.upper() not in lexicon:
        return 0, "zero"
    candidates = by_word.get(written.upper(), [])

    def readings(spot):
        """The plays of the word at this spot as written (exact), and the ones paid when the slip must be
        read otherwise: those keeping the most of the player's marks (all, when the rack allows; a stray
        mark on a letter the rack holds gives way), then the fewest blanks."""
        here = [p for p in candidates if (p.row, p.col, p.horizontal) == spot]
        if not here:
            return [], []
        exact = [p for p in here if _blanks(p) == _marked(p, written)]
        most = max(len(_marked(p, written) & _blanks(p)) for p in here)
        keeping = [p for p in here if len(_marked(p, written) & _blanks(p)) == most]
        fewest = min(len(_blanks(p)) for p in keeping)
        return exact, [p for p in keeping if len(_blanks(p)) == fewest]

    def paid(play, warned):
        return (play.score, "warning") if warned or claimed != play.score else (play.score, "ok")

    try:
        spot = parse_ref(ref)
    except RefError:
        spot = None
    if spot is not None:
        for horizontal, reversed_ref in ((spot.horizontal, False), (not spot.horizontal, True)):
            exact, fixed = readings((spot.row, spot.col, horizontal))
            if exact:
                return paid(exact[0], reversed_ref)
            if fixed:
                return paid(min(fixed, key=lambda p: p.score), True)  # blank not marked: lowest reading
    if claimed is not None:
        for where in {(p.row, p.col, p.horizontal) for p in candidates}:
            if any(p.score == claimed for p in readings(where)[1]):
                left = claimed - 5
                return (left if left > 4 else 0), "penalty"
    return 0, "zero"


def test_judging_follows_the_table_on_reference_positions(twl06, english, fisf):
    rng = random.Random(20261121)
    positions = [json.loads(line) for line in FIXTURES.read_text().splitlines()]
    positions = [p for p in positions if any(ch != "." for row in p["board"] for ch in row)][:40]
    outcomes = defaultdict(int)
    strays = 0
    for position in positions:
        board = Board.from_rows(position["board"])
        rack = position["rack"]
        plays = _with_twins(board, generate_plays(board, rack, twl06, english, fisf))
        by_word = defaultdict(list)
        for play in plays:
            by_word[play.word.upper()].append(play)
        for _ in range(40):
            play = rng.choice(plays)
            written = rng.choice([play.word, play.word, play.word.upper(), play.word.lower(),
                                  _stray(play, board, rng), _stray(play, board, rng)])
            ref = rng.choice([
                format_ref(play.row, play.col, play.horizontal),
                format_ref(play.row, play.col, not play.horizontal),
                format_ref(rng.randrange(15), rng.randrange(15), rng.random() < 0.5),
                None,
            ])
            other = rng.choice(by_word[play.word.upper()])
            claimed = rng.choice([play.score, other.score, play.score + 1, None])
            judgement = judge_slip(board, rack, 5, Slip(written, ref, claimed), twl06, english, fisf)
            expected = _expected(by_word, twl06, written, ref, claimed)
            assert (judgement.paid, judgement.outcome) == expected, (position["id"], written, ref, claimed, judgement)
            outcomes[judgement.outcome] += 1
            strays += judgement.reason == "stray_blank_mark"
    # The sample reaches every row of the table that a written play can reach, stray marks among them.
    assert set(outcomes) == {"ok", "warning", "penalty", "zero"}, outcomes
    assert sum(outcomes.values()) >= 1000 and strays >= 100, (outcomes, strays)


def test_first_round_pays_the_best_horizontal_placement_and_the_lowest_blank_reading(twl06, english, fisf):
    rng = random.Random(5)
    empty = Board.empty()
    unmarked_checked = 0
    for _ in range(25):
        rack = "".join(rng.sample(english.full_bag(), 7))
        best: dict[str, dict[str, int]] = defaultdict(dict)  # word as read -> {reading: best score}
        for play in generate_plays(empty, rack, twl06, english, fisf):
            readings = best[play.word.upper()]
            readings[play.word] = max(readings.get(play.word, 0), play.score)
        for upper, readings in best.items():
            for reading, score in readings.items():
                judgement = judge_slip(empty, rack, 1, Slip(reading, None, score), twl06, english, fisf)
                assert (judgement.paid, judgement.outcome) == (score, "ok"), (rack, reading, judgement)
            if upper in readings:
                continue  # the rack holds every letter: nothing to mark
            fewest = min(sum(ch.islower() for ch in r) for r in readings)
            lowest = min(s for r, s in readings.items() if sum(ch.islower() for ch in r) == fewest)
            judgement = judge_slip(empty, rack, 1, Slip(upper, "H8", lowest), twl06, english, fisf)
            assert (judgement.paid, judgement.outcome, judgement.reason) == (lowest, "warning", "blank_not_marked")
            unmarked_checked += 1
    assert unmarked_checked > 0
