"""The settings of a duplicate event, as one frozen value.

Every number the game depends on (rack size, bonuses, vowel/consonant minimums and their round
limit, warning and penalty costs, solo threshold) lives here, never as a literal in the logic.
Two presets exist: ``fisf`` (the federation's competition rules, the default) and ``classic``
(the booklet's rules: real score if valid, else 0; no warnings, penalties or solos).

On top of a preset, a *variant* (``VARIANTS``: the federation's parties originales, joker, explosive,
7 sur 8, 7 et 8, and topping) and a *timing* (``TIMINGS``: normal, semi-rapid, blitz) set some fields;
``variant_rules`` builds them.  docs/rules.md gives every variant's rules, defaults and sources.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Rules:
    preset: str = "fisf"
    rack_size: int = 7
    # A play places at most this many tiles (7 sur 8: a rack of 8, at most 7 placed; 7 et 8: all 8).
    max_placed: int = 7
    # Placing ``bingo_tiles`` tiles earns ``bingo_bonus``; placing one more (a whole rack of 8 in 7 et 8)
    # earns ``big_bingo_bonus``.
    bingo_tiles: int = 7
    bingo_bonus: int = 50
    big_bingo_bonus: int = 75
    early_rounds: int = 15
    early_min_vowels: int = 2
    early_min_consonants: int = 2
    late_min_vowels: int = 1
    late_min_consonants: int = 1
    round_seconds: int = 180
    warnings: bool = True
    free_warnings: int = 3
    warning_cost: int = 5
    penalties: bool = True
    penalty: int = 5
    penalty_floor: int = 4
    solos: bool = True
    solo_bonus: int = 10
    solo_min_players: int = 16
    first_round_best_placement: bool = True
    first_move_horizontal: bool = True
    # A simultaneous event (engine/merge.py): a round's solo is counted over every centre's players, not room by room.
    event_solos: bool = True
    # Joker: every rack holds a blank while one is left (one at a time: the others stay out of the draw);
    # with ``joker_replace``, a blank the master placed is replaced on the board by the real letter while
    # the bag holds one, and goes back into the bag for the next rack (engine/drawing.py).
    joker: bool = False
    joker_replace: bool = True
    # Explosive (partie détonante): every new rack is drawn with a blank, which is then replaced by the
    # letter it stands for in the rack's top (a letter still in the bag); when the top does not use the
    # blank, by a letter drawn at random from the bag with ``explosive_random_when_unused``, else it stays.
    explosive: bool = False
    explosive_random_when_unused: bool = True
    # Topping: a player's round is the seconds taken to hand in the top, or the round's time plus
    # ``topping_penalty`` seconds when they never do; each wrong try adds ``topping_wrong_try_seconds``.
    topping: bool = False
    topping_penalty: int = 60
    topping_wrong_try_seconds: int = 0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise ValueError(f"rules field {f.name!r} must be true or false, not {value!r}")
            elif f.type in ("int", int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"rules field {f.name!r} must be a non-negative integer, not {value!r}")
        for name in ("rack_size", "max_placed", "bingo_tiles"):
            if getattr(self, name) < 1:
                raise ValueError(f"rules field {name!r} must be at least 1")
        if self.joker and self.explosive:
            raise ValueError("rules fields 'joker' and 'explosive' exclude each other")

    def placeable(self, rack_len: int) -> int:
        """How many tiles a play may place from a rack of ``rack_len`` tiles."""
        return min(rack_len, self.max_placed)

    def bonus_for(self, placed: int) -> int:
        """The bonus for a play placing ``placed`` tiles (50 for 7; 75 for 8 in 7 et 8; else 0)."""
        if placed == self.bingo_tiles:
            return self.bingo_bonus
        if placed == self.bingo_tiles + 1:
            return self.big_bingo_bonus
        return 0

    def min_vowels(self, round_number: int) -> int:
        """Vowels a rack must hold in this round (1-based) under the normal rule."""
        return self.early_min_vowels if round_number <= self.early_rounds else self.late_min_vowels

    def min_consonants(self, round_number: int) -> int:
        return self.early_min_consonants if round_number <= self.early_rounds else self.late_min_consonants

    def topping_seconds(self, found_after: int | None, wrong_tries: int = 0) -> int:
        """A topping round's result: the seconds taken to hand in the top (``found_after``), or the
        round's time plus the penalty when it was never found; each wrong try adds its cost."""
        if found_after is not None and not 0 <= found_after <= self.round_seconds:
            raise ValueError(f"the top cannot be found after {found_after} s in a round of {self.round_seconds} s")
        base = self.round_seconds + self.topping_penalty if found_after is None else found_after
        return base + wrong_tries * self.topping_wrong_try_seconds

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_PRESETS: dict[str, dict] = {
    "fisf": {},
    "classic": {
        "warnings": False,
        "penalties": False,
        "solos": False,
        "first_round_best_placement": False,
    },
}

PRESET_NAMES = tuple(_PRESETS)

# The variants (docs/rules.md, "Variants"): the fields each sets over the ruleset.  In every partie
# originale the 6th warning is the first to cost (free_warnings 5); 8-tile racks keep the 7-tile
# minimums (2 and 2 in rounds 1-15, then 1 and 1): the sources are silent, Eliot does the same.
_ORIGINAL = {"free_warnings": 5}
VARIANTS: dict[str, dict] = {
    "duplicate": {},
    "joker": {**_ORIGINAL, "joker": True},
    "explosive": {**_ORIGINAL, "explosive": True},
    "seven_of_eight": {**_ORIGINAL, "rack_size": 8, "max_placed": 7,
                       "early_min_vowels": 2, "early_min_consonants": 2, "late_min_vowels": 1, "late_min_consonants": 1},
    "seven_and_eight": {**_ORIGINAL, "rack_size": 8, "max_placed": 8,
                        "early_min_vowels": 2, "early_min_consonants": 2, "late_min_vowels": 1, "late_min_consonants": 1},
    "topping": {"topping": True, "warnings": False, "penalties": False, "solos": False},
}
VARIANT_NAMES = tuple(VARIANTS)

# The fields the variants add.  The tournaments' API does not take them as overrides until the tournament
# side plays the variants (the draws' blank rules, the explosive top, topping's times, 8-tile slips).
VARIANT_FIELDS = ("max_placed", "bingo_tiles", "big_bingo_bonus", "joker", "joker_replace", "explosive",
                  "explosive_random_when_unused", "topping", "topping_penalty", "topping_wrong_try_seconds")

# The timings: the round's time, and in blitz the 6th warning is the first to cost.
TIMINGS: dict[str, dict] = {
    "normal": {"round_seconds": 180},
    "semi_rapid": {"round_seconds": 120},
    "blitz": {"round_seconds": 60, "free_warnings": 5},
}
TIMING_NAMES = tuple(TIMINGS)


def rules_preset(name: str = "fisf", **overrides) -> Rules:
    """The rules of a named preset, with some fields overridden.

    Raises ValueError for an unknown preset or field, or a value of the wrong kind.
    """
    if name not in _PRESETS:
        raise ValueError(f"unknown rules preset {name!r}; known presets: {', '.join(PRESET_NAMES)}")
    known = {f.name for f in fields(Rules)} - {"preset"}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"unknown rules field(s): {', '.join(unknown)}; known fields: {', '.join(sorted(known))}")
    return replace(Rules(), preset=name, **{**_PRESETS[name], **overrides})


def variant_rules(variant: str = "duplicate", *, ruleset: str = "fisf", timing: str = "normal", **overrides) -> Rules:
    """The rules of a variant played under a ruleset and a timing, with some fields overridden (last).

    Raises ValueError for an unknown variant, ruleset, timing or field, or a value of the wrong kind.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known variants: {', '.join(VARIANT_NAMES)}")
    if timing not in TIMINGS:
        raise ValueError(f"unknown timing {timing!r}; known timings: {', '.join(TIMING_NAMES)}")
    return rules_preset(ruleset, **{**VARIANTS[variant], **TIMINGS[timing], **overrides})
