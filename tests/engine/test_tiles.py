from engine.tiles import BLANK, EMPTY, decode, encode, load_tileset


def test_english_has_100_tiles_and_standard_values():
    ts = load_tileset("english")
    assert len(ts.full_bag()) == 100
    assert ts.blanks == 2
    assert ts.value("Q") == 10 and ts.value("K") == 5 and ts.value("E") == 1
    assert ts.value("?") == 0 and ts.value("q") == 0


def test_french_has_102_tiles_and_its_own_values():
    ts = load_tileset("french")
    assert len(ts.full_bag()) == 102
    assert ts.value("K") == 10 and ts.value("W") == 10 and ts.value("Q") == 8
    assert ts.full_bag().count("E") == 15


def test_vowels_come_from_the_data():
    ts = load_tileset("english")
    assert ts.is_vowel("A") and not ts.is_consonant("A")
    assert ts.is_consonant("B") and not ts.is_vowel("B")
    assert ts.is_vowel("Y") and ts.is_consonant("Y")
    assert ts.is_vowel("?") and ts.is_consonant("?")


def test_encoding_round_trips():
    for ch in "AZaz?.":
        assert decode(encode(ch)) == ch
    assert encode("?") == BLANK and encode(".") == EMPTY
    assert encode("e") == encode("E") | BLANK
