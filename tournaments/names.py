"""Names as people type them (players, series, tournaments), made safe to store, show, print and export.

``clean_name`` is what the services store. It removes what cannot be seen but can mislead or break a
page: every control and format character (Unicode categories Cc and Cf: the bidirectional embeddings,
overrides and isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E, U+200F and U+061C, the
zero-width space U+200B, the soft hyphen, the byte order mark, tags...), lone surrogates (Cs, which no
database can store), and the fillers that are letters only in name (Hangul fillers U+115F, U+1160,
U+3164, U+FFA0, the Khmer inherent vowels U+17B4, U+17B5, the combining grapheme joiner U+034F). So
"live\\u202Egpj.exe" is stored as "livegpj.exe", never displayed as "liveexe.jpg".

Two format characters are kept, where a name needs them: the zero-width joiner U+200D and the zero-width
non-joiner U+200C shape letters in Persian, Arabic and the Indic scripts and join emoji sequences. They
are kept only between two visible characters, one at a time (a joiner at the start or the end of a word
shows nothing).

A combining mark (Unicode categories Mn, Mc, Me: accents, vowel signs, variation selectors) is kept only on
a letter: at the start of the name or of a word it has nothing to sit on and is removed, so that a name made
only of marks is no name (nothing visible).

Whitespace of any kind (tabs, line breaks, no-break spaces...) becomes one space between words, and the
result is in Unicode normal form C, so that "é" typed as e + U+0301 and as one letter are the same name.

``transliterate`` gives a readable ASCII spelling of a character (``anyascii``, ISC licence): Cyrillic,
Greek, Arabic, Hebrew, Chinese, Indic and most other scripts, letter by letter, e.g. "Иван Петров" ->
"Ivan Petrov", "محمد" -> "mhmd", "李雷" -> "LiLei". The federation's Latin-1 file and the printed sheets
use it for what they cannot write as it is.
"""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii

JOINERS = "\u200c\u200d"
REMOVED_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
INVISIBLE_LETTERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")

_EDGE_JOINERS = re.compile(rf"(?:^|(?<=\s))[{JOINERS}]+|[{JOINERS}]+(?=\s|$)")
_JOINER_RUNS = re.compile(rf"[{JOINERS}]{{2,}}")


def _kept(ch: str) -> str:
    if ch.isspace():
        return " "
    if ch in JOINERS:
        return ch
    if ch in INVISIBLE_LETTERS or unicodedata.category(ch) in REMOVED_CATEGORIES:
        return ""
    return ch


def _based(text: str) -> str:
    """``text`` without the combining marks that have no letter to sit on (at the start, after a space): a
    name made only of marks shows nothing but dotted circles. The joiners are passed over."""
    kept, base = [], False
    for ch in text:
        if ch == " ":
            base = False
        elif ch not in JOINERS:
            if unicodedata.category(ch).startswith("M") and not base:
                continue
            base = True
        kept.append(ch)
    return "".join(kept)


def clean_name(value) -> str:
    """``value`` without invisible characters, its whitespace collapsed, in NFC ('' when nothing visible)."""
    text = "".join(_kept(ch) for ch in str(value if value is not None else ""))
    text = _based(" ".join(text.split()))
    text = _JOINER_RUNS.sub(lambda run: run.group()[0], _EDGE_JOINERS.sub("", text))
    return unicodedata.normalize("NFC", " ".join(text.split()))


def transliterate(ch: str) -> str:
    """A readable ASCII spelling of one character ('' for a mark or a sign with none)."""
    return anyascii(ch)
