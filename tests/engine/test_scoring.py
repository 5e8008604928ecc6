"""The booklets' worked examples (rules doc §6), replayed through check_play.

Boards are rebuilt from the booklet text: in the US booklet's game HORN has its R on the centre; in the
UK booklet's examples TRAINER lies on row H from column 2 (so STRAINERS starts on the triple word at H1).
"""
import pytest

from engine.board import Board
from engine.checking import check_play

US_WORDS = ("HORN", "FARM", "FARMS", "PASTE", "MOB", "NOT", "BE", "BIT", "PI", "AT")
UK_WORDS = ("TRAIN", "TRAINER", "STRAINERS", "STRAINER", "THROB", "THROBS", "HOB", "HI", "ON", "BE")


@pytest.fixture
def us(tiny):
    return tiny(*US_WORDS)


@pytest.fixture
def uk(tiny):
    return tiny(*UK_WORDS)


def score(board, rack, word, row, col, horizontal, lexicon, english, fisf):
    return check_play(board, rack, word, row, col, horizontal, lexicon, english, fisf).score


def test_us_booklet_game(us, english, fisf):
    # Turn 1: HORN, R on the centre: (4+1+1+1) x 2.
    board = Board.empty()
    play = check_play(board, "HORNXYZ", "HORN", 7, 5, True, us, english, fisf)
    assert play.score == 14
    board = board.place(play)
    # Turn 2: FARM down through the R.
    play = check_play(board, "FAMXYZQ", "FARM", 5, 7, False, us, english, fisf)
    assert play.score == 9
    board = board.place(play)
    # Turn 3: PASTE on row J (P and E on triple letters) and FARMS.
    play = check_play(board, "PASTEXY", "PASTE", 9, 5, True, us, english, fisf)
    assert (play.score, play.words) == (25, ("PASTE", "FARMS"))
    board = board.place(play)
    # Turn 4: O and B make MOB (O on a double letter), NOT and BE.
    play = check_play(board, "OBXYZQJ", "MOB", 8, 7, True, us, english, fisf)
    assert (play.score, sorted(play.words)) == (16, ["BE", "MOB", "NOT"])
    board = board.place(play)
    # Turn 5: BIT on the double word, with PI and AT.
    play = check_play(board, "BITXYZQ", "BIT", 10, 4, True, us, english, fisf)
    assert (play.score, sorted(play.words)) == (16, ["AT", "BIT", "PI"])


TRAINER = ("TRAINER", 7, 1, True)


def test_train_on_the_first_move(uk, english, fisf):
    # T on the double letter at H4, word doubled by the centre: (2+1+1+1+1) x 2.
    assert score(Board.empty(), "TRAINXY", "TRAIN", 7, 3, True, uk, english, fisf) == 12


def test_strainers_premiums_under_old_tiles_do_not_count(uk, english, fisf, board_with):
    assert score(board_with(TRAINER), "SSXYZQJ", "STRAINERS", 7, 0, True, uk, english, fisf) == 27


def test_throb_triple_letter(uk, english, fisf, board_with):
    assert score(board_with(TRAINER), "HROBXYZ", "THROB", 7, 1, False, uk, english, fisf) == 12


def test_hob_parallel_play_scores_every_word(uk, english, fisf, board_with):
    play = check_play(board_with(TRAINER), "HOBXYZQ", "HOB", 6, 4, True, uk, english, fisf)
    assert play.words == ("HOB", "HI", "ON", "BE")
    assert play.score == 11 + 5 + 2 + 7 == 25


def test_throbs_hooks_strainer_on_the_triple_word(uk, english, fisf, board_with):
    play = check_play(board_with(TRAINER), "THROBSX", "THROBS", 2, 0, False, uk, english, fisf)
    assert play.words == ("THROBS", "STRAINER")
    assert play.score == 45 + 24 == 69


def test_conquest_two_triple_words(tiny, english, fisf, board_with):
    lexicon = tiny("CONQUEST", "NA", "SO")
    board = board_with(("NA", 0, 2, False), ("SO", 0, 6, False))
    play = check_play(board, "COQUETX", "CONQUEST", 0, 0, True, lexicon, english, fisf)
    assert play.score == (19 + 10) * 3 * 3 == 261


def test_blank_scores_zero_but_triggers_word_premium(tiny, english, fisf):
    lexicon = tiny("HORN")
    # A blank as R on the centre: (4+1+0+1) x 2.
    assert score(Board.empty(), "HO?NXYZ", "HOrN", 7, 5, True, lexicon, english, fisf) == 12


def test_bingo_bonus_after_word_multipliers(tiny, english, fisf):
    lexicon = tiny("TRAINER")
    # TRAINER from H2: A on the double letter at H4, R on the centre: (1+1+2+1+1+1+1) x 2 + 50.
    assert score(Board.empty(), "TRAINER", "TRAINER", 7, 1, True, lexicon, english, fisf) == 16 + 50


def test_values_come_from_the_tile_set(tiny, fisf):
    from engine.tiles import load_tileset

    french = load_tileset("french")
    lexicon = tiny("KIWI")
    # K 10 and W 10 in French; KIWI from H5 has its W on the centre: (10+1+10+1) x 2.
    assert check_play(Board.empty(), "KIWIXYZ", "KIWI", 7, 5, True, lexicon, french, fisf).score == 44
