"""Tile sets as data (engine/data/tilesets/*.csv): each shipped set's count, blanks and values from its cited
source; labels, storage characters and aliases; typed racks read with the aliases, and refused with both
readings when they can be read two ways; words written as spelled read as tiles."""

from __future__ import annotations

import pytest

from engine.tiles import (
    BLANK,
    EXTRA_CHARS,
    TILESETS,
    TileReadingError,
    decode,
    decode_word,
    encode,
    load_tileset,
    parse_tileset,
)

# (tiles in the bag with the blanks, blanks, tiles of the set) by set, from each file's source.
SIZES = {
    "english": (100, 2, 26),
    "french": (102, 2, 26),
    "spanish": (100, 2, 28),
    "catalan": (100, 2, 26),
    "romanian": (100, 2, 22),
    "dutch": (102, 2, 26),
    "german": (102, 2, 29),
    "italian": (120, 2, 21),
}


@pytest.mark.parametrize("name", TILESETS)
def test_each_shipped_set_has_its_count_blanks_and_a_source(name):
    ts = load_tileset(name)
    size, blanks, tiles = SIZES[name]
    assert len(ts.full_bag()) == size == ts.size
    assert ts.blanks == blanks and ts.full_bag().count("?") == blanks
    assert len(ts.letters) == tiles
    assert ts.source.strip()
    # Every storage character encodes to a distinct code 1..31 and back.
    codes = [encode(letter.letter) for letter in ts.letters]
    assert len(set(codes)) == len(codes) and all(0 < c < BLANK for c in codes)
    assert all(decode(c) == letter.letter for c, letter in zip(codes, ts.letters, strict=True))


def test_spanish_tiles_from_wolges():
    es = load_tileset("spanish")
    assert es.labels("ΘΛΞΔ") == ["CH", "LL", "RR", "Ñ"]
    assert [es.value(ch) for ch in "ΘΛΞΔZ"] == [5, 8, 8, 8, 10]
    assert not es.has_letter("K") and not es.has_letter("W")
    assert encode("K") not in es.blank_codes and encode("W") not in es.blank_codes
    assert es.full_bag().count("A") == 12 and es.full_bag().count("Θ") == 1


def test_catalan_stores_its_digraphs_under_their_one_key_aliases():
    ca = load_tileset("catalan")
    assert ca.labels("KWYQ") == ["Ç", "L·L", "NY", "QU"]
    assert ca.value("W") == 10 and ca.value("Q") == 8


def test_english_points_total_187():
    english = load_tileset("english")
    assert sum(english.value(ch) for ch in english.full_bag()) == 187


def test_english_and_french_are_unchanged():
    for name in ("english", "french"):
        ts = load_tileset(name)
        assert ts.plain
        assert [letter.letter for letter in ts.letters] == [chr(65 + i) for i in range(26)]
        assert ts.show("SALAD") == "SALAD"
    assert decode_word([encode(ch) for ch in "AZaz?."]) == "AZaz?."


def test_extra_storage_characters_have_blanks():
    for i, ch in enumerate(EXTRA_CHARS):
        assert encode(ch) == 27 + i and encode(ch.lower()) == (27 + i) | BLANK
        assert decode(encode(ch.lower())) == ch.lower()


@pytest.mark.parametrize("typed", ["123AEIO", "[CH][LL][RR]AEIO", "[ch][ll][rr]aeio", " 1 2 3 a e i o "])
def test_a_rack_typed_with_the_aliases_reads_as_three_digraphs_and_four_letters(typed):
    es = load_tileset("spanish")
    rack = es.read_rack(typed)
    assert len(rack) == 7
    assert es.labels(rack) == ["CH", "LL", "RR", "A", "E", "I", "O"]
    assert es.typed(rack) == "[CH][LL][RR]AEIO"


def test_a_rack_read_two_ways_is_refused_with_both_readings():
    es = load_tileset("spanish")
    with pytest.raises(TileReadingError) as caught:
        es.read_rack("CHAEIOU")
    assert caught.value.code == "ambiguous_rack"
    assert "CH A E I O U" in caught.value.message and "C H A E I O U" in caught.value.message
    # Bracketed, it is one reading.
    assert es.labels(es.read_rack("[CH]AEIOU")) == ["CH", "A", "E", "I", "O", "U"]
    # A one-key alias counts only where no label reads (docs/rules.md "Typing words and racks"): Catalan QU
    # is the QU tile, not the alias Q and a U.
    ca = load_tileset("catalan")
    assert ca.labels(ca.read_rack("QUAEI")) == ["QU", "A", "E", "I"]
    assert ca.labels(ca.read_rack("QAEI")) == ["QU", "A", "E", "I"]


def test_a_rack_with_a_letter_the_set_lacks_is_refused():
    with pytest.raises(TileReadingError) as caught:
        load_tileset("spanish").read_rack("KAEIOU?")
    assert caught.value.code == "no_tile" and "KAEIOU?" in caught.value.message


def test_words_as_spelled_read_as_tiles_every_way_greedy_first():
    es = load_tileset("spanish")
    assert es.spellings("COCHE") == ["COΘE", "COCHE"]
    assert es.spellings("PERRO")[0] == "PEΞO" and es.spellings("CALLE")[0] == "CAΛE"
    assert es.spellings("coche")[0] == "coθe"  # lowercase: blanks
    assert es.spellings("[ch]E") == ["θE"]
    assert es.spellings("ESPAÑA") == ["ESPAΔA"]
    ca = load_tileset("catalan")
    assert ca.spellings("COL·LEGI") == ["COWEGI"]
    assert ca.spellings("ANY") == ["AY"] and ca.spellings("QUE") == ["QE"] and ca.spellings("CAÇA") == ["CAKA"]
    assert ca.spellings("WHISKY") == []


def test_word_lists_are_spelled_by_the_set_rule():
    es = load_tileset("spanish")
    assert es.spell("coche") == "COΘE" and es.spell("perro") == "PEΞO" and es.spell("calle") == "CAΛE"
    assert es.spell("pingüino") == "PINGUINO" and es.spell("ñandú") == "ΔANDU"
    assert es.spell("kiwi") is None and es.spell("whisky") is None
    ca = load_tileset("catalan")
    assert ca.spell("col·legi") == "COWEGI" and ca.spell("qüestió") == "QESTIO" and ca.spell("llum") == "LLUM"
    assert ca.spell("whisky") is None
    de = load_tileset("german")
    assert de.spell("Straße") == "STRASSE" and de.show(de.spell("Äpfel")) == "ÄPFEL"
    ro = load_tileset("romanian")
    assert ro.spell("știință") == "STIINTA"


def test_bad_tile_set_files_are_refused():
    with pytest.raises(ValueError, match="storage character"):
        parse_tileset("x", "letter,count,value,vowel,store\nCH,1,5,no,Ç\n?,2,0,either,\n")
    with pytest.raises(ValueError, match="two tiles labelled"):
        parse_tileset("x", "letter,count,value,vowel,store\nA,1,1,yes,\nA,1,1,yes,B\n?,2,0,either,\n")
    with pytest.raises(ValueError, match="unknown tile set"):
        load_tileset("klingon")


def test_checked_counts_and_values_of_the_sets_without_a_wolges_alphabet():
    # Romanian and Italian figures as checked against the sources named in each file's source line.
    ro = load_tileset("romanian")
    assert [(ro.full_bag().count(ch), ro.value(ch)) for ch in "ABGHMPVX"] == [
        (11, 1), (2, 9), (2, 9), (1, 10), (3, 4), (4, 2), (2, 8), (1, 10)]
    assert sum(ro.value(ch) for ch in ro.full_bag()) == 211  # the source table's points, summed by hand
    it = load_tileset("italian")
    assert [(it.full_bag().count(ch), it.value(ch)) for ch in "AOEIUQZHC"] == [
        (14, 1), (15, 1), (11, 1), (12, 1), (5, 3), (1, 10), (2, 8), (2, 8), (6, 2)]
    assert not any(it.has_letter(ch) for ch in "JKWXY")
    assert encode("K") not in it.blank_codes  # a blank stands for a tile of the set (not checked: see the file)
    for ch in "KQWY":  # the Romanian joker may stand for the letters that have no tile
        assert not ro.has_letter(ch) and encode(ch) in ro.blank_codes


def test_dutch_and_german_values_from_wolges():
    nl, de = load_tileset("dutch"), load_tileset("german")
    assert [(nl.full_bag().count(ch), nl.value(ch)) for ch in "ENCWQ"] == [(18, 1), (10, 1), (2, 5), (2, 5), (1, 10)]
    assert [(de.full_bag().count(ch), de.value(ch)) for ch in "ENΔΘΛY"] == [
        (15, 1), (9, 1), (1, 6), (1, 8), (1, 6), (1, 10)]
    assert de.labels("ΔΘΛ") == ["Ä", "Ö", "Ü"]


def test_a_play_that_disagrees_with_the_board_is_refused_in_labels(tmp_path):
    from engine.board import Board
    from engine.checking import PlayError, check_play
    from engine.lexicon import import_lexicon
    from engine.rules import variant_rules

    es = load_tileset("spanish")
    rows = ["." * 15] * 7 + ["...SEΞAS......."] + ["." * 15] * 7  # SERRAS on row H from column 4
    lexicon = import_lexicon("ESPRUEBA", ["SERRAS", "SERAÑO"], es, cache_dir=tmp_path).lexicon
    with pytest.raises(PlayError) as caught:
        check_play(Board.from_rows(rows), "AEIOUΔS", es.spell("SERAÑO"), 7, 3, True, lexicon, es,
                   variant_rules("duplicate"))
    assert caught.value.reason == "does_not_fit"
    assert str(caught.value) == "SERAÑO: the board has RR where R is written", str(caught.value)
