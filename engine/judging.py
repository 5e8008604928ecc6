"""Paying a slip (rules document §4): pure functions the service calls for each slip of a round.

``judge_slip`` pays the **real** score of the play written, computed here, never the claimed one.
Under preset ``fisf`` the table of §4 applies, switched by the rules:

- ``rules.warnings`` allows the corrections that cost a warning: a claimed score wrong or missing
  (``wrong_score``), a blank not marked (``blank_not_marked``), a reversed reference
  (``reversed_ref``).  At most one warning per slip: several of these on one slip give one warning,
  named by the first of blank_not_marked, reversed_ref, wrong_score.
- ``rules.penalties`` allows the penalty ``wrong_ref``: the reference is missing, malformed or names
  no legal play of the word (in either direction), but the claimed score is exactly the score of some
  legal placement of that word with this rack (as written: its marked blanks stay blanks, and a
  blank is read only where the rack lacks the letter).  Paid claimed
  − ``rules.penalty``, or 0 when that leaves ``rules.penalty_floor`` or less.
- ``rules.first_round_best_placement``: in round 1, on the empty board, the reference is optional
  and the word is paid the best score it can make horizontally across the centre with the rack.
  A reference that names another placement costs nothing (reason ``first_round_best``); with a score
  written that is not the best placement's (often the score of the placement written), the warning for
  the score says so: reason ``first_round_best_wrong_score``, the play paid being the best placement.

With all three off (preset ``classic``) a slip is paid its real score at the written reference if the
play is legal, else 0.

A **reversed reference** is one that names the square of the word's first letter but the other
direction: ``4H`` written for ``H4`` (or ``H4`` for ``4H``).  The word as written, played from that
square in the other direction, must be legal; anything else wrong with the reference is not reversal.

A **blank not marked** is an uppercase letter of a new tile that the rack cannot supply (beyond its
own letters) while a blank can.  The play is read with the fewest blanks that make it possible,
letters the player marked as blanks staying blanks; among those readings, the one scoring least is
paid.

A **stray mark** is a letter marked as a blank that the rack holds as a real tile, when the rack's
blanks cannot cover every mark: alone, beside a rightly marked blank, or beside a blank left unmarked.
The marks that cannot all be kept give way (as many kept as the rack allows, then the fewest blanks, then
the lowest score): the play the rack allows is paid its real score with one warning
(``stray_blank_mark``; ``blank_not_marked`` when a blank also went unmarked).  It is never worse than the
same slip without the stray mark.

Letters written on squares already covered are taken as the board shows them, whatever their case.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from .checking import PlayError, check_play
from .lane import lanes
from .layout import CENTRE, SIZE
from .notation import RefError, WordError, format_ref, parse_ref, parse_word
from .tiles import BLANK, BLANK_CHAR, EMPTY, LETTER_MASK, decode, decode_word, encode, letter_code

REASON_MESSAGES = {
    "ok": "paid the real score",
    "wrong_score": "the score claimed is not the real score",
    "reversed_ref": "the reference was reversed",
    "wrong_ref": "the reference is wrong but the score claimed is reachable by the word",
    "first_round_best": "first round: paid the best placement of the word",
    "first_round_best_wrong_score": "first round: paid the best placement of the word, whose score was not the "
                                    "one written",
    "blank_not_marked": "a blank was not marked",
    "stray_blank_mark": "a letter the rack holds was marked as a blank",
    "invalid_word": "a word formed is not in the lexicon",
    "not_in_rack": "the letters are not in the rack",
    "does_not_fit": "the play does not fit the board",
    "not_connected": "the play does not touch the letters on the board",
    "bad_ref": "the reference names no square",
    "bad_word": "the word is not written in letters",
    "no_slip": "no slip was handed in",
    "late": "the slip was handed in after the end call",
    "several_slips": "two different slips were handed in",
}

# When several warnings apply to one slip, the one named.
_WARNING_ORDER = ("blank_not_marked", "stray_blank_mark", "reversed_ref", "wrong_score")


@dataclass(frozen=True)
class Slip:
    word: str | None
    ref: str | None = None
    claimed: int | None = None


@dataclass(frozen=True)
class Judgement:
    paid: int
    outcome: str  # "ok" | "warning" | "penalty" | "zero"
    reason: str
    message: str
    play: object | None = None  # the Play paid (for a penalty: the placement reaching the claimed score)


def zero(reason: str, message: str | None = None) -> Judgement:
    """A slip paid nothing, e.g. ``zero("no_slip")`` or ``zero("late")`` for the service."""
    return Judgement(0, "zero", reason, message or REASON_MESSAGES.get(reason, reason))


# --------------------------------------------------------------------------------------------------
# Reading the word written


def read_word(text: str | None, tileset, lexicon) -> str | None:
    """The word of a slip as stored tiles.  For a set whose tiles are one letter each (English, French) the
    text itself.  Otherwise the text is read as the set's labels (``COCHE``, ``COL·LEGI``, ``[ch]E``) every
    way it can be (``TileSet.spellings``), and the reading the lexicon holds is taken (COCHE is C, O, CH, E
    when the list spells it so); when none is a word, the set's own reading (the longest tiles first).
    WordError ``bad_word`` when it reads as no tiles of the set."""
    if tileset.plain or not text or not text.strip():
        return text
    readings = tileset.spellings(text)
    if not readings:
        strange = sorted({ch for ch in text.strip() if not tileset.is_label_char(ch)})
        raise WordError("bad_word", word=text.strip(), why="no_tile", letters=", ".join(strange) or text.strip())
    return next((r for r in readings if r.upper() in lexicon), readings[0])


# --------------------------------------------------------------------------------------------------
# Placing a word


def _fits(view, span, word: str) -> list[int] | None:
    """Indexes of the word's new tiles at this spot, or None when it leaves the board or a written
    letter disagrees with a board tile."""
    if span is None:
        return None
    new = []
    for k, i in enumerate(span):
        on_board = view[i]
        if not on_board:
            new.append(k)
        elif on_board & LETTER_MASK != letter_code(word[k]):
            return None
    return new


@lru_cache(maxsize=64)
def _rack_letters(rack: str) -> dict:
    """{tile code: count} of the rack's letters (its blanks apart)."""
    return dict(Counter(encode(ch) for ch in rack if ch != BLANK_CHAR))


def _readings(board, rack: str, word: str, row: int, col: int, horizontal: bool, mode: str) -> list[str]:
    """Ways to write the word at this spot that the rack can supply (board letters in board case).

    mode ``written``: the new tiles exactly as written; ``fix``: the player's blanks kept, the fewest
    more blanks that make it possible; ``any``: every choice of blanks.

    When ``fix`` cannot keep every mark (a letter the rack holds is marked while the blank stands for
    an unmarked one), the blank is still not marked: the readings with a blank on an unmarked letter
    that keep the most marks, then use the fewest blanks, are returned.
    """
    view = board.view(horizontal)
    span = lanes(horizontal).span(row, col, len(word))
    new = _fits(view, span, word)
    if new is None:
        return []
    base = [view[i] or letter_code(ch) for i, ch in zip(span, word, strict=True)]
    marked = frozenset(k for k in new if word[k].islower())
    rack_letters = _rack_letters(rack)
    blanks = rack.count(BLANK_CHAR)
    missing = sum(max(0, n - rack_letters.get(t, 0)) for t, n in Counter(base[k] for k in new).items())
    if missing > blanks:
        return []  # each blank stands for one missing letter at most: no reading
    feasible = []
    for size in range(min(blanks, len(new)) + 1):
        for chosen in combinations(new, size):
            chosen = frozenset(chosen)
            if mode == "written" and chosen != marked:
                continue
            needed = Counter(base[k] for k in new if k not in chosen)
            if any(rack_letters.get(t, 0) < n for t, n in needed.items()):
                continue
            feasible.append(chosen)
    if mode == "fix":
        keeping = [chosen for chosen in feasible if marked <= chosen]
        if keeping:
            feasible = keeping
        else:
            # Marks on letters the rack holds as real tiles (stray marks) give way: as many kept as the
            # rack allows.
            most = max((len(chosen & marked) for chosen in feasible), default=0)
            feasible = [chosen for chosen in feasible if len(chosen & marked) == most]
        fewest = min((len(chosen) for chosen in feasible), default=0)
        feasible = [chosen for chosen in feasible if len(chosen) == fewest]
    return [decode_word([t | BLANK if k in chosen else t for k, t in enumerate(base)]) for chosen in feasible]


def _check(board, rack, reading, row, col, horizontal, lexicon, tileset, rules):
    try:
        return check_play(board, rack, reading, row, col, horizontal, lexicon, tileset, rules), None
    except PlayError as error:
        return None, error


def _play_at(board, rack, word, spot, lexicon, tileset, rules, allow_fix: bool):
    """(play, blank_fixed, error) for the word written at this spot ((row, col, horizontal))."""
    row, col, horizontal = spot
    written = _readings(board, rack, word, row, col, horizontal, "written")
    if written:
        play, error = _check(board, rack, written[0], row, col, horizontal, lexicon, tileset, rules)
        return play, False, error
    # Not supplied by the rack as written (or it does not fit): let check_play say why.
    _, error = _check(board, rack, _with_board_case(board, word, row, col, horizontal), row, col, horizontal,
                      lexicon, tileset, rules)
    if error is None or error.reason != "not_in_rack" or not allow_fix:
        return None, False, error
    best, first_error = None, None
    for reading in _readings(board, rack, word, row, col, horizontal, "fix"):
        play, fix_error = _check(board, rack, reading, row, col, horizontal, lexicon, tileset, rules)
        if play is not None and (best is None or play.score < best.score):
            best = play
        first_error = first_error or fix_error
    if best is not None:
        return best, True, None
    return None, False, first_error or error


def _fix_warnings(word: str, play) -> list[str]:
    """What reading the play differently from the slip corrected: a blank on a letter written in
    uppercase (``blank_not_marked``), a letter marked as a blank paid as a real tile (``stray_blank_mark``)."""
    lane = lanes(play.horizontal)
    span = lane.span(play.row, play.col, len(word))
    marked = {i for i, ch in zip(span, word, strict=True) if ch.islower()}
    new = {lane.index(r, c): is_blank for r, c, _, is_blank in play.tiles}
    warnings = []
    if any(is_blank and i not in marked for i, is_blank in new.items()):
        warnings.append("blank_not_marked")
    if any(i in new and not new[i] for i in marked):
        warnings.append("stray_blank_mark")
    return warnings or ["blank_not_marked"]


def _with_board_case(board, word: str, row: int, col: int, horizontal: bool) -> str:
    """The word with the letters written on covered squares as the board shows them."""
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        return word
    view = board.view(horizontal)
    start = lanes(horizontal).index(row, col)
    room = SIZE - start % SIZE
    out = []
    for k, ch in enumerate(word):
        on_board = view[start + k] if k < room else EMPTY
        out.append(decode(on_board) if on_board and on_board & LETTER_MASK == letter_code(ch) else ch)
    return "".join(out)


def placements(board, rack: str, word: str, lexicon, tileset, rules, spots=None, mode: str = "fix") -> list:
    """Every legal play of the word with this rack at the given spots ((row, col, horizontal), default
    all), in board order.  mode ``fix`` (default): the word as written, its marked blanks kept (as many
    as the rack allows) and a blank only where the rack lacks the letter; ``any``: whichever tiles are
    blanks."""
    if spots is None:
        spots = [(r, c, h) for r in range(SIZE) for c in range(SIZE) for h in (True, False)]
    plays = []
    for row, col, horizontal in spots:
        for reading in _readings(board, rack, word, row, col, horizontal, mode):
            play, _ = _check(board, rack, reading, row, col, horizontal, lexicon, tileset, rules)
            if play is not None:
                plays.append(play)
    return plays


# --------------------------------------------------------------------------------------------------
# Judging


def judge_slip(board, rack, round_number, slip, lexicon, tileset, rules, labelling="rows-letters") -> Judgement:
    """Pay one slip (see the module's docstring)."""
    try:
        word = parse_word(read_word(slip.word, tileset, lexicon), tileset)
    except WordError as error:
        return zero("bad_word", error.message)
    first_round = round_number == 1 and rules.first_round_best_placement and board.is_empty()
    if word.upper() not in lexicon:
        return _zero_not_a_word(board, rack, word, slip, first_round, lexicon, tileset, rules, labelling)
    if first_round:
        return _judge_first_round(board, rack, word, slip, lexicon, tileset, rules, labelling)

    ref_error, first_error = None, None
    try:
        ref = parse_ref(slip.ref, labelling)
    except RefError as error:
        ref, ref_error = None, error
    if ref is not None:
        play, fixed, first_error = _play_at(
            board, rack, word, (ref.row, ref.col, ref.horizontal), lexicon, tileset, rules, rules.warnings
        )
        if play is not None:
            return _pay(play, slip, rules, tileset, _fix_warnings(word, play) if fixed else [], labelling)
        if rules.warnings:
            flipped = ref.flipped()
            play, fixed, _ = _play_at(
                board, rack, word, (flipped.row, flipped.col, flipped.horizontal), lexicon, tileset, rules, True
            )
            if play is not None:
                warnings = [*_fix_warnings(word, play), "reversed_ref"] if fixed else ["reversed_ref"]
                return _pay(play, slip, rules, tileset, warnings, labelling)
    if rules.penalties and slip.claimed is not None:
        for play in placements(board, rack, word, lexicon, tileset, rules):
            if play.score == slip.claimed:
                return _penalty(play, slip, rules, tileset, labelling)
    if ref is None:
        return zero("bad_ref", f"{ref_error.message} ({ref_error.code})")
    return _zero_from(first_error)


def _zero_not_a_word(board, rack, word, slip, first_round, lexicon, tileset, rules, labelling) -> Judgement:
    """A word outside the lexicon is paid nothing anywhere; the reason reported is the first that applies
    in the rules' order (§4): bad reference, does not fit, letters not in the rack, invalid words, read at
    the reference written (in round 1, where the reference is optional: across the centre)."""
    invalid = Judgement(0, "zero", "invalid_word", f"{tileset.show(word.upper())} is not in the lexicon {lexicon.name}")
    if first_round:
        row, col = CENTRE
        spot = (row, max(0, min(col, SIZE - len(word))), True)
    else:
        try:
            ref = parse_ref(slip.ref, labelling)
        except RefError as error:
            return zero("bad_ref", f"{error.message} ({error.code})")
        spot = (ref.row, ref.col, ref.horizontal)
    _, _, error = _play_at(board, rack, word, spot, lexicon, tileset, rules, rules.warnings)
    if error is not None and error.reason != "invalid_word":
        return _zero_from(error)
    return invalid


def _zero_from(error: PlayError) -> Judgement:
    reason = "does_not_fit" if error.reason == "not_centre" else error.reason
    message = error.message
    invalid = getattr(error, "invalid_words", None)
    if reason == "invalid_word" and invalid:
        message = f"not in the lexicon: {', '.join(invalid)}"
        if error.message.startswith("not valid: "):
            message = "not in the lexicon: " + error.message[len("not valid: "):]  # the words by their labels
    return Judgement(0, "zero", reason, message)


def _score_note(play, slip) -> str:
    if slip.claimed is None:
        return f"no score written, real score {play.score}"
    return f"{slip.claimed} claimed, real score {play.score}"


def _pay(play, slip, rules, tileset, warnings: list[str], labelling: str, reason_if_ok: str = "ok") -> Judgement:
    where = f"{tileset.show(play.word)} {format_ref(play.row, play.col, play.horizontal, labelling)}"
    notes = []
    if "blank_not_marked" in warnings:
        notes.append("a blank was not marked, paid the lowest-scoring reading")
    if "stray_blank_mark" in warnings:
        notes.append("a letter the rack holds was marked as a blank, paid as the real tile")
    if "reversed_ref" in warnings:
        notes.append("the reference was reversed")
    if slip.claimed != play.score and rules.warnings:
        warnings = [*warnings, "wrong_score"]
        notes.append(_score_note(play, slip))
    if warnings:
        reason = min(warnings, key=_WARNING_ORDER.index)
        if reason == "wrong_score" and reason_if_ok == "first_round_best":
            # Round 1, another placement named: the score is checked against the best placement, paid.
            reason = "first_round_best_wrong_score"
            notes.insert(0, REASON_MESSAGES["first_round_best"])
        return Judgement(play.score, "warning", reason, f"{where} {play.score}: " + "; ".join(notes), play)
    message = f"{where} {play.score}"
    if reason_if_ok != "ok":
        message += f": {REASON_MESSAGES[reason_if_ok]}"
    elif slip.claimed != play.score:
        message += f" ({_score_note(play, slip)})"
    return Judgement(play.score, "ok", reason_if_ok, message, play)


def _penalty(play, slip, rules, tileset, labelling: str) -> Judgement:
    left = slip.claimed - rules.penalty
    paid = left if left > rules.penalty_floor else 0
    where = f"{tileset.show(play.word)} {format_ref(play.row, play.col, play.horizontal, labelling)}"
    written = (slip.ref or "").strip()
    problem = f"the reference {written} is wrong" if written else "no reference was written"
    rest = f"{slip.claimed} - {rules.penalty} = {left}" + (f", {rules.penalty_floor} or less: 0" if paid == 0 else "")
    message = f"{problem}; {slip.claimed} is reachable at {where}: paid {rest}"
    return Judgement(paid, "penalty", "wrong_ref", message, play)


def _judge_first_round(board, rack, word, slip, lexicon, tileset, rules, labelling) -> Judgement:
    """Round 1: the best horizontal placement across the centre; a blank not marked read lowest."""
    centre_row, centre_col = CENTRE
    spots = [
        (centre_row, col, True)
        for col in range(centre_col - len(word) + 1, centre_col + 1)
        if col >= 0 and col + len(word) <= SIZE
    ]
    fixed = False
    readings = _first_round_readings(board, rack, word, spots, "written")
    if not readings and rules.warnings:
        readings = _first_round_readings(board, rack, word, spots, "fix")
        fixed = bool(readings)
    written = _written_spot(slip.ref, labelling)
    best_by_reading = []
    first_error = None
    for reading in readings:
        best = None
        for row, col, horizontal in spots:
            play, error = _check(board, rack, reading, row, col, horizontal, lexicon, tileset, rules)
            first_error = first_error or error
            # Among placements of the best score, the one the player wrote is theirs: a tie is not "another
            # placement" (SALER H8 where H4 scores the same is paid as H8).
            if play is not None and (best is None or play.score > best.score
                                     or (play.score == best.score and (row, col, horizontal) == written)):
                best = play
        if best is not None:
            best_by_reading.append(best)
    if not best_by_reading:
        if first_error is None:
            row, col, horizontal = spots[0]
            _, first_error = _check(board, rack, word, row, col, horizontal, lexicon, tileset, rules)
        return _zero_from(first_error)
    play = min(best_by_reading, key=lambda p: p.score)
    reason_if_ok = "ok"
    if slip.ref and slip.ref.strip() and written != (play.row, play.col, play.horizontal):
        reason_if_ok = "first_round_best"
    return _pay(play, slip, rules, tileset, _fix_warnings(word, play) if fixed else [], labelling, reason_if_ok)


def _written_spot(ref: str | None, labelling: str) -> tuple[int, int, bool] | None:
    """The placement a slip's reference names, or None (none written, or not a reference)."""
    if not (ref and ref.strip()):
        return None
    try:
        parsed = parse_ref(ref, labelling)
    except RefError:
        return None
    return parsed.row, parsed.col, parsed.horizontal


def _first_round_readings(board, rack, word, spots, mode) -> list[str]:
    # On the empty board every spot needs the same tiles, so any spot gives the readings.
    row, col, horizontal = spots[0]
    return _readings(board, rack, word, row, col, horizontal, mode)
