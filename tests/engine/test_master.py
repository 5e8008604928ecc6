import pytest

from engine.board import Board
from engine.master import anchors, choose_master, leave, openness
from engine.movegen import Play, Tops
from engine.rules import rules_preset
from engine.tiles import load_tileset

ENGLISH = load_tileset("english")
FISF = rules_preset("fisf")


def play(word, row, col, horizontal, score=10, blanks=(), board=None):
    """A Play placing every letter of ``word`` not already on ``board``; ``blanks``: indexes that are blanks."""
    tiles = []
    for i, ch in enumerate(word):
        r, c = (row, col + i) if horizontal else (row + i, col)
        if board is not None and board.get(r, c) != ".":
            continue
        tiles.append((r, c, ch.upper(), i in blanks))
    return Play(word, row, col, horizontal, score, tuple(tiles), (word,))


def test_anchors_are_empty_squares_next_to_a_tile():
    board = Board.empty().place(play("AB", 7, 7, True))
    assert sorted(anchors(board)) == [(6, 7), (6, 8), (7, 6), (7, 9), (8, 7), (8, 8)]
    assert anchors(Board.empty()) == []


def test_a_play_without_a_blank_is_preferred_even_if_less_open():
    with_blank = play("CAT", 7, 6, True, blanks=(0,))
    without = play("AT", 7, 7, True)
    board = Board.empty()
    assert openness(board, with_blank)[0] > openness(board, without)[0]
    assert choose_master([with_blank, without], board, [], ENGLISH, FISF) == without


def test_blanks_do_not_matter_when_every_tie_uses_one():
    a = play("CAT", 7, 6, True, blanks=(0,))
    b = play("AT", 7, 7, True, blanks=(1,))
    assert choose_master([b, a], Board.empty(), [], ENGLISH, FISF) == a


def test_a_play_ending_the_game_is_chosen():
    board = Board.empty().place(play("HORN", 7, 5, True))
    rack = "ABE"  # the bag is empty
    ending = play("HAB", 7, 5, False, board=board)  # places A and B, keeps E: one letter left, game over
    more_open = play("A", 2, 2, True)  # keeps B and E: a vowel and a consonant, the game goes on
    assert leave(rack, ending) == "E" and leave(rack, more_open) == "BE"
    assert openness(board, more_open)[0] > openness(board, ending)[0]
    assert choose_master([more_open, ending], board, [], ENGLISH, FISF, rack=rack) == ending
    # With letters of both kinds still in the bag neither play ends the game: the more open one wins.
    assert choose_master([more_open, ending], board, list("IC"), ENGLISH, FISF, rack=rack) == more_open


def test_among_ending_plays_the_most_open_is_chosen():
    board = Board.empty().place(play("HORN", 7, 5, True))
    ending = play("HAB", 7, 5, False, board=board)
    far = play("AB", 2, 2, True)  # also keeps E only
    assert openness(board, far)[0] > openness(board, ending)[0]
    assert choose_master([ending, far], board, [], ENGLISH, FISF, rack="ABE") == far


def test_the_blank_rule_comes_before_the_ending_rule():
    board = Board.empty().place(play("HORN", 7, 5, True))
    rack = "AB?"
    ending_with_blank = play("HORNBE", 7, 5, True, blanks=(5,), board=board)  # keeps A
    plain = play("OB", 7, 6, False, board=board)  # keeps A and ?
    assert choose_master([ending_with_blank, plain], board, [], ENGLISH, FISF, rack=rack) == plain


def test_no_rack_no_ending_rule():
    board = Board.empty().place(play("HORN", 7, 5, True))
    ending = play("HAB", 7, 5, False, board=board)
    more_open = play("A", 2, 2, True)
    assert choose_master([ending, more_open], board, [], ENGLISH, FISF) == more_open


def test_the_most_open_board_is_preferred():
    board = Board.empty()
    short = play("AT", 7, 7, True)
    longer = play("CAT", 7, 6, True)
    assert choose_master([short, longer], board, [], ENGLISH, FISF) == longer
    assert choose_master([longer, short], board, [], ENGLISH, FISF) == longer


def test_fewer_anchors_on_word_premiums_break_an_openness_tie():
    board = Board.empty()
    centre = play("AT", 7, 7, True)  # anchors around H8-H9: none on a word premium
    near_premiums = play("AT", 3, 4, True)  # anchors (3,3) and (4,4) are double-word squares
    assert openness(board, centre) == (6, 0)
    assert openness(board, near_premiums) == (6, 2)
    assert choose_master([near_premiums, centre], board, [], ENGLISH, FISF) == centre


def test_fixed_order_breaks_the_last_ties():
    board = Board.empty()
    across = play("AT", 1, 4, True)
    down = play("AT", 1, 4, False)
    later = play("AT", 1, 5, True)
    assert openness(board, across) == openness(board, down) == openness(board, later)
    assert choose_master([later, down, across], board, [], ENGLISH, FISF) == across
    assert choose_master([later, down], board, [], ENGLISH, FISF) == down


def test_accepts_tops_and_refuses_nothing():
    board = Board.empty()
    best = play("CAT", 7, 6, True)
    assert choose_master(Tops(10, (play("AT", 7, 7, True), best)), board, [], ENGLISH, FISF) == best
    with pytest.raises(ValueError):
        choose_master(Tops(None, ()), board, [], ENGLISH, FISF)


def test_leave_takes_placed_blanks_from_the_rack():
    placed = play("CAT", 7, 6, True, blanks=(0,))
    assert leave("AT?E?", placed) == "E?"
    assert leave("?TAE?", placed) == "E?"
