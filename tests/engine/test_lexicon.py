import hashlib

import pytest

from engine.lexicon import import_lexicon, load_lexicon


def test_import_reports_rejected_words_and_normalises(tmp_path, english):
    result = import_lexicon("club", ["cat", " Dog ", "CAT", "ça", "A", "NO-GO", "été", ""], english, tmp_path)
    assert sorted(result.rejected) == ["A", "NO-GO"]
    lexicon = result.lexicon
    assert len(lexicon) == 4  # CA, CAT, DOG, ETE
    assert "cat" in lexicon and "DOG" in lexicon and "ETE" in lexicon and "CA" in lexicon
    assert "CATS" not in lexicon and "" not in lexicon and "NO-GO" not in lexicon
    assert lexicon.sha256 == hashlib.sha256(b"CA\nCAT\nDOG\nETE").hexdigest()
    assert list(lexicon.words()) == ["CA", "CAT", "DOG", "ETE"]


def test_letters_outside_the_tile_set_are_rejected(tmp_path, english):
    class NoZ:
        def has_letter(self, ch):
            return english.has_letter(ch) and ch.upper() != "Z"

    result = import_lexicon("noz", ["ZA", "AT"], NoZ(), tmp_path)
    assert result.rejected == ["ZA"]
    assert "AT" in result.lexicon and "ZA" not in result.lexicon


def test_an_imported_lexicon_loads_again_by_name(tmp_path, english, monkeypatch):
    import engine.lexicon as module

    first = import_lexicon("ODS-mini", ["ZOO", "ZOOS", "OS"], english, tmp_path).lexicon
    monkeypatch.setattr(module, "_loaded", {})
    again = load_lexicon("ODS-mini", cache_dir=tmp_path)
    assert again.sha256 == first.sha256 and len(again) == 3 and "ZOOS" in again


def test_a_list_imported_again_under_the_same_name_replaces_the_old_one(tmp_path, english):
    import_lexicon("club", ["ZOO"], english, tmp_path)
    import_lexicon("club", ["ZOOS"], english, tmp_path)
    assert "ZOOS" in load_lexicon("club", cache_dir=tmp_path)
    assert "ZOO" not in load_lexicon("club", cache_dir=tmp_path)


def test_cache_dir_from_the_environment(tmp_path, english, monkeypatch):
    monkeypatch.setenv("ARBITER_LEXICON_CACHE", str(tmp_path / "env"))
    import_lexicon("envlex", ["AB"], english)
    assert (tmp_path / "env" / "envlex.name").exists()


def test_unknown_and_bad_names(tmp_path):
    with pytest.raises(LookupError):
        load_lexicon("NOPE", cache_dir=tmp_path)
    with pytest.raises(ValueError):
        load_lexicon("../etc", cache_dir=tmp_path)


def test_graph_is_minimal_for_shared_suffixes(tmp_path, english):
    # CATS/RATS/MATS share every node after their first letter.
    lexicon = import_lexicon("suffixes", ["CATS", "RATS", "MATS"], english, tmp_path).lexicon
    assert len(lexicon.masks) == 5


def test_twl06(twl06):
    assert len(twl06) == 178691
    assert "QI" in twl06 and "ZA" in twl06 and "AAH" in twl06
    assert "QIS" in twl06 and "ZZZS" not in twl06


def test_a_second_process_loads_the_cached_graph_without_compiling(twl06, monkeypatch):
    import engine.lexicon as module

    monkeypatch.setattr(module, "_loaded", {})

    def refuse(words):
        raise AssertionError("the compiled graph should have come from the cache")

    monkeypatch.setattr(module, "compile_lexicon", refuse)
    again = load_lexicon("TWL06")
    assert again is not twl06
    assert again.sha256 == twl06.sha256
    assert len(again) == len(twl06) and "QIS" in again

def test_has_anagram_with_and_without_blanks(tiny):
    lexicon = tiny("TEA", "STAR", "ZOO")

    def counts(tiles):
        result = [0] * 27
        for ch in tiles:
            result[0 if ch == "?" else ord(ch) - 64] += 1
        return result

    assert lexicon.has_anagram(counts("EAT")) and lexicon.has_anagram(counts("RATS"))
    assert not lexicon.has_anagram(counts("EATS")) and not lexicon.has_anagram(counts("OZ"))
    assert lexicon.has_anagram(counts("E?T")) and lexicon.has_anagram(counts("Z??"))
    assert lexicon.has_anagram(counts("??S?")) and not lexicon.has_anagram(counts("Q??"))
    assert not lexicon.has_anagram(counts("?????"))
