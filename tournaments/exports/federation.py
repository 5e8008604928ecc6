"""The federation-style results file: one line per player, ``"table","name","total"``, in Latin-1.

Format (what club and federation rating software reads):

- one line per player in ranking order, no header line, lines ending in CR LF;
- three fields, each in double quotes, separated by commas: the table number (empty when the player has
  none), the name, the total; a double quote inside a name is doubled, as in CSV; a topping game's line
  has a fourth field, the total time in seconds, by which the lines are ranked (docs/rules.md 7.5);
- encoded in ISO-8859-1 (Latin-1). Letters outside Latin-1 are transliterated: an accented letter loses
  the accent Latin-1 lacks (Ż -> Z, ő -> o, Č -> C), a few letters have a spelled form (Ł -> L, ł -> l,
  Đ -> D, Œ -> OE, ı -> i, ẞ -> SS), typographic quotes and dashes become ASCII ones; the letters of
  other scripts are spelled in ASCII, letter by letter (``tournaments.names.transliterate``: Cyrillic
  "Иван Петров" -> "Ivan Petrov", Greek "Ελένη" -> "Eleni", Arabic "محمد" -> "mhmd", Chinese "李雷" ->
  "LiLei"); a character with no spelling at all becomes ``?`` (a mark with none is left out). Letters
  Latin-1 has (é, ü, ø, ß...) are kept;
- a name that a spreadsheet would take for a formula (it begins with =, +, -, @, a tab or a carriage
  return) gets a single quote in front, as in the standings CSV (``cells.text_cell``); the check reads the
  name as written in the file, after the transliteration (``＝5+5`` is written ``'=5+5``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from tournaments.names import transliterate

from .cells import text_cell

SPELLED = {
    "Ł": "L",
    "ł": "l",
    "Đ": "D",
    "đ": "d",
    "Ħ": "H",
    "ħ": "h",
    "Œ": "OE",
    "œ": "oe",
    "ı": "i",
    "ĸ": "k",
    "Ŀ": "L",
    "ŀ": "l",
    "Ŋ": "N",
    "ŋ": "n",
    "Ŧ": "T",
    "ŧ": "t",
    "ẞ": "SS",
    "Ə": "E",
    "ə": "e",
    "ƒ": "f",
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
    "\u2026": "...",
    "\u00a0": " ",
}
REPLACEMENT = "?"


def _latin1_char(ch: str) -> str:
    if ord(ch) < 256:
        return ch
    if ch in SPELLED:
        return SPELLED[ch]
    composed = unicodedata.normalize("NFC", ch)
    if len(composed) == 1 and ord(composed) < 256:
        return composed
    decomposed = unicodedata.normalize("NFKD", ch)
    base = "".join(c for c in decomposed if not unicodedata.combining(c))
    if base and all(ord(c) < 256 for c in base):
        # Recompose what Latin-1 does have: "ǘ" keeps its diaeresis as "ü".
        for keep in range(len(decomposed), 0, -1):
            head = unicodedata.normalize("NFC", decomposed[:keep])
            if len(head) == 1 and ord(head) < 256:
                return head
        return base
    spelled = transliterate(ch)
    if spelled or unicodedata.combining(ch):
        return spelled
    return REPLACEMENT


def to_latin1(text: str) -> str:
    """``text`` with every character Latin-1 can encode, by the rules in this module's docstring."""
    return "".join(_latin1_char(ch) for ch in unicodedata.normalize("NFC", text))


def _field(value) -> str:
    """A quoted field: numbers as they are, text transliterated, then neutralised against formulas (after:
    the transliteration turns a full-width ``＝`` into ``=``)."""
    if value is None:
        text = ""
    elif isinstance(value, int):
        text = str(value)
    else:
        text = text_cell(to_latin1(str(value)))
    return '"' + text.replace('"', '""') + '"'


def results_file(rows: Iterable[dict]) -> bytes:
    """The results file for standings rows (best first): the bytes to send, already Latin-1."""
    lines = [
        ",".join((_field(row.get("table")), _field(row["name"]), _field(row["total"]),
                  *((_field(row["seconds"]),) if "seconds" in row else ())))
        for row in rows
    ]
    return "".join(line + "\r\n" for line in lines).encode("latin-1")
