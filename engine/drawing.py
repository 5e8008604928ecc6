"""Drawing racks: the letters kept from the last round plus letters from the bag, checked (§3.2).

A rack must hold at least ``rules.early_min_vowels`` vowels and ``rules.early_min_consonants``
consonants in rounds 1..``rules.early_rounds``, and the late minimums afterwards.  Tiles the tile set
marks as either kind (Y and the blank in the shipped sets) count as whichever makes the rack valid.
When a drawn rack fails, every letter of it, kept ones included, goes back into the bag and a whole
new rack is drawn; each rejected rack is recorded.  When the letters left (bag + kept) cannot make a
valid rack under the early minimums, the late ones apply; when they cannot under the late ones
either, the game is over.

Randomness is injected (a ``random.Random``): the bag is sorted before each draw, so a game's seed
replays every draw whatever order the caller stores the bag in.

Variants (``rules.joker`` or ``rules.explosive``): every rack holds a blank while the bag has one, one at
a time: when the kept letters hold none, one is put in the new letters first and the bag's other blanks
stay out of the draw; a rejected rack goes back whole and the next one gets its blank again.  In a joker
game a blank the master placed is replaced on the board by the real letter while the bag holds one
(``replace_played_blanks``): the letter leaves the bag, the blank goes back in for the next rack.  In an
explosive game the new blank is replaced, once the rack is valid, by the letter a caller's
``choose_blank`` names (``explosive_chooser``: the letter the blank stands for in the rack's top), when
the bag still holds that letter and the rack stays valid; ``Draw.replaced`` says which.

Rack text: ``?`` is a blank.  A rack is displayed with the kept letters first, alphabetically with the
blank last, then the new ones in the same order.  A *record* (``format_rack``) separates the two with
``+`` when letters were kept: ``EIR+ADST?``; with nothing kept it is just the new letters.  A rejected
rack is recorded as ``-`` followed by its record: ``-AEIOUU+`` is six kept vowels rejected,
``-AEI+OUUS`` three kept and four new, ``-AEIOUUS`` seven new.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from .board import Board
from .layout import SIZE
from .refusals import refusal_message
from .tiles import BLANK, BLANK_CHAR, letter_code

# Retrying is only entered when a valid rack is known to exist, so the chance of each draw is
# positive; the bound turns an unforeseen impossibility into an error instead of a hang.
_MAX_DRAWS = 100_000


class RackError(ValueError):
    """codes: ``game_over``, ``bad_letters``, ``wrong_size``, ``missing_kept``, ``not_in_bag``,
    ``too_few_vowels``, ``too_few_consonants``, ``joker_blank``."""

    def __init__(self, code: str, **params):
        self.code = code
        self.message = refusal_message(code, params)  # its English text, from engine/refusals.py
        super().__init__(self.message)
        # What the message names (the rack, the letters at fault, the numbers of the rule), for a page that
        # says the refusal in its own language.
        self.params = params


@dataclass(frozen=True)
class Draw:
    rack: str  # display order: kept letters, then the new ones
    kept: str  # the kept letters in the rack ("" after a rejection: they went back into the bag)
    drawn: str  # the new letters
    rejected: list[str] = field(default_factory=list)  # e.g. ["-AEIOUU+"], in order
    bag: list[str] = field(default_factory=list)  # what is left in the bag, sorted
    replaced: str = ""  # explosive: the letter that replaced the new blank ("" when none did)

    @property
    def record(self) -> str:
        return format_rack(self.kept, self.drawn)


def tile_order(ch: str) -> tuple[bool, str]:
    """Sort key: letters alphabetically, the blank last."""
    return (ch == BLANK_CHAR, ch)


def sort_tiles(tiles) -> str:
    return "".join(sorted(tiles, key=tile_order))


def format_rack(kept: str, drawn: str) -> str:
    """``KEPT+NEW`` when letters were kept, else ``NEW``; each group sorted, blank last."""
    kept, drawn = sort_tiles(kept), sort_tiles(drawn)
    return f"{kept}+{drawn}" if kept else drawn


def _kinds(tiles, tileset) -> tuple[int, int, int]:
    """(vowels only, consonants only, either) among the tiles."""
    vowels = consonants = either = 0
    for ch in tiles:
        is_vowel, is_consonant = tileset.is_vowel(ch), tileset.is_consonant(ch)
        if is_vowel and is_consonant:
            either += 1
        elif is_vowel:
            vowels += 1
        elif is_consonant:
            consonants += 1
    return vowels, consonants, either


def _meets(tiles, minimums: tuple[int, int], tileset) -> bool:
    min_vowels, min_consonants = minimums
    vowels, consonants, either = _kinds(tiles, tileset)
    return max(0, min_vowels - vowels) + max(0, min_consonants - consonants) <= either


def _can_make(pool, size: int, minimums: tuple[int, int], tileset) -> bool:
    """Whether some ``size`` tiles of the pool meet the minimums."""
    vowels, consonants, either = _kinds(pool, tileset)
    for v in range(min(vowels, size) + 1):
        for c in range(min(consonants, size - v) + 1):
            e = size - v - c
            if e <= either and _meets_counts(v, c, e, minimums):
                return True
    return False


def _meets_counts(vowels: int, consonants: int, either: int, minimums: tuple[int, int]) -> bool:
    min_vowels, min_consonants = minimums
    return max(0, min_vowels - vowels) + max(0, min_consonants - consonants) <= either


def minimums_in_force(pool, round_number: int, tileset, rules) -> tuple[int, int] | None:
    """(min vowels, min consonants) for this round given every letter left (bag + kept), or None
    when not even the late minimums can be met (the game is over)."""
    pool = list(pool)
    size = min(rules.rack_size, len(pool))
    if size == 0:
        return None
    early = (rules.early_min_vowels, rules.early_min_consonants)
    late = (rules.late_min_vowels, rules.late_min_consonants)
    if round_number <= rules.early_rounds and _can_make(pool, size, early, tileset):
        return early
    if _can_make(pool, size, late, tileset):
        return late
    return None


def rack_is_valid(rack: str, round_number: int, tileset, rules, available=None) -> bool:
    """Whether the rack meets the minimums of this round.

    With ``available`` (every letter left: bag + kept), the minimums are those in force given what is
    left (the late ones when the early ones cannot be met); without it, those of the round number.
    """
    if available is None:
        minimums = (rules.min_vowels(round_number), rules.min_consonants(round_number))
    else:
        minimums = minimums_in_force(available, round_number, tileset, rules)
        if minimums is None:
            return False
    return _meets(rack, minimums, tileset)


def _check_letters(text: str, what: str, tileset) -> str:
    """``text`` when it is letters of the set and blanks; ``what`` it is: ``kept``, ``bag`` or ``rack``."""
    bad = sorted({ch for ch in text if ch != BLANK_CHAR and not tileset.has_letter(ch)})
    if bad or any(ch.islower() for ch in text):
        raise RackError("bad_letters", text=text, why=what)
    return text


def _can_complete(keep: str, bag, rack_size: int, minimums: tuple[int, int], tileset) -> bool:
    """Whether some letters of the bag complete the kept letters into a rack meeting the minimums."""
    need = min(rack_size - len(keep), len(bag))
    kept_v, kept_c, kept_e = _kinds(keep, tileset)
    bag_v, bag_c, bag_e = _kinds(bag, tileset)
    for v in range(min(bag_v, need) + 1):
        for c in range(min(bag_c, need - v) + 1):
            e = need - v - c
            if e <= bag_e and _meets_counts(kept_v + v, kept_c + c, kept_e + e, minimums):
                return True
    return False


def _blank_every_rack(rules) -> bool:
    return bool(rules.joker or rules.explosive)


def _split_blanks(bag: list[str], keep: str, rules) -> tuple[str, list[str], list[str]]:
    """(the blank put in the new letters or "", the bag drawn from, the blanks held out of the draw).

    Without a blank in every rack: nothing forced, the whole bag, nothing held out."""
    if not _blank_every_rack(rules):
        return "", bag, []
    blanks = [t for t in bag if t == BLANK_CHAR]
    rest = [t for t in bag if t != BLANK_CHAR]
    if BLANK_CHAR in keep or not blanks:
        return "", rest, blanks
    return BLANK_CHAR, rest, blanks[1:]


def draw_rack(bag, kept: str, round_number: int, rng: random.Random, tileset, rules, *, choose_blank=None) -> Draw:
    """Draw this round's rack: the kept letters plus letters from the bag, redrawn until valid.

    ``choose_blank`` (explosive games): called with the valid rack, returns the letter its new blank is
    to become, or None when the rack's top does not need it (see ``explosive_chooser``).
    Raise RackError("game_over") when the letters left cannot make a valid rack.
    """
    kept = _check_letters(kept or "", "kept", tileset)
    bag = sorted(bag, key=tile_order)
    _check_letters("".join(bag), "bag", tileset)
    if rules.explosive and choose_blank is None:
        raise ValueError("an explosive game's draw needs choose_blank (engine.drawing.explosive_chooser)")
    forced, pool, held = _split_blanks(bag, kept, rules)
    minimums = minimums_in_force(pool + list(kept) + list(forced), round_number, tileset, rules)
    if minimums is None:
        raise RackError("game_over", why="no_valid_rack")
    rejected: list[str] = []
    keep = sort_tiles(kept)
    if keep and not _can_complete(keep + forced, pool, rules.rack_size, minimums, tileset):
        # The kept letters alone make the rule impossible (six vowels kept): back into the bag before
        # anything is drawn, recorded with nothing new (-AEIOUU+).
        rejected.append("-" + format_rack(keep, ""))
        bag = sorted(bag + list(keep), key=tile_order)
        keep = ""
        forced, pool, held = _split_blanks(bag, keep, rules)
    for _ in range(_MAX_DRAWS):
        count = min(rules.rack_size - len(keep) - len(forced), len(pool))
        drawn = [forced] if forced else []
        drawn += [pool.pop(rng.randrange(len(pool))) for _ in range(count)]
        if _meets(keep + "".join(drawn), minimums, tileset):
            left = sorted(pool + held, key=tile_order)
            draw = Draw(rack=keep + sort_tiles(drawn), kept=keep, drawn=sort_tiles(drawn), rejected=rejected, bag=left)
            if rules.explosive and forced:
                draw = _explode(draw, minimums, rng, tileset, rules, choose_blank)
            return draw
        rejected.append("-" + format_rack(keep, "".join(drawn)))
        bag = sorted(pool + held + list(keep) + drawn, key=tile_order)
        keep = ""
        forced, pool, held = _split_blanks(bag, keep, rules)
    raise RackError("game_over", why="no_draw")


def _explode(draw: Draw, minimums, rng: random.Random, tileset, rules, choose_blank) -> Draw:
    """The explosive rule on a valid draw whose new letters hold a blank: the blank becomes the letter
    ``choose_blank`` names (or, when the top does not need it, a letter of the bag at random with
    ``rules.explosive_random_when_unused``) if the bag still holds it and the rack stays valid."""
    letter = choose_blank(draw.rack)
    candidates = [t for t in draw.bag if t != BLANK_CHAR]
    if letter is None and rules.explosive_random_when_unused and candidates:
        letter = candidates[rng.randrange(len(candidates))]
    if letter is None or letter not in candidates:
        return draw
    drawn = list(draw.drawn)
    drawn.remove(BLANK_CHAR)
    drawn.append(letter)
    new = sort_tiles(drawn)
    if not _meets(draw.kept + new, minimums, tileset):
        return draw
    bag = list(draw.bag)
    bag.remove(letter)
    bag = sorted([*bag, BLANK_CHAR], key=tile_order)
    return Draw(rack=draw.kept + new, kept=draw.kept, drawn=new, rejected=draw.rejected, bag=bag, replaced=letter)


def explosive_chooser(board, lexicon, tileset, rules):
    """``choose_blank`` for an explosive game on ``board``: the letter the blank stands for in the rack's
    top, or None when no play exists or some tied top places no blank (the master would be one of those,
    §3.4).  Among tops that all need it, the first in the search's order decides."""
    from .search import find_tops  # noqa: PLC0415  (search is below drawing; imported when a game needs it)

    def choose(rack: str):
        tops = find_tops(board, rack, lexicon, tileset, rules)
        if not tops.plays or any(not any(t[3] for t in play.tiles) for play in tops.plays):
            return None
        for _row, _col, letter, is_blank in tops.plays[0].tiles:
            if is_blank:
                return letter.upper()
        return None

    return choose


def replace_played_blanks(board: Board, tiles, bag, rules) -> tuple[Board, list[str], str]:
    """The joker rule after a master is placed: each blank it placed (``tiles``: the master's
    ((row, col, letter, is_blank), ...)) whose letter the bag still holds becomes that letter on the board;
    the letter leaves the bag and the blank goes back in.  ``bag`` is the bag proper: a copy of the letter
    among the letters kept on the rack is never taken (docs/rules.md 7.1, "The joker's letter").  Returns
    (board, bag, letters replaced).
    Without ``rules.joker`` and ``rules.joker_replace``, nothing changes."""
    bag = sorted(bag, key=tile_order)
    if not (rules.joker and rules.joker_replace):
        return board, bag, ""
    squares = list(board.squares)
    replaced = []
    for row, col, letter, is_blank in tiles:
        i = row * SIZE + col
        real = letter.upper()
        if not is_blank or real not in bag:
            continue
        if squares[i] != letter_code(real) | BLANK:
            raise ValueError(f"square ({row}, {col}) does not hold the blank {letter!r} the play placed")
        squares[i] = letter_code(real)
        bag.remove(real)
        bag.append(BLANK_CHAR)
        replaced.append(real)
    return Board(squares), sorted(bag, key=tile_order), "".join(replaced)


def check_typed_rack(
    bag, kept: str, typed: str, round_number: int, tileset, rules, *, after_rejection: bool = False,
    choose_blank=None, rng: random.Random | None = None,
) -> Draw:
    """Check a rack typed from a physical bag; return its Draw or raise RackError.

    ``after_rejection``: the previous draw of this round was rejected, so the kept letters went back
    into the bag and the typed rack is a whole new one.

    Explosive games (``rules.explosive`` with ``choose_blank``, and ``rng`` for the random letter when the
    top does not need the blank): the rack is typed as drawn from the real bag, its new blank included, and
    that blank becomes a letter exactly as in a random draw (``_explode``); ``Draw.replaced`` names the
    letter the arbitrator takes out of the bag in exchange for the blank ("" when the blank stays).
    """
    kept = _check_letters(kept or "", "kept", tileset)
    bag = sorted(bag, key=tile_order)
    _check_letters("".join(bag), "bag", tileset)
    letters = "".join((typed or "").split()).upper()
    _check_letters(letters, "rack", tileset)
    if after_rejection:
        bag, kept = sorted(bag + list(kept), key=tile_order), ""
    pool = bag + list(kept)
    size = min(rules.rack_size, len(pool))
    if kept and Counter(letters) == Counter(kept) and len(letters) < size:
        # The kept letters alone, typed to be rejected: refused like a failing rack when no letters of
        # the bag could complete them (so they go back into the bag, recorded -AEIOUU+).
        minimums = minimums_in_force(pool, round_number, tileset, rules)
        if minimums is not None and not _can_complete(sort_tiles(kept), bag, rules.rack_size, minimums, tileset):
            min_vowels, min_consonants = minimums
            vowels, consonants, either = _kinds(kept, tileset)
            code = "too_few_consonants" if vowels + either >= min_vowels else "too_few_vowels"
            raise RackError(code, rack=letters, vowels=min_vowels, consonants=min_consonants, why="kept_alone")
    if len(letters) != size:
        raise RackError("wrong_size", rack=letters, size=size, count=len(letters),
                        **({} if letters else {"why": "no_letters"}))
    missing = Counter(kept) - Counter(letters)
    if missing:
        raise RackError("missing_kept", rack=letters, kept=sort_tiles(missing.elements()))
    drawn = Counter(letters) - Counter(kept)
    absent = drawn - Counter(bag)
    if absent:
        raise RackError("not_in_bag", rack=letters, letters=sort_tiles(absent.elements()))
    if _blank_every_rack(rules) and letters.count(BLANK_CHAR) != (1 if BLANK_CHAR in pool else 0):
        # Joker and explosive: one blank, no more, while one is left (an explosive rack is typed with its
        # blank, before the blank's letter is chosen).
        raise RackError("joker_blank", rack=letters)
    minimums = minimums_in_force(pool, round_number, tileset, rules)
    if minimums is None:
        raise RackError("game_over", why="no_valid_rack")
    if not _meets(letters, minimums, tileset):
        min_vowels, min_consonants = minimums
        vowels, consonants, either = _kinds(letters, tileset)
        if vowels + either >= min_vowels and consonants + either < min_consonants:
            raise RackError("too_few_consonants", rack=letters, consonants=min_consonants)
        if consonants + either >= min_consonants and vowels + either < min_vowels:
            raise RackError("too_few_vowels", rack=letters, vowels=min_vowels)
        raise RackError("too_few_vowels", rack=letters, vowels=min_vowels, consonants=min_consonants)
    remaining = Counter(bag) - drawn
    new = sort_tiles(drawn.elements())
    keep = sort_tiles(kept)
    draw = Draw(rack=keep + new, kept=keep, drawn=new, rejected=[], bag=sorted(remaining.elements(), key=tile_order))
    if rules.explosive and choose_blank is not None and BLANK_CHAR in new:
        # Only a new blank: a blank kept from an earlier rack is not replaced (as in a random draw).
        if rng is None:
            raise ValueError("an explosive typed rack needs rng (the letter drawn when the top needs no blank)")
        draw = _explode(draw, minimums, rng, tileset, rules, choose_blank)
    return draw


def game_is_over(bag, kept: str, tileset, rules, round_number: int | None = None) -> bool:
    """§3.7: no letter left; or every letter left is a vowel, or every one a consonant (but not while
    a tile of either kind is among two or more letters left); or the letters left cannot make a valid
    rack under the late minimums (or, given ``round_number``, the minimums of that round)."""
    remaining = list(bag) + list(kept or "")
    if not remaining:
        return True
    vowels, consonants, either = _kinds(remaining, tileset)
    if len(remaining) < 2 or not either:
        if vowels + either == len(remaining) or consonants + either == len(remaining):
            return True
    last_round = rules.early_rounds + 1 if round_number is None else round_number
    return minimums_in_force(remaining, last_round, tileset, rules) is None
