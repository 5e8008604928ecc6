"""``python -m engine check`` reads racks and words in the tile set's labels and takes ``--variant``."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.lexicon import import_lexicon
from engine.tiles import load_tileset


def _check(tmp_path, lines, *args):
    return subprocess.run([sys.executable, "-m", "engine", "check", "--lexicon", "CATPROVA", "--lexicon-cache",
                           str(tmp_path), "--tileset", "catalan", *args],
                          input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True,
                          timeout=120, check=False)


def test_check_reads_a_catalan_rack_and_word_written_with_labels_under_a_variant(tmp_path):
    import_lexicon("CATPROVA", ["COL·LEGIS", "QUATRES"], load_tileset("catalan"), cache_dir=tmp_path)
    run = _check(tmp_path, [
        {"rack": "COL·LEGIS", "round": 1, "word": "COL.LEGIS", "ref": "H4", "claimed": None},
        {"rack": "QUATRES?", "round": 1, "word": "QUATRES", "ref": "H4", "claimed": None},
    ], "--variant", "seven_of_eight")
    assert run.returncode == 0, run.stderr + run.stdout
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert first["reason"] != "not_in_rack" and first["paid"] > 0, first
    assert second["paid"] > 0, second


def test_check_refuses_an_unknown_variant(tmp_path):
    import_lexicon("CATPROVA", ["QUATRES"], load_tileset("catalan"), cache_dir=tmp_path)
    run = _check(tmp_path, [], "--variant", "nope")
    assert run.returncode == 2 and "nope" in run.stderr
