"""Grid references read the same by the engine and by the pages: one table of cases
(tests/fixtures/notation_cases.json, written from the engine by tests/fixtures/notation_cases.py) checks
engine/notation.py and static/js/notation.js, the parser of the phone's slip form, run by Node.js.

Without Node.js the pages' half is skipped, unless CI is set: then it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.notation import LABELLINGS, RefError, format_ref, parse_ref

ROOT = Path(__file__).resolve().parents[1]
CASES_FILE = ROOT / "tests" / "fixtures" / "notation_cases.json"
NOTATION_JS = ROOT / "static" / "js" / "notation.js"
CASES = json.loads(CASES_FILE.read_text(encoding="utf-8"))


def _expected(case: dict) -> dict:
    if "invalid" in case:
        return {"invalid": True}
    return {key: case[key] for key in ("row", "col", "direction", "canonical")}


def _engine_reads(text: str, labelling: str) -> dict:
    try:
        ref = parse_ref(text, labelling)
    except RefError as exc:
        return {"invalid": exc.code}
    return {"row": ref.row, "col": ref.col, "direction": "across" if ref.horizontal else "down",
            "canonical": format_ref(ref.row, ref.col, ref.horizontal, labelling)}


def test_the_table_covers_every_square_both_ways_in_both_labellings():
    for labelling in LABELLINGS:
        named = {(case["row"], case["col"], case["direction"]) for case in CASES
                 if case["labelling"] == labelling and "invalid" not in case}
        assert len(named) == 15 * 15 * 2
        canonical = {case["text"] for case in CASES
                     if case["labelling"] == labelling and case.get("canonical") == case["text"]}
        assert len(canonical) == 15 * 15 * 2
    assert {case["invalid"] for case in CASES if "invalid" in case} == {"empty_ref", "bad_ref", "off_board"}
    assert any(case["text"] != case["text"].upper() for case in CASES)
    assert any(" " in case["text"] for case in CASES)


def test_the_engine_reads_every_case():
    wrong = []
    for case in CASES:
        expected = {key: value for key, value in case.items() if key not in ("text", "labelling")}
        got = _engine_reads(case["text"], case["labelling"])
        if got != expected:
            wrong.append((case["text"], case["labelling"], expected, got))
    assert wrong == []


# Reads the cases on standard input; prints what static/js/notation.js makes of each.
_PAGES_READ = """
import { pathToFileURL } from "node:url";
const { formatRef, parseRef } = await import(pathToFileURL(process.argv[1]).href);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const read = JSON.parse(input).map(({ text, labelling }) => {
  const ref = parseRef(text, labelling);
  if (ref === null) return { invalid: true };
  return { row: ref.row, col: ref.col, direction: ref.horizontal ? "across" : "down",
           canonical: formatRef(ref.row, ref.col, ref.horizontal, labelling) };
});
process.stdout.write(JSON.stringify(read));
"""


def test_the_pages_read_every_case_as_the_engine():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js is required in CI (the pages' reference parser is checked with it)")
        pytest.skip("Node.js not available: the pages' reference parser is not checked")
    done = subprocess.run(
        [node, "--input-type=module", "--eval", _PAGES_READ, str(NOTATION_JS)],
        input=json.dumps(CASES), cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert len(read) == len(CASES)
    wrong = [(case["text"], case["labelling"], _expected(case), got)
             for case, got in zip(CASES, read, strict=True) if got != _expected(case)]
    assert wrong == []
