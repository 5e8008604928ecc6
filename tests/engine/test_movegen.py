"""Move generation on tiny word lists, checked against check_play and hand counts."""
from engine.board import Board
from engine.checking import check_play
from engine.movegen import find_tops, generate_plays
from engine.rules import rules_preset


def keys(plays):
    return sorted((p.word, p.row, p.col, p.horizontal, p.score) for p in plays)


def test_first_move_is_horizontal_and_covers_the_centre(tiny, english, fisf):
    lexicon = tiny("AT", "TA")
    plays = generate_plays(Board.empty(), "AT", lexicon, english, fisf)
    assert keys(plays) == [
        ("AT", 7, 6, True, 4), ("AT", 7, 7, True, 4), ("TA", 7, 6, True, 4), ("TA", 7, 7, True, 4)
    ]
    classic = rules_preset("classic", first_move_horizontal=False)
    assert len(generate_plays(Board.empty(), "AT", lexicon, english, classic)) == 8


def test_no_play_gives_no_top(tiny, english, fisf, board_with):
    lexicon = tiny("CAT")
    tops = find_tops(board_with(("CAT", 7, 6, True)), "QQQ", lexicon, english, fisf)
    assert tops.score is None and tops.plays == ()


def test_a_blank_standing_for_a_letter_on_the_rack_is_a_distinct_play(tiny, english, fisf, board_with):
    lexicon = tiny("CAT", "CATS")
    plays = generate_plays(board_with(("CAT", 7, 6, True)), "S?", lexicon, english, fisf)
    assert keys(plays) == [("CATS", 7, 6, True, 6), ("CATs", 7, 6, True, 5)]
    tops = find_tops(board_with(("CAT", 7, 6, True)), "S?", lexicon, english, fisf)
    assert tops.score == 6 and keys(tops.plays) == [("CATS", 7, 6, True, 6)]


def test_every_tie_is_a_top(tiny, english, fisf):
    lexicon = tiny("AB", "BA")
    tops = find_tops(Board.empty(), "AB", lexicon, english, fisf)
    assert tops.score == 8
    assert keys(tops.plays) == [
        ("AB", 7, 6, True, 8), ("AB", 7, 7, True, 8), ("BA", 7, 6, True, 8), ("BA", 7, 7, True, 8)
    ]


def test_a_one_tile_play_forming_two_words_is_listed_once_named_across(tiny, english, fisf, board_with):
    lexicon = tiny("AT", "AA", "AS", "AAS")
    board = board_with(("AT", 7, 7, True), ("AA", 8, 5, True))
    # S on I8 makes AAS across and AS down.
    plays = [p for p in generate_plays(board, "S", lexicon, english, fisf) if p.tiles == ((8, 7, "S", False),)]
    assert [(p.word, p.horizontal, p.words) for p in plays] == [("AAS", True, ("AAS", "AS"))]


def test_plays_agree_with_check_play(tiny, english, fisf, board_with):
    lexicon = tiny("CAT", "CATS", "SCAT", "AT", "TA", "AS", "TAS", "ACT", "ACTS", "TACT", "ST")
    board = board_with(("CAT", 7, 6, True), ("TA", 8, 9, True))
    plays = generate_plays(board, "SATC?", lexicon, english, fisf)
    assert plays
    for p in plays:
        checked = check_play(board, "SATC?", p.word, p.row, p.col, p.horizontal, lexicon, english, fisf)
        assert (checked.score, checked.tiles, checked.words) == (p.score, p.tiles, p.words)


def test_down_plays_mirror_across_plays(tiny, english, fisf, board_with):
    lexicon = tiny("CAT", "CATS", "SCAT", "AT", "TA", "AS", "TAS", "ACT", "ACTS")
    across = board_with(("CAT", 7, 6, True))
    down = board_with(("CAT", 6, 7, False))
    mirrored = sorted((w, c, r, not h, s) for w, r, c, h, s in keys(generate_plays(across, "SAT", lexicon, english, fisf)))
    assert keys(generate_plays(down, "SAT", lexicon, english, fisf)) == mirrored
