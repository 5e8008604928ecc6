"""Every word of Debian's ``wcatalan`` and ``wspanish`` lists, typed as written (uppercase, with its accents
and middle dots), read by the rule of docs/rules.md "Typing words and racks".

Each word either reads to exactly one tile sequence that the list imported with the set holds, or is refused
for a stated reason:

- as a slip's word (``notation.parse_word`` then ``judging.read_word``, what the API does): the one reading
  the imported list holds, or ``bad_word`` when the set has no tile for one of its letters;
- as a rack (``TileSet.read_rack``, any length): the imported word itself, or ``ambiguous_rack`` naming every
  reading (the imported one among them: Spanish CH as one tile or C and H), or, for a word the import
  refused, the tiles its letters and aliases name.

The counts are printed (``pytest -s``); the lists are skipped, saying so, when the package is missing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.judging import read_word
from engine.lexicon import MIN_WORD_LENGTH
from engine.notation import NotationError, parse_word
from engine.tiles import TileReadingError, load_tileset

LISTS = {"catalan": Path("/usr/share/dict/catalan"), "spanish": Path("/usr/share/dict/spanish")}
PACKAGES = {"catalan": "wcatalan", "spanish": "wspanish"}


def _classify(tileset, words: list[str]) -> Counter:
    held = {s for s in (tileset.spell(w) for w in words) if s is not None and len(s) >= MIN_WORD_LENGTH}
    counts: Counter = Counter()
    wrong = []
    for raw in words:
        typed = raw.upper()  # as a club types it: capitals, accents and middle dots as written
        spelled = tileset.spell(raw)
        imported = spelled is not None and len(spelled) >= MIN_WORD_LENGTH
        # The slip's word.
        try:
            word = parse_word(typed, tileset, max_length=10_000)
            tiles = read_word(word, tileset, held)
        except NotationError as error:
            counts[f"slip refused: {error.code}/{error.params.get('why')}"] += 1
            if imported:
                wrong.append((raw, "slip refused", error.message))
        else:
            if imported and tiles == spelled:
                counts["slip reads the imported word"] += 1
            elif not imported and tiles not in held:
                counts["slip reads tiles the list does not hold (word not importable)"] += 1
            else:
                wrong.append((raw, "slip", tileset.show(tiles)))
        # The rack.
        try:
            rack = tileset.read_rack(typed)
        except TileReadingError as error:
            counts[f"rack refused: {error.code}"] += 1
            if imported and not (error.code == "ambiguous_rack" and spelled in tileset.rack_readings(typed, 64)):
                wrong.append((raw, "rack refused", error.message))
        else:
            if imported and rack == spelled:
                counts["rack reads the imported word"] += 1
            elif not imported:
                counts["rack reads the tiles its letters name (word not importable)"] += 1
            else:
                wrong.append((raw, "rack", tileset.show(rack)))
    counts["words"] = len(words)
    counts["imported"] = sum(1 for w in words if (s := tileset.spell(w)) is not None and len(s) >= MIN_WORD_LENGTH)
    assert not wrong, f"{len(wrong)} words misread, e.g. {wrong[:10]}"
    return counts


@pytest.mark.parametrize("name", ["catalan", "spanish"])
def test_every_word_of_the_debian_list_typed_as_written_reads_one_way_or_is_refused(name):
    path = LISTS[name]
    if not path.is_file():
        pytest.skip(f"{path} is missing: install the Debian package {PACKAGES[name]}")
    words = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts = _classify(load_tileset(name), words)
    print(f"\n{name} ({path}):")
    for key, value in sorted(counts.items()):
        print(f"  {key}: {value}")
    assert counts["rack reads the imported word"] > 0 and counts["slip reads the imported word"] > 0
