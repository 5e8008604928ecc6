"""Time of the pre-drawn game and its sealed pack (tournaments/packs.py): draw a 20-round game, seal it,
verify it, unlock it.

    .venv/bin/python bench/pack.py [--runs 5] [--rounds 20] [--first-seed 1] [--lexicon TWL06]

Each run draws a game from its own seed (the engine's search, with each round's tops counted for the
profile), seals it into a pack (AES-256-GCM, Ed25519), verifies the pack (signature, word list) and unlocks
it with the key as typed. Prints each step's median and slowest over the runs (at most 50). The compiled
search's one-off warm-up is done before the first run, as a server that has run a round has it already.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")

import django  # noqa: E402

django.setup()

from engine.search import warm_up  # noqa: E402
from tournaments import packs  # noqa: E402
from tournaments.lexicons import get_lexicon  # noqa: E402

MAX_RUNS = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--lexicon", default="TWL06")
    args = parser.parse_args()
    runs = max(1, min(args.runs, MAX_RUNS))
    lexicon = get_lexicon(args.lexicon)
    mode = warm_up(lexicon)
    times: dict[str, list[float]] = {"draw": [], "seal": [], "verify": [], "unlock": []}
    sizes = []
    for seed in range(args.first_seed, args.first_seed + runs):
        start = time.perf_counter()
        game = packs.draw_game_file(seed=seed, lexicon=args.lexicon, max_rounds=args.rounds)
        times["draw"].append(time.perf_counter() - start)
        start = time.perf_counter()
        pack, key = packs.seal_pack(game, event="Bench", game_id=f"G{seed}")
        data = packs.pack_bytes(pack)
        times["seal"].append(time.perf_counter() - start)
        start = time.perf_counter()
        packs.verify_pack(data)
        times["verify"].append(time.perf_counter() - start)
        start = time.perf_counter()
        opened = packs.unlock_pack(data, packs.key_text(key))
        times["unlock"].append(time.perf_counter() - start)
        assert opened == game
        sizes.append(len(data))
    print(f"{runs} runs, {args.rounds}-round games, {args.lexicon}, search {mode}; pack {max(sizes)} bytes")
    for step, values in times.items():
        print(f"{step:<7} median {statistics.median(values) * 1000:8.1f} ms   slowest {max(values) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
