"""The paper-slip page's checks while typing (static/js/paper.js, run by Node.js): the word read as the engine
reads it (``?`` before a blank's letter, case meaning nothing), and the flag on letters the rack cannot give,
blanks counting as any letter and the board's letters not counting when the reference names their squares.

Without Node.js the test is skipped, unless CI is set: then it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.notation import WordError, parse_marked_word

ROOT = Path(__file__).resolve().parents[1]
PAPER_JS = ROOT / "static" / "js" / "paper.js"

_RUN = """
import { pathToFileURL } from "node:url";
const { lettersNotInRack, markedWord } = await import(pathToFileURL(process.argv[1]).href);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { words, racks } = JSON.parse(input);
process.stdout.write(JSON.stringify({
  words: words.map((text) => markedWord(text)),
  racks: racks.map(({ word, rack, board, ref }) => lettersNotInRack(word, rack, board, ref, "rows-letters")),
}));
"""

TYPED = ["SA?LAD", "salad", "SaLaD", "?s?alad", " ALERT?ES ", "SALAD?", "SA??LAD", "?", "SA? LAD", "?E"]

EMPTY = ["." * 15] * 15
# Row H holds SALE from H6 (columns 6-9); every other square is empty.
WITH_SALE = ["." * 15] * 7 + ["." * 5 + "SALE" + "." * 6] + ["." * 15] * 7

RACKS = [
    # (word, rack, board, ref, the letters the page flags)
    ("ALERTES", "AELRST?", EMPTY, "H2", []),  # the second E from the blank
    ("ALERTeS", "AELRST?", EMPTY, "H2", []),  # marked: the same tiles
    ("ALERTES", "AELRST", EMPTY, "H2", ["E"]),  # no blank: one E short
    ("ZEBRE", "AELRST?", EMPTY, "H8", ["B", "E", "Z"]),  # three short, one blank
    ("RATES", "AELRST?", EMPTY, "", []),
    ("SALER", "R??????", WITH_SALE, "H6", []),  # S, A, L, E are on the board: R from the rack
    ("SALER", "T??????", WITH_SALE, "H6", []),  # the R from a blank
    ("SALER", "TTTTTTT", WITH_SALE, "H6", ["R"]),
    ("SALER", "TTTTTTT", WITH_SALE, "", ["R"]),  # no reference: the board's letters still count
    ("SALERS", "TTTTTTT", WITH_SALE, "", ["R", "S"]),  # one S on the board, two in the word
    ("SALER", "AELRST?", EMPTY, "H13", []),  # off the board's edge: judged by the server, not flagged
]


def _engine_reads(text: str) -> dict:
    try:
        return {"word": parse_marked_word(text)}
    except WordError as error:
        return {"error": error.code}


def test_the_page_reads_typed_words_and_flags_missing_letters():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js is required in CI (the paper-slip page's checks are run with it)")
        pytest.skip("Node.js not available: the paper-slip page's checks are not run")
    cases = {"words": TYPED, "racks": [{"word": w, "rack": r, "board": b, "ref": ref} for w, r, b, ref, _ in RACKS]}
    done = subprocess.run([node, "--input-type=module", "--eval", _RUN, str(PAPER_JS)], input=json.dumps(cases),
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert read["words"] == [_engine_reads(text) for text in TYPED]
    assert read["racks"] == [flagged for *_, flagged in RACKS]
