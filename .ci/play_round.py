"""One round played through the HTTP API against a running arbiter, as the arbitrator and two phones would:
the arbitrator's token, a tournament and a game, two phones join, a rack drawn and the round started, a
slip from each phone (a top found with the engine, and the same play with a wrong score), the round closed, and
the results read back and checked. Standard library only and the engine (to find a top),
so that it runs in any environment where the arbiter is installed.

    python .ci/play_round.py --url http://127.0.0.1:8000 --username arbitre --password SECRET

Exits 0 and prints the results when they are right; exits 1 saying what is wrong otherwise. Only the given
URL is contacted (bench/memory.py and .ci/wheel-check give 127.0.0.1). Every wait is bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path


class Failure(Exception):
    pass


def call(base: str, method: str, path: str, body: dict | None = None, token: str = "", scheme: str = "Bearer",
         expect: tuple[int, ...] = (200, 201)) -> dict:
    request = urllib.request.Request(base.rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"{scheme} {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    answer = json.loads(raw) if raw else {}
    if status not in expect:
        raise Failure(f"{method} {path}: {status} {answer}")
    return answer


def top_slip(rack: str, coordinates: str, lexicon_cache: str | None):
    """A top of the rack on the empty board with its score, found with the engine; None when the rack has
    no play."""
    from engine.board import Board
    from engine.lexicon import load_lexicon
    from engine.notation import format_ref
    from engine.rules import rules_preset
    from engine.search import find_tops
    from engine.tiles import load_tileset

    cache = Path(lexicon_cache) if lexicon_cache else Path.home() / ".cache" / "arbiter" / "lexicons"
    tops = find_tops(Board.empty(), rack, load_lexicon("TWL06", cache_dir=cache), load_tileset("english"),
                     rules_preset("fisf"))
    if tops.score is None:
        return None
    play = tops.plays[0]
    return {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, coordinates),
            "score": tops.score}


def play(base: str, username: str, password: str, lexicon_cache: str | None = None) -> dict:
    started = time.monotonic()
    token = call(base, "POST", "/api/auth/token", {"username": username, "password": password})["token"]

    def arbitrator(method, path, body=None, expect=(200, 201)):
        return call(base, method, path, body, token=token, scheme="Token", expect=expect)

    tournament = arbitrator("POST", "/api/tournaments", {"name": f"Round check {uuid.uuid4().hex[:8]}",
                                                         "round_seconds": 120})
    game = arbitrator("POST", f"/api/tournaments/{tournament['id']}/games", {})
    phones = [call(base, "POST", "/api/join", {"join_code": game["join_code"], "name": name})
              for name in ("Alice", "Bruno")]
    drawn = arbitrator("POST", f"/api/games/{game['id']}/rounds", {})
    number, rack = drawn["number"], drawn["rack"]
    arbitrator("POST", f"/api/games/{game['id']}/rounds/{number}/start", {})
    top = top_slip(rack, tournament.get("coordinates", "rows-letters"), lexicon_cache)
    if top is None:
        raise Failure(f"the rack {rack} has no play: run again")
    # Alice hands in a top, Bruno the same play with a wrong score.
    slips = [top, {**top, "score": top["score"] + 3}]
    receipts = []
    for phone, slip in zip(phones, slips, strict=True):
        receipts.append(call(base, "POST", f"/api/games/{game['id']}/rounds/{number}/slips",
                             {**slip, "key": uuid.uuid4().hex, "seq": 1}, token=phone["token"]))
    # The arbitrator closes the round once its tops are found (by the worker, as in a real round's time).
    deadline = time.monotonic() + 120
    while not arbitrator("GET", f"/api/games/{game['id']}/rounds/{number}").get("tops_ready"):
        if time.monotonic() > deadline:
            raise Failure("the round's tops were not found within 120 s: is the worker running?")
        time.sleep(0.2)
    arbitrator("POST", f"/api/games/{game['id']}/rounds/{number}/close", {})
    detail = arbitrator("GET", f"/api/games/{game['id']}/rounds/{number}")
    if detail["status"] != "closed":
        raise Failure(f"the round is {detail['status']} after its close")
    results = {row["player"]: row for row in detail["results"] or []}
    alice, bruno = (results.get(phone["id"]) for phone in phones)
    if alice is None or bruno is None:
        raise Failure(f"a slip has no result: {detail['results']}")
    if alice["paid"] != detail["top_score"] or alice["paid"] != top["score"] or alice["word"] != top["word"]:
        raise Failure(f"the top {top} was judged {alice} (the round's top score {detail['top_score']})")
    if bruno["word"] != top["word"] or bruno["paid"] == top["score"] + 3 or not bruno["reason"]:
        raise Failure(f"a wrong score was paid as claimed: {bruno}")
    standings = arbitrator("GET", f"/api/games/{game['id']}/standings")
    return {"game": game["id"], "rack": rack, "top_score": detail["top_score"], "alice": alice, "bruno": bruno,
            "receipts": len(receipts), "standings": standings, "seconds": time.monotonic() - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--lexicon-cache", default=os.environ.get("LEXICON_CACHE_DIR"))
    args = parser.parse_args()
    try:
        outcome = play(args.url, args.username, args.password, args.lexicon_cache)
    except Failure as failure:
        print(f"the round went wrong: {failure}", file=sys.stderr)
        return 1
    alice, bruno = outcome["alice"], outcome["bruno"]
    print(f"round played on game {outcome['game']}: rack {outcome['rack']}, top {outcome['top_score']}; "
          f"{alice['word']} {alice['ref']} paid {alice['paid']} ({alice['reason'] or 'valid'}), "
          f"{bruno['word']} paid {bruno['paid']} ({bruno['reason']}); {outcome['receipts']} receipts; "
          f"{outcome['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
