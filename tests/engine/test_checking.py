"""check_play: each stage fails with its own reason."""
import pytest

from engine.board import Board
from engine.checking import PlayError, check_play

WORDS = ("CAT", "CATS", "AT", "TA", "ACT", "SCAT", "AS", "TAS", "ZA")


@pytest.fixture
def lexicon(tiny):
    return tiny(*WORDS)


@pytest.fixture
def cat_board(board_with):
    return board_with(("CAT", 7, 6, True))


def reason(board, rack, word, row, col, horizontal, lexicon, english, fisf):
    with pytest.raises(PlayError) as info:
        check_play(board, rack, word, row, col, horizontal, lexicon, english, fisf)
    return info.value


def test_a_valid_play_is_scored_with_its_tiles(cat_board, lexicon, english, fisf):
    play = check_play(cat_board, "SXYZQJV", "CATS", 7, 6, True, lexicon, english, fisf)
    assert play.tiles == ((7, 9, "S", False),)
    assert play.words == ("CATS",)
    assert play.score == 6


@pytest.mark.parametrize("word", ["", "C4T", "CA T", "ÇAT"])
def test_bad_word(word, cat_board, lexicon, english, fisf):
    assert reason(cat_board, "SXYZQJV", word, 7, 6, True, lexicon, english, fisf).reason == "bad_word"


@pytest.mark.parametrize(
    "word,row,col,horizontal",
    [
        ("CATS", 7, 12, True),  # runs off the board
        ("COTS", 7, 6, True),  # O written where the board has A
        ("CAT", 7, 6, True),  # no new tile
        ("AT", 7, 7, True),  # not the whole word: C stands before it
    ],
)
def test_does_not_fit(word, row, col, horizontal, cat_board, lexicon, english, fisf):
    error = reason(cat_board, "SOXYZQJ", word, row, col, horizontal, lexicon, english, fisf)
    assert error.reason == "does_not_fit"


def test_not_connected(cat_board, lexicon, english, fisf):
    assert reason(cat_board, "ACTXYZQ", "ACT", 2, 2, True, lexicon, english, fisf).reason == "not_connected"


def test_first_move_must_cover_the_centre(lexicon, english, fisf):
    assert reason(Board.empty(), "CATXYZQ", "CAT", 7, 0, True, lexicon, english, fisf).reason == "not_centre"
    assert check_play(Board.empty(), "CATXYZQ", "CAT", 7, 6, True, lexicon, english, fisf).score == 10


def test_not_in_rack(cat_board, lexicon, english, fisf):
    assert reason(cat_board, "XYZQJVW", "CATS", 7, 6, True, lexicon, english, fisf).reason == "not_in_rack"
    # A lowercase letter needs a blank, an uppercase one the letter itself.
    assert reason(cat_board, "SXYZQJV", "CATs", 7, 6, True, lexicon, english, fisf).reason == "not_in_rack"
    assert reason(cat_board, "?XYZQJV", "CATS", 7, 6, True, lexicon, english, fisf).reason == "not_in_rack"
    assert check_play(cat_board, "?XYZQJV", "CATs", 7, 6, True, lexicon, english, fisf).score == 5


def test_every_invalid_word_is_reported(cat_board, lexicon, english, fisf):
    # ZAX along row I: ZAX is not a word, nor are the cross-words CZ and AA; TX is not either.
    error = reason(cat_board, "ZAXQJVW", "ZAX", 8, 6, True, lexicon, english, fisf)
    assert error.reason == "invalid_word"
    assert error.invalid_words == ["ZAX", "CZ", "AA", "TX"]


def test_a_valid_main_word_with_an_invalid_cross_word(cat_board, lexicon, english, fisf):
    error = reason(cat_board, "ZAXQJVW", "ZA", 8, 6, True, lexicon, english, fisf)
    assert error.invalid_words == ["CZ", "AA"]


def test_placement_is_checked_before_the_rack_and_the_rack_before_words(cat_board, lexicon, english, fisf):
    assert reason(cat_board, "XYZQJVW", "QQQ", 2, 2, True, lexicon, english, fisf).reason == "not_connected"
    assert reason(cat_board, "XYZQJVW", "CATSS", 7, 6, True, lexicon, english, fisf).reason == "not_in_rack"


def test_board_blanks_match_written_letters_of_either_case(board_with, lexicon, english, fisf):
    board = board_with(("CaT", 7, 6, True))
    for word in ("CaTS", "CATS"):
        play = check_play(board, "SXYZQJV", word, 7, 6, True, lexicon, english, fisf)
        assert play.word == "CaTS" and play.score == 5
