"""Where the joker's real letter comes from (docs/rules.md 7.1, "The joker's letter"): from the bag only.

A blank the master placed becomes its real letter when the bag holds one: the letter leaves the bag, the
blank goes back in. A copy of that letter among the letters kept on the rack is not taken: it stays on the
rack for the next round, the blank stays on the board, and every tile of the set is still in exactly one
place (board, bag, kept letters). Both cases are played here on the French tile set, whose K is single; and
over whole joker games the masters (tops) never leave a kept copy of a letter their blank stands for, so
for a master that is a top the bag-only rule and a rule that also took from the kept letters agree."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from engine.board import Board
from engine.drawing import replace_played_blanks
from engine.pregame import draw_game
from engine.rules import variant_rules
from engine.tiles import BLANK, letter_code, load_tileset

FRENCH = load_tileset("french")
JOKER = variant_rules("joker")
GAMES = 3


@dataclass(frozen=True)
class Placed:
    tiles: tuple


def on_board(board: Board) -> Counter:
    """The tiles on the board as the set counts them: a blank as '?', a letter as itself."""
    rows = board.rows()
    return Counter("?" if ch.islower() else ch for row in rows for ch in row if ch != ".")


def test_the_joker_s_letter_comes_from_the_bag():
    # The master places OKA across from H8 with its blank as the K; the bag still holds the set's K.
    tiles = ((7, 7, "O", False), (7, 8, "k", True), (7, 9, "A", False))
    kept = "EEIRS"
    bag = FRENCH.full_bag()
    for ch in "OA?" + kept:
        bag.remove(ch)
    board = Board.empty().place(Placed(tiles))
    assert board.tile(7, 8) == letter_code("K") | BLANK
    after, bag_after, replaced = replace_played_blanks(board, tiles, bag, JOKER)
    assert replaced == "K"
    assert after.tile(7, 8) == letter_code("K")  # the real K on the board, scored at its value from now on
    assert Counter(bag_after) == Counter(bag) - Counter("K") + Counter("?")  # the blank back in the bag
    assert on_board(after) + Counter(bag_after) + Counter(kept) == Counter(FRENCH.full_bag())


def test_a_copy_of_the_letter_kept_on_the_rack_is_not_taken():
    # The same master, but the set's only K is among the letters kept on the rack: the bag holds none.
    tiles = ((7, 7, "O", False), (7, 8, "k", True), (7, 9, "A", False))
    kept = "EEIKS"
    bag = FRENCH.full_bag()
    for ch in "OA?" + kept:
        bag.remove(ch)
    assert "K" not in bag
    board = Board.empty().place(Placed(tiles))
    after, bag_after, replaced = replace_played_blanks(board, tiles, bag, JOKER)
    assert replaced == ""
    assert after.tile(7, 8) == letter_code("K") | BLANK  # the blank stays on the board, worth 0
    assert Counter(bag_after) == Counter(bag)  # nothing taken, no blank back
    # The kept K stays on the rack: every tile is still in one place (taking it too would put a second K
    # into play, the board's and the rack's).
    assert on_board(after) + Counter(bag_after) + Counter(kept) == Counter(FRENCH.full_bag())


@pytest.mark.parametrize("seed", range(GAMES))
def test_a_top_never_keeps_a_copy_of_the_letter_its_blank_stands_for(seed, twl06, english):
    """A real tile in the blank's place scores its value more, so a top that places a blank standing for a
    letter holds no unplayed copy of it: with a top as master the kept letters never hold the joker's
    letter, and the rule of where it comes from only matters for a master that is not a top."""
    game = draw_game(seed, twl06, english, variant_rules("joker"))
    blanks = 0
    for played in game.rounds:
        if played.master is None:
            continue
        used = Counter("?" if is_blank else letter.upper() for *_, letter, is_blank in played.master.tiles)
        kept = Counter(played.rack) - used
        for *_, letter, is_blank in played.master.tiles:
            if is_blank:
                blanks += 1
                assert kept[letter.upper()] == 0, (seed, played.number, played.rack, played.master)
    assert blanks >= 1, "some master placed a blank"
