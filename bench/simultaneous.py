"""Time of a simultaneous event's results at the organiser (tournaments/results_files.py, engine/merge.py):
50 centres x 40 players x a 20-round pre-drawn game.

    .venv/bin/python bench/simultaneous.py [--centres 50] [--players 40] [--rounds 20] [--runs 3] [--seed 20260314]

The game is drawn from a fixed seed (engine.pregame via tournaments.packs) and sealed; each centre's players
write synthetic slips (the top, another legal play among the engine's best 30, a legal play with a wrong score,
a word not in the list, or none), judged as the centre would, and each centre signs its results file with its
own key. Then, each run from cold (a new inbox, an empty judging cache):

- verify and merge: every file read from its bytes, its signature, event and totals checked, every slip
  judged again (each distinct slip once), then the merged standings;
- re-judge: every slip of every file through a new judging cache alone (each distinct slip judged once);
- PDF: the national standings printed with the standings sheet (tournaments/sheets/standings.py).

Prints each step's median and slowest over the runs (at most 10), the distinct slips, and the target: the
players merged and verified in 10 s or less.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")

import django  # noqa: E402

django.setup()

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from engine.board import Board  # noqa: E402
from engine.notation import format_ref  # noqa: E402
from engine.search import best_plays, warm_up  # noqa: E402
from tournaments import packs  # noqa: E402
from tournaments.results_files import (  # noqa: E402
    JudgeCache,
    ResultsInbox,
    make_results_file,
    player_results,
    read_results,
    results_bytes,
)
from tournaments.sheets.data import Header, StandingRow, Standings  # noqa: E402
from tournaments.sheets.standings import render_standings  # noqa: E402

MAX_RUNS = 10
TARGET_SECONDS = 10.0
EVENT = "Simultané mondial (bench)"
OTHER_PLAYS = 30
KINDS = ("top",) * 15 + ("other",) * 60 + ("wrong_score",) * 5 + ("invalid",) * 10 + ("none",) * 10
SERIES = tuple(f"S{n}" for n in range(1, 8))
CATEGORIES = ("Poussin", "Benjamin", "Minime", "Cadet", "Junior", "Espoir", "Senior", "Vermeil", "Diamant")


def _slip(plays, labelling: str, pick: random.Random):
    kind = pick.choice(KINDS)
    if kind == "none":
        return None
    play = plays[0] if kind == "top" else pick.choice(plays[1:] or plays)
    ref = format_ref(play.row, play.col, play.horizontal, labelling)
    if kind == "invalid":
        return {"word": "QXZVK"[: pick.randint(3, 5)], "ref": ref, "claimed": pick.randint(10, 60)}
    word = "".join(letter.lower() if blank else letter for _, _, letter, blank in play.tiles) \
        if len(play.tiles) == len(play.word) else play.word
    return {"word": word, "ref": ref, "claimed": play.score + (2 if kind == "wrong_score" else 0)}


def make_event(args):
    """The game, its pack's SHA-256, the centres' keys and their signed results files (bytes)."""
    game_file = packs.draw_game_file(seed=args.seed, max_rounds=args.rounds)
    pack, _ = packs.seal_pack(game_file, event=EVENT, game_id="G1")
    sha = packs.pack_sha256(pack)
    centre_judge = JudgeCache(game_file)  # the centres' verdicts, made once for the bench
    plays = {r.number: best_plays(Board.from_rows(r.board), r.rack, centre_judge.lexicon, centre_judge.tileset,
                                  game_file.rules, n=OTHER_PLAYS) for r in game_file.game.rounds}
    keys, files = {}, []
    for c in range(args.centres):
        centre = f"C{c + 1:03d}"
        keys[centre] = Ed25519PrivateKey.generate()
        players = []
        for p in range(args.players):
            pick = random.Random(f"{args.seed}:{centre}:{p}")
            rounds = []
            for number in plays:
                slip = _slip(plays[number], game_file.labelling, pick)
                paid, outcome, reason = centre_judge.verdict(number, slip)
                rounds.append({"round": number, "slip": slip,
                               "verdict": {"paid": paid, "outcome": outcome, "reason": reason}})
            licence = f"{c:03d}{p:03d}" if pick.random() < 0.9 else ""
            players.append(player_results({"id": p + 1, "name": f"Player {centre}-{p + 1}", "licence": licence,
                                           "club": f"Club {centre}", "series": pick.choice(SERIES),
                                           "category": pick.choice(CATEGORIES)}, rounds))
        results = make_results_file(event=EVENT, game_id="G1", pack_sha256=sha, centre={"id": centre},
                                    players=players, sequence=1, final=True, signer=keys[centre])
        files.append(results_bytes(results))
    return game_file, sha, keys, files


def verify_and_merge(game_file, sha, keys, files):
    inbox = ResultsInbox(EVENT)
    for centre, key in keys.items():
        inbox.register_centre(centre, packs.public_text(key))
    inbox.add_game("G1", game_file, sha)
    for data in files:
        inbox.accept(data)
    return inbox, inbox.standings()


def rejudge(game_file, files):
    cache = JudgeCache(game_file)
    for data in files:
        for player in read_results(data)["players"]:
            for r in player["rounds"]:
                cache.verdict(r["round"], r["slip"])
    return cache


def national_pdf(standings) -> bytes:
    rows = tuple(StandingRow(rank=row["rank"], name=f"{row['name']} ({row['centre']})", series=row["series"],
                             total=row["total"], diff=row["diff"], percent=row["percent"], tops=row["tops"],
                             solos=row["solos"], warnings=row["warnings"], series_rank=row["rank_series"])
                 for row in standings["rows"])
    return render_standings(Standings(Header(tournament=EVENT, game="G1"), rows, standings["sum_tops"]))


def _timed(call, *args):
    start = time.perf_counter()
    value = call(*args)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--centres", type=int, default=50)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20260314)
    args = parser.parse_args()
    runs = max(1, min(args.runs, MAX_RUNS))
    warm_up()
    seconds, (game_file, sha, keys, files) = _timed(make_event, args)
    players = args.centres * args.players
    slips = players * len(game_file.game.rounds)
    print(f"event: {args.centres} centres x {args.players} players x {len(game_file.game.rounds)} rounds = "
          f"{players} players, {slips} slips; {sum(map(len, files)) / 1e6:.1f} MB of results files "
          f"(made in {seconds:.1f} s)")
    timings: dict[str, list[float]] = {"verify and merge": [], "re-judge": [], "national standings PDF": []}
    for _ in range(runs):
        seconds, (inbox, standings) = _timed(verify_and_merge, game_file, sha, keys, files)
        timings["verify and merge"].append(seconds)
        seconds, cache = _timed(rejudge, game_file, files)
        timings["re-judge"].append(seconds)
        seconds, pdf = _timed(national_pdf, standings)
        timings["national standings PDF"].append(seconds)
    assert len(standings["rows"]) == players and not standings["provisional"]
    print(f"slips judged again: {cache.asked}, distinct: {cache.judged}; verdicts differing: "
          f"{len(inbox.differences())}; national PDF: {len(pdf) / 1e3:.0f} kB")
    for name, values in timings.items():
        print(f"{name:>24}: median {statistics.median(values):6.2f} s, slowest {max(values):6.2f} s ({runs} runs)")
    best = statistics.median(timings["verify and merge"])
    verdict = "met" if best <= TARGET_SECONDS else "missed"
    print(f"target: {players} players merged and verified in <= {TARGET_SECONDS:.0f} s: {verdict} ({best:.2f} s)")


if __name__ == "__main__":
    main()
