import pytest

from engine.notation import Ref, RefError, WordError, canonical_ref, format_ref, labels, parse_ref, parse_word
from engine.tiles import Letter, TileSet, load_tileset


@pytest.mark.parametrize(
    "text, expected",
    [
        ("H4", Ref(7, 3, True)),
        ("4H", Ref(7, 3, False)),
        ("H8", Ref(7, 7, True)),
        ("A1", Ref(0, 0, True)),
        ("O15", Ref(14, 14, True)),
        ("15O", Ref(14, 14, False)),
        ("h 4", Ref(7, 3, True)),
        (" 4h ", Ref(7, 3, False)),
        ("1 2 c", Ref(2, 11, False)),
        ("\tb\n10", Ref(1, 9, True)),
    ],
)
def test_rows_letters_references(text, expected):
    assert parse_ref(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("8H", Ref(7, 7, True)),
        ("H8", Ref(7, 7, False)),
        ("4H", Ref(3, 7, True)),
        ("H4", Ref(3, 7, False)),
        ("15a", Ref(14, 0, True)),
        (" a 15", Ref(14, 0, False)),
    ],
)
def test_rows_numbers_references(text, expected):
    assert parse_ref(text, labelling="rows-numbers") == expected


@pytest.mark.parametrize(
    "text, code",
    [
        ("Q9", "off_board"),
        ("H16", "off_board"),
        ("H0", "off_board"),
        ("16H", "off_board"),
        ("9Q", "off_board"),
        ("88", "bad_ref"),
        ("", "empty_ref"),
        ("   ", "empty_ref"),
        (None, "empty_ref"),
        ("H", "bad_ref"),
        ("HH", "bad_ref"),
        ("H4x", "bad_ref"),
        ("4H4", "bad_ref"),
        ("AB4", "bad_ref"),
        ("H-4", "bad_ref"),
        ("H٤", "bad_ref"),
    ],
)
def test_bad_references_have_precise_codes(text, code):
    with pytest.raises(RefError) as caught:
        parse_ref(text)
    assert caught.value.code == code
    assert caught.value.message


def test_off_board_in_the_other_labelling():
    with pytest.raises(RefError) as caught:
        parse_ref("16A", labelling="rows-numbers")
    assert caught.value.code == "off_board"
    with pytest.raises(RefError) as caught:
        parse_ref("P1", labelling="rows-numbers")
    assert caught.value.code == "off_board"


def test_unknown_labelling_is_refused():
    with pytest.raises(ValueError, match="labelling"):
        parse_ref("H4", labelling="columns-first")


@pytest.mark.parametrize("labelling", ["rows-letters", "rows-numbers"])
def test_format_then_parse_round_trips_every_square(labelling):
    for row in range(15):
        for col in range(15):
            for horizontal in (True, False):
                text = format_ref(row, col, horizontal, labelling=labelling)
                assert text == text.strip().upper()
                assert parse_ref(text, labelling=labelling) == Ref(row, col, horizontal)


def test_canonical_forms():
    assert format_ref(7, 3, True) == "H4"
    assert format_ref(7, 3, False) == "4H"
    assert format_ref(7, 7, True, labelling="rows-numbers") == "8H"
    assert format_ref(3, 7, False, labelling="rows-numbers") == "H4"
    ref = parse_ref(" h 12 ")
    assert format_ref(ref.row, ref.col, ref.horizontal) == "H12"


def test_format_refuses_squares_off_the_board():
    with pytest.raises(ValueError):
        format_ref(15, 0, True)


def test_flipped_reference_is_the_same_square_the_other_way():
    assert parse_ref("H4").flipped() == parse_ref("4H")


@pytest.mark.parametrize("text, expected", [("HORN", "HORN"), (" qUA ", "qUA"), ("x", "x")])
def test_slip_words(text, expected):
    assert parse_word(text) == expected


@pytest.mark.parametrize("text", ["", "  ", None, "HO RN", "HORN1", "HÉ", "A?B", "ABCDEFGHIJKLMNOP", "QU-A"])
def test_bad_slip_words(text):
    with pytest.raises(WordError) as caught:
        parse_word(text)
    assert caught.value.code == "bad_word"
    assert caught.value.message


def test_slip_word_of_fifteen_letters_is_accepted():
    assert parse_word("a" * 15) == "a" * 15


def test_slip_word_letters_must_belong_to_the_tile_set():
    english = load_tileset("english")
    assert parse_word("Wok", tileset=english) == "Wok"
    no_w = TileSet("tiny", [Letter("A", 1, 1, True, False), Letter("B", 1, 3, False, True)], blanks=0)
    with pytest.raises(WordError) as caught:
        parse_word("aBW", tileset=no_w)
    assert caught.value.code == "bad_word"
    assert "W" in caught.value.message


def test_canonical_ref_strict_or_as_written():
    assert canonical_ref(" h 4 ") == "H4"
    assert canonical_ref("4h") == "4H"
    assert canonical_ref("8h", "rows-numbers") == "8H"
    assert canonical_ref(None) == canonical_ref("  ") == ""
    with pytest.raises(RefError):
        canonical_ref("Z99")
    assert canonical_ref("Z99", strict=False) == "Z99"
    assert canonical_ref("h 4", strict=False) == "H4"
    assert canonical_ref(None, strict=False) == ""


def test_labels_of_rows_and_columns():
    rows, cols = labels("rows-letters")
    assert rows[0] == "A" and rows[-1] == "O" and cols[0] == "1" and cols[-1] == "15"
    assert labels("rows-numbers") == (cols, rows)
    with pytest.raises(ValueError):
        labels("columns-first")


def test_a_slip_word_written_with_a_sets_labels_is_read_as_tiles_and_counted_in_tiles():
    spanish, catalan = load_tileset("spanish"), load_tileset("catalan")
    # As a phone sends them: the labels themselves, bracketed blanks, the one-key aliases.
    for word, tiles in (("AÑO", spanish), ("CO[ch]E", spanish), ("COchE", spanish), ("COL·LEGI", catalan),
                        ("COWEGI", catalan), ("[ch]" * 15, spanish)):
        assert parse_word(word, tiles) == word
    with pytest.raises(WordError) as long:
        parse_word("[ch]" * 16, spanish)  # 16 tiles: longer than the board
    assert long.value.params["why"] == "too_long"
    with pytest.raises(WordError) as foreign:
        parse_word("A#O", spanish)
    assert foreign.value.params["why"] == "no_tile" and "#" in str(foreign.value)
    # An English set has no Ñ: its diacritics are folded (# fold: all), as the word lists write them.
    assert parse_word("AÑO", load_tileset("english")) == "ANO"
    with pytest.raises(WordError):
        parse_word("AΩO", load_tileset("english"))
