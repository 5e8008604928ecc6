"""Command line of the engine: ``python -m engine {tops,simulate,check} ...``.

- ``tops``: JSON lines ``{"board": [...], "rack": "..."}`` on stdin (other fields ignored), one JSON
  line out per position, in input order: ``{"top_score", "top_moves": [{"word", "row", "col",
  "horizontal", "score"}], "ms"}`` (the fixtures' conventions; ``top_score`` null when no play; ``ms``
  the search time of that position, lexicon loading excluded).  A line that cannot be read gives
  ``{"error": ...}`` and the exit status 1.
- ``simulate``: plays a whole duplicate game from a seed and prints its record.
- ``check``: JSON lines ``{"board", "rack", "round", "word", "ref", "claimed"}`` on stdin, one
  judgement out per slip: ``{"paid", "outcome", "reason", "message"}`` (``round`` defaults to 2, the
  board to the empty board).  The rack and the word are read as typed with the set's labels (``COL·LEGIS``,
  ``COL.LEGIS``, ``[CH]AEIOU``; docs/rules.md "Typing words and racks"); ``--variant`` judges by that
  variant's rules (``seven_of_eight``: eight tiles on the rack, seven placed).
- ``warm``: loads the lexicon and readies the search: the compiled one (``engine.kernel``) is compiled once
  per machine (a few tens of seconds) and loaded from its cache after that.  Prints which search runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from dataclasses import dataclass, field

from .board import Board
from .drawing import RackError, draw_rack, format_rack, game_is_over
from .lexicon import load_lexicon
from .master import choose_master, leave
from .notation import LABELLINGS, format_ref
from .rules import PRESET_NAMES, VARIANT_NAMES, rules_preset, variant_rules
from .search import find_tops, warm_up
from .tiles import TileReadingError, load_tileset

# Cancelled rounds in a row after which the game is declared over (no playable rack found).
_MAX_CANCELLED_IN_A_ROW = 50


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="The Scrabble engine of the arbiter.")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub):
        sub.add_argument("--lexicon", default="TWL06", help="TWL06, SOWPODS or an imported lexicon's name")
        sub.add_argument("--lexicon-cache", default=None, help="directory of compiled lexicons")
        sub.add_argument("--tileset", default="english", help="a tile set of engine/data/tilesets (english, french, "
                         "spanish, catalan, romanian, dutch, german, italian)")
        sub.add_argument("--ruleset", default="fisf", choices=PRESET_NAMES)

    tops = commands.add_parser("tops", help="tops of positions given as JSON lines on stdin")
    common(tops)

    simulate = commands.add_parser("simulate", help="play a whole duplicate game and print its record")
    common(simulate)
    simulate.add_argument("--seed", type=int, required=True)
    simulate.add_argument("--labelling", default="rows-letters", choices=LABELLINGS)
    simulate.add_argument("--json", action="store_true", help="one JSON line per round instead of a table")

    check = commands.add_parser("check", help="judge slips given as JSON lines on stdin")
    common(check)
    check.add_argument("--labelling", default="rows-letters", choices=LABELLINGS)
    check.add_argument("--variant", default="duplicate", choices=VARIANT_NAMES,
                       help="the variant whose rules judge the slips (joker, seven_of_eight...)")

    warm = commands.add_parser("warm", help="ready the search (compiled once per machine) and the lexicon")
    common(warm)
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "warm":
        return run_warm(args)
    try:
        tileset = load_tileset(args.tileset)
        rules = (variant_rules(args.variant, ruleset=args.ruleset) if getattr(args, "variant", None)
                 else rules_preset(args.ruleset))
        lexicon = load_lexicon(args.lexicon, cache_dir=args.lexicon_cache)
    except (ValueError, LookupError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "tops":
        return run_tops(sys.stdin, sys.stdout, lexicon, tileset, rules)
    if args.command == "check":
        return run_check(sys.stdin, sys.stdout, lexicon, tileset, rules, args.labelling)
    game = simulate_game(args.seed, lexicon, tileset, rules)
    print_game(game, sys.stdout, args.labelling, as_json=args.json, tileset=tileset)
    return 0


# What ``warm`` does and about how long each step takes the first time on a 2-core laptop (measured: the
# word graph of TWL06 built in 3 s of CPU, the compiled search in about 25 s; docs/operations.md, "First
# start and memory"); loaded from their caches, both take under a second. The estimates only word the
# progress lines.
WARM_STEPS = {"lexicon": 5.0, "compile": 30.0}
# The longest ``warm`` stays silent while it works.
WARM_TICK_SECONDS = 5.0


class _Progress:
    """Prints, every ``tick`` seconds while a step runs, what it does and about how long is left."""

    def __init__(self, out, tick: float):
        self.out, self.tick = out, tick
        self.step, self.estimate, self.began = "", 0.0, 0.0
        self._changed = threading.Condition()
        self._done = False
        self._thread = threading.Thread(target=self._run, name="warm-progress", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        with self._changed:
            self._done = True
            self._changed.notify()
        self._thread.join(timeout=2 * self.tick)

    def begin(self, step: str, estimate: float) -> None:
        with self._changed:
            self.step, self.estimate, self.began = step, estimate, time.monotonic()
            self._changed.notify()

    def _run(self) -> None:
        with self._changed:
            while not self._done:
                self._changed.wait(self.tick)
                if self._done or not self.step:
                    continue
                spent = time.monotonic() - self.began
                if spent < self.tick * 0.9:  # a step that has just begun: its own line said so
                    continue
                left = self.estimate - spent
                when = (f"about {left:.0f} s left" if left >= 1
                        else f"longer than the usual {self.estimate:.0f} s (a busy computer)")
                self.out.write(f"  {self.step}: {spent:.0f} s so far, {when}\n")
                self.out.flush()


def run_warm(args, out=None) -> int:
    """``warm``: the lexicon's word graph (built once, then read from the cache), then the search run once
    (the compiled one compiled once per machine, or loaded from its cache); a line at least every
    ``ARBITER_WARM_TICK_SECONDS`` (5) while it works, saying what and about how long is left."""
    import os

    from .search import compiled_search_cached, compiled_search_wanted

    out = out or sys.stdout
    tick = float(os.environ.get("ARBITER_WARM_TICK_SECONDS") or WARM_TICK_SECONDS)
    started = time.perf_counter()
    with _Progress(out, tick) as progress:
        try:
            tileset = load_tileset(args.tileset)
            rules = rules_preset(args.ruleset)
            progress.begin(f"the word list {args.lexicon} (built once, then read from its cache)", WARM_STEPS["lexicon"])
            lexicon = load_lexicon(args.lexicon, cache_dir=args.lexicon_cache)
        except (ValueError, LookupError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        if compiled_search_wanted() and not compiled_search_cached():
            out.write(f"Compiling the move search, once on this computer (about {WARM_STEPS['compile']:.0f} s "
                      "on a 2-core laptop)...\n")
            out.flush()
            progress.begin("compiling the move search", WARM_STEPS["compile"])
        else:
            progress.begin("loading the move search", 1.0)
        search = warm_up(lexicon, tileset, rules)
    out.write(f"search: {search}, ready in {time.perf_counter() - started:.1f} s ({lexicon.name})\n")
    out.flush()
    return 0


def _json_lines(stream):
    for number, line in enumerate(stream, 1):
        if line.strip():
            try:
                yield number, json.loads(line), None
            except json.JSONDecodeError as error:
                yield number, None, f"line {number}: not JSON ({error.msg})"


def play_json(play) -> dict:
    return {"word": play.word, "row": play.row, "col": play.col, "horizontal": play.horizontal, "score": play.score}


def run_tops(stdin, stdout, lexicon, tileset, rules) -> int:
    status = 0
    for number, position, error in _json_lines(stdin):
        if error is None:
            try:
                board = Board.from_rows(position["board"])
                rack = position["rack"]
                started = time.perf_counter()
                tops = find_tops(board, rack, lexicon, tileset, rules)
                ms = (time.perf_counter() - started) * 1000
            except (KeyError, TypeError, ValueError) as problem:
                error = f"line {number}: {problem!r}"
        if error is not None:
            status = 1
            out = {"error": error}
        else:
            out = {"top_score": tops.score, "top_moves": [play_json(p) for p in tops.plays], "ms": round(ms, 3)}
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return status


def _rack_read(typed: str, tileset) -> str:
    """A rack as typed with the set's labels (``COL·LEGI``, ``[CH]AEIOU``), read by the set's rule
    (docs/rules.md "Typing words and racks"); storage characters are still taken (``ΘAEIOU``)."""
    if tileset.plain:
        return typed
    try:
        return tileset.read_rack(typed)
    except TileReadingError:
        if typed and all(ch == "?" or tileset.has_letter(ch) for ch in typed):
            return typed
        raise


def run_check(stdin, stdout, lexicon, tileset, rules, labelling) -> int:
    from .judging import Slip, judge_slip  # only this command needs play checking

    status = 0
    for number, item, error in _json_lines(stdin):
        if error is None:
            try:
                board = Board.from_rows(item["board"]) if item.get("board") else Board.empty()
                slip = Slip(item.get("word"), item.get("ref"), item.get("claimed"))
                judgement = judge_slip(
                    board, _rack_read(item["rack"], tileset), int(item.get("round", 2)), slip, lexicon, tileset,
                    rules, labelling
                )
            except (KeyError, TypeError, ValueError) as problem:
                error = f"line {number}: {problem!r}"
        if error is not None:
            status = 1
            out = {"error": error}
        else:
            out = {
                "paid": judgement.paid,
                "outcome": judgement.outcome,
                "reason": judgement.reason,
                "message": judgement.message,
            }
        stdout.write(json.dumps(out) + "\n")
    return status


# --------------------------------------------------------------------------------------------------
# A whole game


@dataclass
class RoundRecord:
    number: int
    rack: str  # "KEPT+NEW"
    rejected: list[str]
    master: object | None  # None: cancelled (no play possible)
    score: int
    total: int


@dataclass
class GameRecord:
    seed: int
    rounds: list[RoundRecord] = field(default_factory=list)
    total: int = 0
    end: str = ""
    board: Board | None = None
    left: str = ""  # letters never placed (bag + last rack)


def simulate_game(seed: int, lexicon, tileset, rules) -> GameRecord:
    """Play a duplicate game: racks drawn with ``random.Random(seed)``, each round's master chosen by
    ``choose_master``, unplayed letters kept, a round with no play cancelled (its letters go back and a
    new rack is drawn), until §3.7 ends the game."""
    rng = random.Random(seed)
    game = GameRecord(seed)
    bag, kept, board = tileset.full_bag(), "", Board.empty()
    number, cancelled_in_a_row = 1, 0
    while True:
        if game_is_over(bag, kept, tileset, rules, round_number=number):
            game.end = "the letters left cannot make a valid rack" if bag or kept else "every letter was played"
            break
        try:
            draw = draw_rack(bag, kept, number, rng, tileset, rules)
        except RackError as error:
            game.end = error.message
            break
        tops = find_tops(board, draw.rack, lexicon, tileset, rules)
        if tops.score is None:
            game.rounds.append(RoundRecord(number, draw.record, draw.rejected, None, 0, game.total))
            bag, kept = draw.bag + list(draw.rack), ""
            cancelled_in_a_row += 1
            if len(bag) <= rules.rack_size or cancelled_in_a_row >= _MAX_CANCELLED_IN_A_ROW:
                game.end = "no play possible and no different rack can be drawn"
                break
            continue
        cancelled_in_a_row = 0
        master = choose_master(tops, board, draw.bag, tileset, rules, rack=draw.rack)
        board = board.place(master)
        bag, kept = draw.bag, leave(draw.rack, master)
        game.total += master.score
        game.rounds.append(RoundRecord(number, draw.record, draw.rejected, master, master.score, game.total))
        number += 1
    game.board = board
    game.left = format_rack("", "".join(bag) + kept)
    return game


def print_game(game: GameRecord, out, labelling: str, as_json: bool = False, tileset=None) -> None:
    """The record as a table (racks and words by the tiles' labels: [CH] on a rack, CH in a word; one JSON
    line per round in stored characters with ``as_json``)."""
    if as_json:
        for r in game.rounds:
            item = {"round": r.number, "rack": r.rack, "rejected": r.rejected, "score": r.score, "total": r.total}
            if r.master is None:
                item["cancelled"] = True
            else:
                item.update(word=r.master.word, ref=format_ref(r.master.row, r.master.col, r.master.horizontal,
                                                               labelling))
            out.write(json.dumps(item) + "\n")
        out.write(json.dumps({"seed": game.seed, "total": game.total, "end": game.end, "left": game.left}) + "\n")
        return
    out.write(f"Duplicate game, seed {game.seed}\n")
    out.write(f"{'round':>5}  {'rack':<28} {'master':<16} {'ref':<4} {'score':>5} {'total':>6}\n")
    for r in game.rounds:
        rack = " ".join(_typed(tileset, text) for text in [*r.rejected, r.rack])
        if r.master is None:
            out.write(f"{r.number:>5}  {rack:<28} {'(cancelled)':<16} {'':<4} {0:>5} {r.total:>6}\n")
            continue
        ref = format_ref(r.master.row, r.master.col, r.master.horizontal, labelling)
        out.write(f"{r.number:>5}  {rack:<28} {_shown(tileset, r.master.word):<16} {ref:<4} {r.score:>5} {r.total:>6}\n")
    out.write(f"total {game.total}; end: {game.end}; letters left: {_typed(tileset, game.left) or '-'}\n")


def _typed(tileset, text: str) -> str:
    """A rack as typed back (``[CH]AEIO``), keeping its ``-`` and ``+`` marks."""
    if tileset is None or tileset.plain or not text:
        return text
    return "".join(ch if ch in "-+" else tileset.typed(ch) for ch in text)


def _shown(tileset, word: str) -> str:
    return word if tileset is None else tileset.show(word)
