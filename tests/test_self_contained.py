"""A fresh clone in an empty folder is the whole project: nothing reads a folder beside it or a path of one
machine, and what the tests read is in the repository."""

import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Written in pieces so that this file does not find itself.
OUTSIDE = [
    re.compile(r"\.\./" + "shared"),
    re.compile(r"\.parent\s*/\s*['\"]" + "shared" + "['\"]"),
    re.compile(r"['\"]/" + r"(work|home|root|Users)/"),
]


def _tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in out.splitlines()]


def test_no_file_reads_outside_the_repository():
    offenders = []
    for path in _tracked_files():
        if path == Path(__file__).resolve() or not path.is_file() or path.suffix in (".pdf", ".ttf", ".mo", ".png"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if any(pattern.search(line) for pattern in OUTSIDE):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_reference_positions_ship_with_the_tests():
    fixtures = ROOT / "tests" / "fixtures" / "positions_twl06.jsonl"
    positions = [json.loads(line) for line in fixtures.read_text().splitlines() if line.strip()]
    assert len(positions) == 200
    assert all(len(p["board"]) == 15 and "top_moves" in p for p in positions)
