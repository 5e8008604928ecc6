"""The word of a paper slip as the arbitrator types it: a ``?`` before a letter marks a blank, and case never
does (engine/notation.py parse_marked_word)."""

from __future__ import annotations

import pytest

from engine.notation import WordError, marked_word_text, parse_marked_word
from engine.tiles import load_tileset


@pytest.mark.parametrize(
    ("typed", "word"),
    [
        ("SA?LAD", "SAlAD"),
        ("sa?lad", "SAlAD"),
        ("salad", "SALAD"),  # a Caps Lock left off makes no blank
        ("SaLaD", "SALAD"),
        ("?s?alad", "saLAD"),
        ("  ALERT?ES ", "ALERTeS"),
        ("?E", "e"),
    ],
)
def test_a_question_mark_before_a_letter_marks_a_blank_and_case_marks_nothing(typed, word):
    assert parse_marked_word(typed) == word
    assert parse_marked_word(marked_word_text(word)) == word  # written back as typed, read the same


@pytest.mark.parametrize("typed", ["SALAD?", "SA??LAD", "?", "SA?1", "SA? LAD"])
def test_a_question_mark_not_followed_by_a_letter_is_refused(typed):
    with pytest.raises(WordError) as caught:
        parse_marked_word(typed)
    assert caught.value.code == "bad_blank_mark"
    assert caught.value.params["word"] == typed.strip()


def test_other_faults_are_refused_as_parse_word_refuses_them():
    french = load_tileset("french")
    with pytest.raises(WordError) as caught:
        parse_marked_word("RE7AINS", french)
    assert caught.value.code == "bad_word"
    with pytest.raises(WordError):
        parse_marked_word("")
    with pytest.raises(WordError):
        parse_marked_word("A" * 16)
    # The ? is no letter: fifteen letters and a mark (sixteen characters typed) fill the board's width.
    assert parse_marked_word("?" + "A" * 15) == "a" + "A" * 14
