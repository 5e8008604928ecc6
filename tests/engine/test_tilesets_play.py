"""Games on tile sets with tiles of more than one letter (Spanish CH, LL, RR, Ñ; Catalan L·L, NY, QU, Ç):
word lists spelled into tiles at import, slips written as spelled and judged on tiles, both searches on the
new codes."""

from __future__ import annotations

import random

import pytest

from engine.board import Board
from engine.checking import PlayError, check_play
from engine.judging import Slip, judge_slip, read_word
from engine.lexicon import import_lexicon
from engine.notation import WordError
from engine.rules import rules_preset
from engine.search import best_plays, compiled_search_installed, count_plays, find_tops, use_compiled_search
from engine.tiles import load_tileset

SPANISH = load_tileset("spanish")
CATALAN = load_tileset("catalan")
FISF = rules_preset("fisf")
SPANISH_WORDS = ["coche", "coches", "perro", "perros", "calle", "calles", "chico", "chicos", "ocho", "eso", "ese",
                 "oso", "osos", "sol", "hecho", "ñu", "ñus", "año", "años", "pingüino", "kiwi", "fútbol", "x-ray",
                 "cocer", "roce", "roces", "recocho", "loco", "locos", "col", "coles", "sello", "ceso", "cero"]
CATALAN_WORDS = ["col·legi", "col·legis", "any", "anys", "que", "qüestió", "caça", "llum", "whisky", "lloc", "coll"]


@pytest.fixture(scope="module")
def spanish(tmp_path_factory):
    return import_lexicon("es-test", SPANISH_WORDS, SPANISH, cache_dir=tmp_path_factory.mktemp("lex"))


@pytest.fixture(scope="module")
def catalan(tmp_path_factory):
    return import_lexicon("ca-test", CATALAN_WORDS, CATALAN, cache_dir=tmp_path_factory.mktemp("lex"))


def test_import_spells_each_word_into_tiles_and_lists_what_it_cannot(spanish, catalan):
    lexicon = spanish.lexicon
    assert "COΘE" in lexicon and "COCHE" not in lexicon  # C, O, CH, E: the CH tile, never C and H
    assert "PEΞO" in lexicon and "CAΛE" in lexicon and "ΔUS" in lexicon and "PINGUINO" in lexicon
    assert sorted(spanish.rejected) == ["kiwi", "x-ray"]  # no K tile (a blank stands for tiles only); a hyphen
    assert [SPANISH.show(w) for w in lexicon.words()][:3] == ["AÑO", "AÑOS", "CALLE"]
    assert "COWEGI" in catalan.lexicon and "AY" in catalan.lexicon and "QESTIO" in catalan.lexicon
    assert catalan.rejected == ["whisky"]
    assert "LLUM" in catalan.lexicon and "COL" not in catalan.lexicon  # LL without the dot: two L tiles


def test_words_read_back_from_the_database_compile_to_the_same_list(spanish, tmp_path):
    again = import_lexicon("es-again", list(spanish.lexicon.words()), SPANISH, cache_dir=tmp_path, stored=True)
    assert again.rejected == [] and again.lexicon.sha256 == spanish.lexicon.sha256


def test_a_slip_word_is_read_as_the_lexicon_spells_it(spanish):
    lexicon = spanish.lexicon
    assert read_word("COCHE", SPANISH, lexicon) == "COΘE"
    assert read_word("coche", SPANISH, lexicon) == "coθe"  # all blanks: read as the word the list holds
    assert read_word("CO[ch]E", SPANISH, lexicon) == "COθE"
    assert read_word("COCHE", load_tileset("english"), lexicon) == "COCHE"  # a plain set: the text itself
    with pytest.raises(WordError) as caught:
        read_word("KIWI", SPANISH, lexicon)
    assert caught.value.code == "bad_word" and "K" in caught.value.message


def test_a_c_and_an_h_never_make_ch(spanish):
    lexicon = spanish.lexicon
    board = Board.empty()
    paid = judge_slip(board, SPANISH.read_rack("1OCEOSR"), 2, Slip("COCHE", "H5", 20), lexicon, SPANISH, FISF)
    assert (paid.outcome, paid.paid, paid.play.word) == ("ok", 20, "COΘE")
    assert paid.message.startswith("COCHE H5 20")  # the message says the word by its labels
    refused = judge_slip(board, "CHOCEOS", 2, Slip("COCHE", "H5", 20), lexicon, SPANISH, FISF)
    assert (refused.outcome, refused.reason, refused.paid) == ("zero", "not_in_rack", 0)
    assert refused.message.endswith("(CH)")
    with pytest.raises(PlayError) as caught:
        check_play(board, "CHOCEOS", "COΘE", 7, 4, True, lexicon, SPANISH, FISF)
    assert caught.value.missing == ["Θ"]


def test_a_blank_as_a_digraph_is_written_lowercase_or_in_brackets(spanish):
    lexicon = spanish.lexicon
    board = Board.empty()
    for written in ("CO[ch]E", "COchE"):
        paid = judge_slip(board, SPANISH.read_rack("?OCEOSR"), 2, Slip(written, "H5", 10), lexicon, SPANISH, FISF)
        assert (paid.outcome, paid.paid, paid.play.word) == ("ok", 10, "COθE"), written
        assert ("ch", 6) in [(SPANISH.label(t[2].lower() if t[3] else t[2]), t[1]) for t in paid.play.tiles]
    # The RR tile on a paper slip: PERRO.
    paid = judge_slip(board, SPANISH.read_rack("3PEOSRA"), 2, Slip("PERRO", "H5", None), lexicon, SPANISH, FISF)
    assert paid.play.word == "PEΞO" and paid.reason == "wrong_score" and paid.paid == 2 * (3 + 1 + 8 + 1)


def test_catalan_slips(catalan):
    lexicon = catalan.lexicon
    rack = CATALAN.read_rack("COWEGIA")  # W: the L·L tile's one-key alias
    paid = judge_slip(Board.empty(), rack, 2, Slip("COL·LEGI", "H5", None), lexicon, CATALAN, FISF)
    assert paid.play.word == "COWEGI" and paid.paid > 0
    assert CATALAN.show(paid.play.word) == "COL·LEGI"


@pytest.mark.skipif(not compiled_search_installed(), reason="the compiled search (numba) is not installed")
@pytest.mark.parametrize("seed", range(6))
def test_both_searches_agree_on_spanish_tiles(spanish, seed):
    lexicon = spanish.lexicon
    rng = random.Random(seed)
    board = Board.empty()
    first = find_tops(board, SPANISH.read_rack("1OCEOSR"), lexicon, SPANISH, FISF).plays[0]
    board = board.place(first)
    bag = SPANISH.full_bag()
    results = []
    for compiled in (False, True):
        use_compiled_search(compiled)
        try:
            r = random.Random(seed)
            racks = ["".join(r.sample(bag, 7)) for _ in range(8)]
            results.append([(find_tops(board, rack, lexicon, SPANISH, FISF).score,
                             sorted((p.word, p.row, p.col, p.horizontal) for p in
                                    find_tops(board, rack, lexicon, SPANISH, FISF).plays),
                             count_plays(board, rack, lexicon, SPANISH, FISF),
                             [p.score for p in best_plays(board, rack, lexicon, SPANISH, FISF, 5)]) for rack in racks])
        finally:
            use_compiled_search(True)
    assert results[0] == results[1]
    assert rng is not None and any(count for _, _, count, _ in results[0])


def test_an_arbitrator_marks_a_digraph_blank_with_one_question_mark(spanish):
    from engine.notation import parse_marked_word

    assert parse_marked_word("co?che", SPANISH) == "COchE"
    assert read_word(parse_marked_word("CO?CHE", SPANISH), SPANISH, spanish.lexicon) == "COθE"
    assert parse_marked_word("col·legi", CATALAN) == "COL·LEGI"
    assert parse_marked_word("SA?LAD", load_tileset("english")) == "SAlAD"  # plain sets: as before
    with pytest.raises(WordError) as caught:
        parse_marked_word("CO?", SPANISH)
    assert caught.value.code == "bad_blank_mark"


def test_a_romanian_blank_stands_for_k_q_w_y_which_have_no_tile(tmp_path):
    # The Romanian rules let a joker stand for K, Q, W and Y (no tiles of their own): the list keeps such
    # words, a slip writes the blank in lowercase, and the search finds the play; an uppercase K is refused.
    romanian = load_tileset("romanian")
    imported = import_lexicon("ro-test", ["kiwi", "casa", "yak"], romanian, cache_dir=tmp_path)
    lexicon = imported.lexicon
    assert imported.rejected == [] and "KIWI" in lexicon and "YAK" in lexicon
    assert read_word("kIwI", romanian, lexicon) == "kIwI"
    paid = judge_slip(Board.empty(), "??IIRST", 2, Slip("kIwI", "H5", 4), lexicon, romanian, FISF)
    assert (paid.outcome, paid.paid, paid.play.word) == ("ok", 4, "kIwI")
    refused = judge_slip(Board.empty(), "??IIRST", 2, Slip("KIWI", "H5", 4), lexicon, romanian, FISF)
    assert (refused.outcome, refused.reason, refused.paid) == ("zero", "bad_word", 0)
    assert "no tile for K, W" in refused.message  # uppercase: a tile, and the set has none
    tops = find_tops(Board.empty(), "??IIRST", lexicon, romanian, FISF)
    assert tops.score == 4 and {p.word for p in tops.plays} == {"kIwI"}
    # Spanish blanks stand for tiles of the set only: k is not read there.
    assert SPANISH.spellings("kIWI") == [] and load_tileset("romanian").spellings("KIWI") == []
