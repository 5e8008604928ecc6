"""The engine's refusals in English, one text for each code (and ``why``): a RackError's or a NotationError's
``message`` is formatted from here, with the error's params.

The texts are msgids: Django's makemessages extracts what ``gettext_noop`` marks, and tournaments/refusals.py
translates these same texts for a reader of another language (the engine itself imports no Django).
"""

from __future__ import annotations


def gettext_noop(text: str) -> str:
    """Marks ``text`` as a msgid for makemessages, and gives it back untranslated."""
    return text


# (code, why) first, then (code, "+param") for a refusal that carries that param, then code alone (the same
# lookup as tournaments/refusals.py). A text names only params that every refusal of its key carries.
TEXTS = {
    # Racks (drawing.RackError).
    ("bad_letters", "kept"): gettext_noop("kept letters %(text)r: letters A-Z and ? (a blank) only"),
    ("bad_letters", "bag"): gettext_noop("bag %(text)r: letters A-Z and ? (a blank) only"),
    ("bad_letters", "rack"): gettext_noop("rack %(text)r: letters A-Z and ? (a blank) only"),
    ("game_over", "no_valid_rack"): gettext_noop("the letters left cannot make a valid rack: the game is over"),
    ("game_over", "no_draw"): gettext_noop("no valid rack could be drawn"),
    "wrong_size": gettext_noop("%(rack)s: the rack must have %(size)s letters, not %(count)s"),
    ("wrong_size", "no_letters"): gettext_noop("the rack: the rack must have %(size)s letters, not %(count)s"),
    "missing_kept": gettext_noop("%(rack)s: the kept letters %(kept)s are missing"),
    "not_in_bag": gettext_noop("%(rack)s: %(letters)s not in the bag"),
    "too_few_vowels": gettext_noop("%(rack)s: at least %(vowels)s vowels are needed"),
    "too_few_consonants": gettext_noop("%(rack)s: at least %(consonants)s consonants are needed"),
    "joker_blank": gettext_noop("%(rack)s: in this game every rack holds one blank while one is left"),
    ("too_few_vowels", "+consonants"): gettext_noop(
        "%(rack)s: at least %(vowels)s vowels and %(consonants)s consonants are needed"),
    ("too_few_vowels", "kept_alone"): gettext_noop(
        "%(rack)s: the kept letters alone cannot make a rack with %(vowels)s vowels and %(consonants)s consonants"),
    ("too_few_consonants", "kept_alone"): gettext_noop(
        "%(rack)s: the kept letters alone cannot make a rack with %(vowels)s vowels and %(consonants)s consonants"),
    # Grid references (notation.RefError).
    "empty_ref": gettext_noop("no grid reference was written"),
    ("bad_ref", "no_number"): gettext_noop("%(ref)s: a reference needs a number (e.g. H4 or 4H)"),
    ("bad_ref", "no_letter"): gettext_noop("%(ref)s: a reference needs a letter (e.g. H4 or 4H)"),
    ("bad_ref", "shape"): gettext_noop("%(ref)s: a reference is one letter and one number, e.g. H4 or 4H"),
    ("off_board", "letter"): gettext_noop("%(ref)s: the letter must be A-%(last)s"),
    ("off_board", "number"): gettext_noop("%(ref)s: the number must be 1-%(last)s"),
    # Words (notation.WordError).
    ("bad_word", "empty"): gettext_noop("no word was written"),
    ("bad_word", "too_long"): gettext_noop("%(word)s: a word has at most %(max)s letters"),
    ("bad_word", "not_letters"): gettext_noop("%(word)s: only letters may be written (not %(letters)s)"),
    ("bad_word", "no_tile"): gettext_noop("%(word)s: no tile for %(letters)s in this set"),
    "bad_blank_mark": gettext_noop("%(word)s: a ? marks the one letter after it as a blank"),
    # Typed racks read with a tile set's labels and aliases (tiles.TileReadingError).
    "no_tile": gettext_noop("%(text)s: not tiles of the set %(tileset)s"),
    "ambiguous_rack": gettext_noop("%(text)s can be read more than one way: %(readings)s; write a tile of "
                                   "several letters in brackets, e.g. %(example)s"),
}


def text_key(texts: dict, code: str, params: dict) -> object | None:
    """The key of ``texts`` that says the refusal ``code`` with ``params``: (code, why), else (code, "+param")
    for the first param that has one, else code; None when there is none."""
    why = params.get("why")
    if why is not None and (code, why) in texts:
        return code, why
    for name in params:
        if (code, "+" + name) in texts:
            return code, "+" + name
    return code if code in texts else None


def refusal_message(code: str, params: dict) -> str:
    """The English message of the engine's refusal ``code`` with ``params``."""
    return TEXTS[text_key(TEXTS, code, params)] % params
