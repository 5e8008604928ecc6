"""The settings of a duplicate event, as one frozen value.

Every number the game depends on (rack size, bonuses, vowel/consonant minimums and their round
limit, warning and penalty costs, solo threshold) lives here, never as a literal in the logic.
Two presets exist: ``fisf`` (the federation's competition rules, the default) and ``classic``
(the booklet's rules: real score if valid, else 0; no warnings, penalties or solos).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Rules:
    preset: str = "fisf"
    rack_size: int = 7
    bingo_bonus: int = 50
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

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise ValueError(f"rules field {f.name!r} must be true or false, not {value!r}")
            elif f.type in ("int", int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"rules field {f.name!r} must be a non-negative integer, not {value!r}")
        if self.rack_size < 1:
            raise ValueError("rules field 'rack_size' must be at least 1")

    def min_vowels(self, round_number: int) -> int:
        """Vowels a rack must hold in this round (1-based) under the normal rule."""
        return self.early_min_vowels if round_number <= self.early_rounds else self.late_min_vowels

    def min_consonants(self, round_number: int) -> int:
        return self.early_min_consonants if round_number <= self.early_rounds else self.late_min_consonants

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
