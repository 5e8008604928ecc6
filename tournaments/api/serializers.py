"""Shapes of the API's bodies: what a request may contain (checked here) and what an answer holds.

Request serializers only check the form of the input; whether the action fits the game is the services'
business. Answer serializers produce the answers' bodies (the views hand them a model or a selector's dict),
so the OpenAPI schema documents what is sent.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from engine.notation import canonical_ref  # noqa: F401  (re-exported for the views)
from engine.rules import TIMINGS, VARIANTS, Rules, variant_rules
from engine.tiles import load_tileset
from tournaments.api.text import text_fault
from tournaments.formats import iso
from tournaments.limits import (
    CATEGORY_MAX,
    CLUB_MAX,
    LATE_REASON_MAX,
    LEXICON_NAME_MAX,
    LICENCE_MAX,
    PLAYER_NAME_MAX,
    RACK_MAX,
    REASON_MAX,
    REF_MAX,
    SCORE_MAX,
    SENT_MS_MAX,
    SERIES_MAX,
    SLIP_KEY_MAX,
    TABLE_MAX,
    TOURNAMENT_NAME_MAX,
    TYPED_RACK_MAX,
    WORD_MAX,
)
from tournaments.wording import TILESETS

_WORD = re.compile(r"[A-Za-z]+")
_RACK = re.compile(r"[A-Z?]+")
# A tile set with tiles beyond A-Z (Spanish CH, LL, RR, Ñ; Catalan L·L, Ç) is written with its labels, a
# bracketed label or alias for one tile ([CH], [ch] a blank) and one-key aliases (Spanish 1, 2, 3): the
# field lets these through and the tournament's tile set reads them (services.draw.read_typed_rack, the
# judging's spellings), refusing with a code what it cannot read.
_LABEL_MARKS = "".join(sorted(
    {ch for name in TILESETS for letter in load_tileset(name).labels("".join(set(load_tileset(name).full_bag())))
     for ch in letter if not "A" <= ch <= "Z" and ch != "?"}
    # and what the sets' aliases write beyond A-Z and digits (Catalan L.L and ĿL: L·L without the middle dot)
    | {ch for name in TILESETS for letter in load_tileset(name).letters for alias in letter.aliases
       for ch in alias.upper() if not ("A" <= ch <= "Z" or "0" <= ch <= "9")}))
_MARKS_ANY_CASE = _LABEL_MARKS + _LABEL_MARKS.lower().replace("·", "")
_SET_WORD = re.compile(rf"(?=.*[{_MARKS_ANY_CASE}\[])[A-Za-z{_MARKS_ANY_CASE}\[\]]+")
# Any letters (accented ones folded or refused by the tile set), with the sets' marks and brackets.
_SET_WORD_ANY = re.compile(rf"(?:[^\W\d_]|[{_MARKS_ANY_CASE}\[\]])+")
_SET_RACK = re.compile(rf"(?=.*[0-9{_LABEL_MARKS}\[])[A-Z?0-9{_LABEL_MARKS}\[\]]+")
_SET_RACK_ANY = re.compile(rf"(?:[^\W\d_a-z]|[?0-9{_LABEL_MARKS}\[\]])+")

# Patterns the schema shows for the game's notation (the fields' checks and the engine's notation module
# read the input; a pattern says what they accept). A slip's word: letters only, a lowercase letter a
# blank; a rack: uppercase letters, '?' a blank; a grid reference: a row and a column of the 15x15 board,
# the label of the row first for a horizontal word (H4, 4H; h 4 and H04 are read too). A field that may
# be blank shows the pattern of its non-blank values (the schema adds the empty string).
WORD_PATTERN = (rf"^(?:[A-Za-z]{{1,{WORD_MAX}}}|(?=.*[{_MARKS_ANY_CASE}\[])"
                rf"[A-Za-z{_MARKS_ANY_CASE}\[\]]{{1,{WORD_MAX * 4}}})$")
RACK_PATTERN = (rf"^(?:[A-Z?]{{1,{RACK_MAX}}}|(?=.*[0-9{_LABEL_MARKS}\[])"
                rf"[A-Z?0-9{_LABEL_MARKS}\[\]]{{1,{TYPED_RACK_MAX}}})$")
REF_PATTERN = r"^(?:[A-Oa-o] ?(?:1[0-5]|0?[1-9])|(?:1[0-5]|0?[1-9]) ?[A-Oa-o])$"


def _escaped(codes) -> str:
    """A character class's content, every character of the Basic Multilingual Plane written \\uXXXX, in
    ranges (the form both ECMA 262 and Python read)."""
    codes, ranges = sorted(codes), []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


# Text in general: no NUL character (no database stores it; DRF refuses it), and where the field is trimmed,
# at least one character that is not a space as Python strips it (str.isspace: wider than ECMA's \s).
_SPACES = _escaped(code for code in range(0x3001) if chr(code).isspace())
TEXT_PATTERN = rf"^[^\u0000]*[^\u0000{_SPACES}][^\u0000]*$"
ANY_TEXT_PATTERN = r"^[^\u0000]+$"


# ---- strict input fields ----------------------------------------------------------------------------------
# JSON has types: an integer is a JSON number without a fraction (70, never "70", 70.0 or true), text is a
# JSON string (never 0), a flag is true or false (never "yes" or 1). Every request serializer uses these.


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "A whole number is required, written as a JSON integer (e.g. 70)."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """Text as a JSON string. ``pattern``: the form the schema shows (the checks stay the field's and the
    services'); ``visible``: a name, stored without its invisible characters, so one visible character is
    needed."""

    default_error_messages = {"invalid": "Text is required, written as a JSON string."}

    def __init__(self, *, pattern: str | None = None, visible: bool = False, **kwargs):
        self.pattern = pattern
        self.visible = visible
        super().__init__(**kwargs)
        # DRF's own NUL and surrogate validators give way to text_fault, the check the slips' fast path makes.
        self.validators = [v for v in self.validators
                           if not isinstance(v, (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator))]

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        fault = text_fault(data)
        if fault is not None:
            raise serializers.ValidationError(fault, code="unstorable_text")
        if self.max_length is not None and len(data) > self.max_length:  # the schema's maxLength: as sent
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)

    def schema_pattern(self) -> str:
        if self.pattern:
            return self.pattern
        if self.visible:
            return visible_name_pattern()
        return ANY_TEXT_PATTERN if self.allow_blank or not self.trim_whitespace else TEXT_PATTERN


class StrictChoiceField(serializers.ChoiceField):
    default_error_messages = {"invalid_choice": "\"{input}\" is not one of the choices (a JSON string)."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "true or false is required (a JSON boolean)."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class HandedInField(serializers.DateTimeField):
    """An ISO 8601 time with its zone, as a JSON string: when a paper slip was handed in (a time without its
    zone is refused: it would be read on the server's clock)."""

    default_error_messages = {
        "invalid": "An ISO 8601 time with its zone is required, e.g. 2026-11-25T20:15:30+01:00.",
    }

    def to_internal_value(self, value):
        from django.utils import timezone
        from django.utils.dateparse import parse_datetime

        if not isinstance(value, str):
            self.fail("invalid")
        try:
            parsed = parse_datetime(value.strip())
        except ValueError:
            parsed = None
        if parsed is None or timezone.is_naive(parsed):
            self.fail("invalid")
        return parsed


class LexiconField(StrictCharField):
    """A lexicon's name: built in, or imported on this server (the schema lists the built-in ones). Taken as
    sent: a name with spaces around it is not one of the schema's names (400 unknown_lexicon)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


_visible_pattern: list[str] = []


def visible_name_pattern() -> str:
    """At least one visible character: one that tournaments.names.clean_name keeps and that is not a space
    or a combining mark (control and format characters, the invisible fillers and the joiners are removed,
    and a mark counts only on a letter). Worked out from the
    running Python's Unicode tables when the schema is first written. A pattern names characters of the
    Basic Multilingual Plane only: a name made of nothing but the few format characters beyond it (tags,
    U+E0001...) matches it and is still refused (400 name_required)."""
    if not _visible_pattern:
        import unicodedata

        from tournaments.names import INVISIBLE_LETTERS, JOINERS, REMOVED_CATEGORIES

        def hidden(ch: str) -> bool:  # a combining mark is visible only on a letter, which the name then has
            return (ch.isspace() or ch in JOINERS or ch in INVISIBLE_LETTERS
                    or unicodedata.category(ch) in REMOVED_CATEGORIES or unicodedata.category(ch).startswith("M"))

        hidden_class = _escaped(code for code in range(0x10000)
                                if not 0xD800 <= code <= 0xDFFF and hidden(chr(code)))
        _visible_pattern.append(rf"^[^\u0000]*[^{hidden_class}][^\u0000]*$")
    return _visible_pattern[0]


class StrictCharFieldExtension(OpenApiSerializerFieldExtension):
    """The schema of a StrictCharField: a string with its pattern (and the known lexicons for a lexicon)."""

    target_class = StrictCharField
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        field = self.target
        if isinstance(field, LexiconField):
            from tournaments.lexicons import BUILTIN_LEXICONS

            schema = {"type": "string", "enum": list(BUILTIN_LEXICONS),
                      "description": "A built-in lexicon, or the name of one imported on this server."}
        else:
            schema = {"type": "string", "pattern": field.schema_pattern()}
        if not field.allow_blank:
            schema["minLength"] = 1
        return schema


# The rules a tournament may override (engine.rules.Rules): each with its type and bounds.
RULE_BOUNDS = {"rack_size": (1, 15), "early_min_vowels": (0, 15), "early_min_consonants": (0, 15),
               "late_min_vowels": (0, 15), "late_min_consonants": (0, 15), "solo_min_players": (0, 100_000),
               "max_placed": (1, 15), "bingo_tiles": (1, 15), "topping_penalty": (0, 3600),
               "topping_wrong_try_seconds": (0, 3600)}
# The fields that make a variant (joker, explosive, topping) are chosen by naming the variant, not overridden.
VARIANT_SWITCHES = ("joker", "explosive", "topping")
RULE_FIELDS = {f.name: f.type for f in dataclasses.fields(Rules)
               if f.name not in ("preset", "round_seconds", *VARIANT_SWITCHES)}


def _rule_schema(name: str, kind) -> dict:
    if kind in ("bool", bool):
        return {"type": "boolean"}
    low, high = RULE_BOUNDS.get(name, (0, 1000))
    return {"type": "integer", "minimum": low, "maximum": high}


RULES_SCHEMA = {
    "type": "object",
    "properties": {name: _rule_schema(name, kind) for name, kind in RULE_FIELDS.items()},
    "additionalProperties": False,
    "description": "Fields of the rules preset to override, e.g. {\"solo_min_players\": 2} "
                   "(round_seconds is the tournament's own field).",
}


@extend_schema_field(RULES_SCHEMA)
class RulesField(serializers.Field):
    """The rules overridden: known fields only, each a JSON boolean or integer within its bounds."""

    default_error_messages = {"invalid": "An object of rules fields is required."}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("invalid")
        errors = []
        for name, value in data.items():
            if name not in RULE_FIELDS:
                clash = name in ("round_seconds", "preset")
                errors.append(f"set {name} outside 'rules'" if clash else f"{name}: no such rules field")
                continue
            schema = RULES_SCHEMA["properties"][name]
            if schema["type"] == "boolean":
                if not isinstance(value, bool):
                    errors.append(f"{name}: true or false")
            elif isinstance(value, bool) or not isinstance(value, int) or not (
                    schema["minimum"] <= value <= schema["maximum"]):
                errors.append(f"{name}: a whole number from {schema['minimum']} to {schema['maximum']}")
        if errors:
            raise serializers.ValidationError(errors)
        return dict(data)

    def to_representation(self, value):
        return value


# ---- errors ---------------------------------------------------------------------------------------------


ERROR_FIELDS_SCHEMA = {
    "type": "object",
    "description": "Per field, what is wrong with it (a list of messages). Some codes carry values: "
                   "too_soon: seconds (the wait, an integer); round_closed: late_by (seconds, a number) and, "
                   "when the phone said when it sent the slip (sent_ms) and that was before the end call, "
                   "sent_before (seconds, a number); stale_slip: slip (the slip the server holds).",
    "properties": {
        "seconds": {"type": "integer"},
        "late_by": {"type": "number"},
        "sent_before": {"type": "number"},
        "slip": {"$ref": "#/components/schemas/Slip"},
    },
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}


class IsoDateTimeField(serializers.DateTimeField):
    """A time as the API writes it everywhere: ISO 8601 with ``+00:00`` (tournaments.formats.iso); a time
    the selectors already wrote as text is given as it is."""

    def to_representation(self, value):
        return value if isinstance(value, str) else iso(value)


class BodySerializer(serializers.Serializer):
    """An answer serializer over a selector's dict: each declared field typed as the schema says, the
    optional ones (``required=False``) only when the selector gave them."""

    def to_representation(self, instance):
        body = super().to_representation(instance)
        if isinstance(instance, dict):
            body = {name: value for name, value in body.items()
                    if self.fields[name].required or self.fields[name].source_attrs[0] in instance}
        return body


@extend_schema_field(ERROR_FIELDS_SCHEMA)
class ErrorFieldsField(serializers.DictField):
    pass


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = ErrorFieldsField()


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


def _accented(text: str) -> bool:
    """Whether the text holds a letter beyond A-Z (É, Ñ, Ŀ...): the tournament's tile set reads it (folding the
    diacritics its tiles do not have, docs/rules.md "Typing words and racks") or refuses it with a code."""
    return any(ch.isalpha() and not ("A" <= ch <= "Z" or "a" <= ch <= "z") for ch in text)


def check_word(value: str) -> str:
    word = unicodedata.normalize("NFC", value.strip())  # a decomposed Ñ (N + U+0303) is the letter Ñ
    if len(word) <= WORD_MAX * 4 and (_SET_WORD.fullmatch(word) and not _WORD.fullmatch(word)
                                      or _accented(word) and _SET_WORD_ANY.fullmatch(word)):
        return word  # labels of a set's tiles of several letters, or letters beyond A-Z: the set reads them
    if len(word) > WORD_MAX:
        raise serializers.ValidationError(f"A word has at most {WORD_MAX} letters.")
    if not _WORD.fullmatch(word):
        raise serializers.ValidationError("A word is written with letters only (lowercase for a blank).")
    return word


# ---- requests -------------------------------------------------------------------------------------------


class TokenRequestSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False, style={"input_type": "password"})


class TournamentCreateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=TOURNAMENT_NAME_MAX, visible=True)
    lexicon = LexiconField(max_length=LEXICON_NAME_MAX, default="TWL06")
    tileset = StrictChoiceField(choices=list(TILESETS), default="english")
    ruleset = StrictChoiceField(choices=["fisf", "classic"], default="fisf")
    round_seconds = StrictIntegerField(min_value=10, max_value=3600, default=180)
    coordinates = StrictChoiceField(choices=["rows-letters", "rows-numbers"], default="rows-letters")
    language = StrictChoiceField(
        choices=["en", "fr"], default="en",
        error_messages={"invalid_choice": "\"{input}\" is not a language of the sheets: \"en\" or \"fr\"."},
        help_text="The language of the tournament's sheets and projector, and its phones' first language "
                  "(each phone can switch): \"en\" (English, the default) or \"fr\" (French).",
    )
    rules = RulesField(required=False)
    variant = StrictChoiceField(
        choices=list(VARIANTS), default="duplicate",
        help_text="The game played (docs/rules.md section 7): \"duplicate\" (the classic, the default), "
                  "\"joker\" (a blank in every rack), \"explosive\" (that blank replaced by the letter of the "
                  "best top), \"seven_of_eight\" (racks of 8, at most 7 placed), \"seven_and_eight\" (racks "
                  "of 8, 7 placed earn 50 and 8 earn 75) or \"topping\". Its settings (max_placed, bingo_tiles, "
                  "big_bingo_bonus, joker_replace, explosive_random_when_unused, topping_penalty, "
                  "topping_wrong_try_seconds) go in 'rules'.",
    )
    timing = StrictChoiceField(
        choices=list(TIMINGS), default="normal",
        help_text="\"normal\" (180 s a round), \"semi_rapid\" (120 s) or \"blitz\" (60 s; the 6th warning is "
                  "the first to cost). round_seconds, when sent, is the round's time instead.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Left out: the timing's round time (180 s in the normal timing, as before the timings).
        self.fields["round_seconds"] = StrictIntegerField(
            min_value=10, max_value=3600, required=False,
            help_text="The round's time in seconds; left out, the timing's (180, 120 or 60).")

    def validate_tileset(self, value: str) -> str:
        load_tileset(value)
        return value

    def validate(self, attrs):
        overrides = attrs.get("rules") or {}
        # round_seconds is a rules field too, but the tournament's own field is the one that counts.
        clashing = sorted(set(overrides) & (set(self.fields) | {"created_by"}))
        if clashing:
            raise serializers.ValidationError({"rules": [f"set {', '.join(clashing)} outside 'rules'"]})
        try:
            variant_rules(attrs["variant"], ruleset=attrs["ruleset"], timing=attrs["timing"], **overrides)
        except (TypeError, ValueError) as exc:
            raise serializers.ValidationError({"rules": [str(exc)]}) from exc
        return attrs


class GameCreateSerializer(serializers.Serializer):
    seed = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=2**63 - 1)


class PlayerRegisterSerializer(serializers.Serializer):
    name = StrictCharField(max_length=PLAYER_NAME_MAX, visible=True)
    table = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=TABLE_MAX)
    series = StrictCharField(required=False, allow_blank=True, max_length=SERIES_MAX, default="",
                             help_text="A series of the federation's list (tournaments/data/federation.toml: "
                                       "1 to 7, or S1 to S7), else 400 bad_series.")
    # The federation's identity, each optional (tournaments/federation.py checks them).
    licence = StrictCharField(required=False, allow_blank=True, max_length=LICENCE_MAX, default="",
                              help_text="The licence number: letters, digits and hyphens; one player's in a "
                                        "tournament (409 licence_taken).")
    club = StrictCharField(required=False, allow_blank=True, max_length=CLUB_MAX, default="")
    category = StrictCharField(required=False, allow_blank=True, max_length=CATEGORY_MAX, default="",
                               help_text="An age category of the federation's list (Poussin to Diamant), else "
                                         "400 bad_category. Left out with a birth_date: derived from it.")
    birth_date = StrictCharField(required=False, allow_blank=True, allow_null=True, max_length=20, default=None,
                                 help_text="The date of birth, 1960-03-14 (or 14/03/1960); 400 bad_birth_date "
                                           "when it is not a date, in the future or before 1900.")


class JoinSerializer(serializers.Serializer):
    join_code = StrictCharField(max_length=12)
    name = StrictCharField(max_length=PLAYER_NAME_MAX, visible=True)
    table = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=TABLE_MAX,
                               help_text="The table the player sits at; left out, the next free table.")
    language = StrictChoiceField(
        choices=["en", "fr"], required=False,
        error_messages={"invalid_choice": "\"{input}\" is not a language of the phones: \"en\" or \"fr\"."},
        help_text="The language the player joins in (the join page's), which their phone keeps on every page "
                  "and feed; left out, the request's language cookie or Accept-Language, else the "
                  "tournament's.",
    )


class RoundDrawSerializer(serializers.Serializer):
    rack = StrictCharField(
        required=False, allow_null=True, allow_blank=True, max_length=TYPED_RACK_MAX, pattern=RACK_PATTERN,
        help_text="The rack typed from a physical bag: uppercase letters, '?' a blank (a tile set with tiles "
                  "of several letters: labels and aliases, [CH] or 1 for CH). Absent: random draw.",
    )

    def validate_rack(self, value):
        if value is None:
            return None
        rack = unicodedata.normalize("NFC", "".join(value.split()))  # a decomposed Ñ is the letter Ñ
        if not rack:
            return None
        if len(rack) <= TYPED_RACK_MAX and (_SET_RACK.fullmatch(rack) and not _RACK.fullmatch(rack)
                                            or _accented(rack) and _SET_RACK_ANY.fullmatch(rack)):
            return rack  # a set's labels and keyboard aliases ([CH], 1, Ñ, L.L, É): the tournament's tile set reads them
        if not _RACK.fullmatch(rack):
            raise serializers.ValidationError(
                "A rack is written with the tile set's letters, as on the tiles (CH, Ñ, L·L or L.L), or its "
                "keyboard aliases, and '?' for a blank.")
        if len(rack) > RACK_MAX:
            raise serializers.ValidationError(f"Ensure this field has no more than {RACK_MAX} characters.")
        return rack


class RackRejectSerializer(RoundDrawSerializer):
    """A rack drawn from the physical bag that fails the vowel/consonant rule, to be recorded as rejected."""

    rack = StrictCharField(max_length=TYPED_RACK_MAX, pattern=RACK_PATTERN,
                           help_text="The rejected rack as drawn: uppercase letters, '?' a blank.")


class RackRejectedSerializer(BodySerializer):
    """Its instance: ``{"rejected": [...], "bag_count": n}``."""

    rejected = serializers.ListField(child=serializers.CharField(), help_text="Rejections so far, e.g. -AEIOUU+")
    bag_count = serializers.IntegerField()


class EmptySerializer(serializers.Serializer):
    pass


class SlipFieldsMixin(serializers.Serializer):
    word = StrictCharField(max_length=WORD_MAX * 4, trim_whitespace=True, pattern=WORD_PATTERN)
    ref = StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=REF_MAX, default="",
                          pattern=REF_PATTERN)
    score = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=SCORE_MAX, default=None)

    def validate_word(self, value: str) -> str:
        return check_word(value)


class SlipSubmitSerializer(SlipFieldsMixin):
    key = StrictCharField(max_length=SLIP_KEY_MAX, required=False, help_text="Idempotency key of this slip.")
    seq = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=2**53 - 1, default=None,
        help_text="The order in which the device made its slips (e.g. its time in milliseconds); compared only "
        "between slips of the same player and round. A new key with a lower seq than the held slip's is "
        "refused with 409 stale_slip (error.fields.slip: the slip held). Absent: no order, as before.",
    )
    sent_ms = StrictIntegerField(
        required=False, allow_null=True, min_value=0, max_value=SENT_MS_MAX, default=None,
        help_text="When the phone sent the slip, in ms since the epoch on its server-corrected clock (a retry "
        "keeps it). It decides only for a slip on its way at the deadline: sent before it and arriving at most "
        "TRANSIT_SECONDS after it, the slip is in time; else the arrival decides. A slip refused as late (409 "
        "round_closed) keeps it "
        "for the arbitrator (sent_at, and error.fields.sent_before) when plausible: not before the round "
        "started, not after the arrival by more than SENT_AHEAD_MAX_SECONDS; else it is kept as absent.",
    )
    player = StrictIntegerField(
        required=False, min_value=1, help_text="Arbitrator entering a paper slip: the player's id."
    )
    table = StrictIntegerField(
        required=False, min_value=1, max_value=TABLE_MAX, help_text="Arbitrator entering a paper slip: the player's table."
    )
    late = StrictBooleanField(
        required=False, default=False,
        help_text="Arbitrator, closed round: a paper slip handed in after the end call, kept on record and paid "
        "0 (reason late).",
    )
    received_at = HandedInField(
        required=False, allow_null=True, default=None,
        help_text="Arbitrator, with late: true: when the paper slip was handed in (ISO 8601 with its zone); late_by "
        "is counted from it. Left out: now. In the future or before the round started: 400 bad_received_at. "
        "Only with late: true.",
    )
    choice = serializers.ChoiceField(
        choices=["replace", "second"], required=False,
        help_text="Arbitrator, paper slip: the player already holds a different slip (409 second_slip). "
        "'replace': a typing correction, it replaces the held slip; 'second': a second slip, paid 0 (several_slips).",
    )


class SlipRequestSerializer(SlipSubmitSerializer):
    """The slip request as the schema shows it: a phone always sends its key."""

    key = StrictCharField(
        max_length=SLIP_KEY_MAX,
        help_text="Idempotency key of this slip: the same key again answers the slip held (nothing duplicated). "
        "Required from a phone; an arbitrator's paper slip may leave it out (a key is made).",
    )


class LateAdmitSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=LATE_REASON_MAX, help_text="Why the late slip is admitted (the venue's fault).")


class MasterSerializer(serializers.Serializer):
    word = StrictCharField(max_length=WORD_MAX * 4, pattern=WORD_PATTERN)
    ref = StrictCharField(max_length=REF_MAX, pattern=REF_PATTERN)

    def validate_word(self, value: str) -> str:
        return check_word(value)


class CorrectionSerializer(serializers.Serializer):
    word = StrictCharField(required=False, max_length=WORD_MAX * 4, pattern=WORD_PATTERN)
    ref = StrictCharField(required=False, allow_blank=True, max_length=REF_MAX, pattern=REF_PATTERN)
    score = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=SCORE_MAX)
    reason = StrictCharField(max_length=REASON_MAX)

    def validate_word(self, value: str) -> str:
        return check_word(value)


# ---- answers --------------------------------------------------------------------------------------------


class TokenSerializer(BodySerializer):
    token = serializers.CharField()
    expires = IsoDateTimeField(help_text="When the token stops working (ARBITER_API_TOKEN_HOURS after issue).")


class TournamentSerializer(serializers.Serializer):
    tiles = serializers.SerializerMethodField(
        help_text="The tile set's label table: each tile's storage character (tile, as racks, boards and words "
                  "hold it), its label (what players read and type), count and value; '?' the blanks.")

    def get_tiles(self, tournament) -> list[dict]:
        tiles = tournament.tiles
        table = [{"tile": letter.letter, "label": letter.shown, "count": letter.count, "value": letter.value}
                 for letter in tiles.letters]
        return [*table, {"tile": "?", "label": "?", "count": tiles.blanks, "value": tiles.blank_value}]

    id = serializers.IntegerField()
    name = serializers.CharField()
    lexicon = serializers.CharField()
    tileset = serializers.CharField()
    ruleset = serializers.CharField()
    round_seconds = serializers.IntegerField()
    coordinates = serializers.CharField()
    language = serializers.CharField(help_text="\"en\" or \"fr\": the language of its sheets, projector and phones.")
    rules = serializers.DictField(source="rule_overrides")
    created_at = serializers.DateTimeField()
    variant = serializers.CharField(help_text="The variant played: duplicate, joker, explosive, seven_of_eight, "
                                    "seven_and_eight or topping.")
    timing = serializers.CharField(help_text="normal, semi_rapid or blitz.")


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tournament = serializers.IntegerField(source="tournament_id")
    number = serializers.IntegerField()
    join_code = serializers.CharField()
    status = serializers.CharField()
    seed = serializers.IntegerField()


class RegisteredPlayerSerializer(serializers.Serializer):
    """A player registered or joined, with the bearer token issued now (given once: only its digest is kept).
    Its instance is the Player; the token comes in the context."""

    id = serializers.IntegerField(source="pk")
    game = serializers.IntegerField(source="first_game_id")
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    series = serializers.CharField()
    licence = serializers.CharField()
    club = serializers.CharField()
    category = serializers.CharField()
    birth_date = serializers.DateField(allow_null=True)
    language = serializers.CharField(help_text="The language the player joined in, kept by their phone: \"en\", "
                                               "\"fr\", or \"\" (the tournament's).")
    token = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(help_text="The player's bearer token (Authorization: Bearer ...)."))
    def get_token(self, player) -> str:
        return self.context["token"]


class RoundDrawnSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    rack = serializers.CharField()
    rack_labels = serializers.SerializerMethodField(help_text="The rack's tiles by their labels (L·L, CH, ? a "
                                                    "blank): rack holds one storage character a tile.")
    kept = serializers.CharField()
    drawn = serializers.CharField()
    rejected = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    typed = serializers.BooleanField()
    replaced = serializers.CharField(
        help_text="Explosive: the letter that took the new blank's place (a typed rack: take it out of the bag "
                  "and put the blank back); empty when the blank stayed, and in any other game.")

    def get_rack_labels(self, round) -> list[str]:
        return round.game.tournament.tiles.labels(round.rack)


class RoundStartedSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    deadline = IsoDateTimeField()


class RoundCompleteSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    slips_complete = serializers.BooleanField()
    provisional = serializers.BooleanField()


class RoundClosedSerializer(serializers.Serializer):
    """Its instance: ``{"round": Round, "closed": bool}``."""

    number = serializers.IntegerField(source="round.number")
    status = serializers.CharField(source="round.status")
    closed = serializers.BooleanField(help_text="True when this request closed the round.")


class SlipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round.number")
    player = serializers.IntegerField(source="player_id")
    word = serializers.CharField()
    ref = serializers.CharField(allow_blank=True)
    score = serializers.IntegerField(source="claimed", allow_null=True)
    key = serializers.CharField()
    seq = serializers.IntegerField(allow_null=True, help_text="The device's order of the slip, as sent.")
    received_at = IsoDateTimeField()
    entered_by = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(allow_null=True, help_text="The arbitrator who typed a paper slip."))
    def get_entered_by(self, slip) -> str | None:
        return slip.entered_by.get_username() if slip.entered_by_id else None


class SealSerializer(serializers.Serializer):
    alg = StrictCharField(allow_blank=True, help_text="ed25519")
    key = StrictCharField(allow_blank=True, help_text="The signing server's public key (base64url, 32 bytes).")
    sig = StrictCharField(allow_blank=True, help_text="The signature over the receipt's other fields as canonical JSON.")


class ReceiptSerializer(serializers.Serializer):
    """A slip's receipt, sealed by the server (tournaments/receipts.py). As a request, any receipt of this shape
    is checked (blank texts included): whether it proves anything is the check's answer."""

    v = StrictIntegerField()
    game = StrictIntegerField()
    round = StrictIntegerField()
    player = StrictIntegerField()
    slip = StrictIntegerField()
    word = StrictCharField(allow_blank=True)
    ref = StrictCharField(allow_blank=True)
    score = StrictIntegerField(allow_null=True)
    key = StrictCharField(allow_blank=True)
    seq = StrictIntegerField(allow_null=True)
    received_at = StrictCharField(allow_blank=True, help_text="When the slip's last byte arrived (ISO 8601).")
    log_seq = StrictIntegerField(required=False, help_text="The game's log chain head at the slip's arrival: its "
                                 "place (0: the log was empty). Absent from a version 1 receipt.")
    log_hash = StrictCharField(required=False, allow_blank=True,
                               help_text="The hash of that entry (the genesis value when the log was empty).")
    seal = SealSerializer()


class ReceiptCheckSerializer(serializers.Serializer):
    """What a receipt shown in a dispute proves (POST /api/games/{id}/receipts/check)."""

    valid = serializers.BooleanField(help_text="Sealed by this server or one it trusts, unaltered, and a receipt of "
                                     "this game.")
    signer = serializers.ChoiceField(choices=["this_server", "trusted", "unknown_key", "forged"])
    verdict = serializers.ChoiceField(
        choices=["on_record", "another_game", "not_on_record", "unknown_key", "forged"],
        help_text="In one word: on record; a sound receipt of another game (proves nothing here); sound but not "
                  "as on record; sealed by a key this server does not know; forged or altered.")
    on_record = serializers.BooleanField(help_text="The slip it names is held as it says.")
    current = serializers.BooleanField(allow_null=True, help_text="Whether that slip still counts (null: none).")
    differences = serializers.ListField(child=serializers.CharField(), help_text="The fields that differ.")
    receipt = serializers.DictField(allow_null=True)


@dataclasses.dataclass(frozen=True)
class SlipAnswer:
    """A slip handed in: the slip that counts for the player now, whether the key was already known, and the
    replayed key's own slip when it no longer counts."""

    slip: object
    replayed: bool
    replaced: object = None


class ToppingTrySerializer(serializers.Serializer):
    """Topping only (docs/rules.md 7.5): whether the player's try found the round's top, never the top."""

    found = serializers.BooleanField(help_text="The try scored the round's top (any tied top).")
    found_after = serializers.IntegerField(
        allow_null=True, help_text="Whole seconds from the round's start to the try's arrival on the server's "
        "clock (rounded down) when found; null otherwise.")


class SlipAnswerSerializer(SlipSerializer):
    """A slip handed in (201) or its key again (200). The fields are the slip the server holds for the
    player now; when a replayed key's slip was replaced since, that slip is under ``replaced``.
    Its instance is a SlipAnswer."""

    replayed = serializers.BooleanField(help_text="True when the key was already known (200): nothing was written.")
    replaced = SlipSerializer(
        allow_null=True,
        help_text="The slip of the replayed key when it no longer counts (a newer slip or a correction replaced "
        "it); the fields above are then the slip that counts. Null otherwise.",
    )

    receipt = ReceiptSerializer(help_text="The slip that counts, its arrival and round, sealed by the server: "
                                "the player keeps it, and the console checks it in a dispute.")
    topping = ToppingTrySerializer(
        required=False, help_text="Topping only: whether this try found the top, and after how many seconds. "
        "Absent in any other game.")

    def to_representation(self, answer: SlipAnswer) -> dict:
        from tournaments.receipts import receipt_for

        return {
            **SlipSerializer(answer.slip).data,
            "replayed": answer.replayed,
            "replaced": None if answer.replaced is None else SlipSerializer(answer.replaced).data,
            "receipt": receipt_for(answer.slip),
        }


class LateSlipSerializer(serializers.Serializer):
    """A paper slip handed in after the end call (arbitrator, ``late``: true): on record, paid 0."""

    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round.number")
    player = serializers.IntegerField(source="player_id")
    word = serializers.CharField()
    ref = serializers.CharField(allow_blank=True)
    score = serializers.IntegerField(source="claimed", allow_null=True)
    received_at = IsoDateTimeField()
    late_by = serializers.FloatField(help_text="Seconds after the end call.")
    sent_at = IsoDateTimeField(allow_null=True, help_text="When the phone says it sent it (sent_ms), or null.")
    admitted = serializers.IntegerField(source="admitted_id", allow_null=True,
                                        help_text="The slip it became once admitted.")


class PlayPlainSerializer(serializers.Serializer):
    word = serializers.CharField()
    ref = serializers.CharField()
    score = serializers.IntegerField()
    word_labels = serializers.CharField(required=False, help_text="The word in the tiles' labels (COL·LEGI, "
                                        "COCHE; a blank's label in lowercase), where word holds storage characters.")


class ResultRowSerializer(BodySerializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    word = serializers.CharField(allow_null=True)
    ref = serializers.CharField(allow_null=True, allow_blank=True)
    claimed = serializers.IntegerField(allow_null=True)
    paid = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=["ok", "warning", "penalty", "zero"])
    reason = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    placement = serializers.CharField(
        allow_blank=True, required=False,
        help_text="The reference of the placement paid (round 1: the word's best placement, whatever the slip "
                  "named); \"\" when nothing was placed.")
    top = serializers.BooleanField(help_text="The player scored the top.")
    corrected = serializers.BooleanField(help_text="The arbitrator corrected the result.")


class RoundSlipSerializer(BodySerializer):
    id = serializers.IntegerField()
    word = serializers.CharField()
    ref = serializers.CharField(allow_blank=True)
    claimed = serializers.IntegerField(allow_null=True)
    received_at = IsoDateTimeField()


class LateRowSerializer(BodySerializer):
    id = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    word = serializers.CharField()
    ref = serializers.CharField(allow_blank=True)
    claimed = serializers.IntegerField(allow_null=True)
    received_at = IsoDateTimeField()
    late_by = serializers.FloatField()
    sent_at = IsoDateTimeField(allow_null=True, help_text="When the phone says it sent the slip, or null: "
                               "information only, never what decides.")
    sent_before = serializers.FloatField(allow_null=True, help_text="Seconds before the end call it was sent, "
                                         "by the phone's word (sent_at), or null.")
    admitted = serializers.BooleanField()


class RoundDetailSerializer(BodySerializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    rack = serializers.CharField()
    rack_labels = serializers.ListField(child=serializers.CharField(), required=False,
                                        help_text="The rack's tiles by their labels (L·L, CH, ? a blank).")
    board_labels = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                         help_text="The board's rows, each square's label ('.' empty, lowercase "
                                                   "a blank).")
    kept = serializers.CharField(allow_blank=True)
    drawn = serializers.CharField(allow_blank=True)
    rejected = serializers.ListField(child=serializers.CharField())
    board = serializers.ListField(child=serializers.CharField(), min_length=15, max_length=15,
                                  help_text="The board the rack is played on.")
    deadline = IsoDateTimeField(allow_null=True)
    started_at = IsoDateTimeField(allow_null=True)
    closed_at = IsoDateTimeField(allow_null=True)
    top_score = serializers.IntegerField(allow_null=True)
    tops = PlayPlainSerializer(many=True, allow_null=True, help_text="Null until the round is closed.")
    master = PlayPlainSerializer(allow_null=True)
    results = ResultRowSerializer(many=True, allow_null=True, help_text="Null until the round is closed.")
    slip = RoundSlipSerializer(required=False, allow_null=True, help_text="A player's own slip (players only).")
    late = LateRowSerializer(many=True, required=False, help_text="Slips that came late (arbitrators only).")
    tops_ready = serializers.BooleanField(required=False, help_text="Arbitrators only.")
    no_play = serializers.BooleanField(required=False, help_text="No play is possible (arbitrators only).")
    progress = serializers.DictField(required=False, help_text="Slips received and who is missing (arbitrators only).")


class LabelsSerializer(serializers.Serializer):
    rows = serializers.ListField(child=serializers.CharField())
    cols = serializers.ListField(child=serializers.CharField())


class RestoredSerializer(BodySerializer):
    at = IsoDateTimeField()
    seal = serializers.ChoiceField(choices=["this_server", "trusted", "unknown_key", "unsigned"],
                                   help_text="this_server or trusted: the record's seal matched a key this server "
                                   "knows; unknown_key: a sound seal by a key it does not know; unsigned: no seal.")
    signer = serializers.CharField(allow_blank=True, help_text="The signer's Ed25519 public key (base64).")


class GameStateSerializer(BodySerializer):
    id = serializers.IntegerField()
    tournament = serializers.IntegerField()
    tournament_name = serializers.CharField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    end_reason = serializers.CharField(allow_blank=True)
    join_code = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    round_status = serializers.CharField(allow_null=True)
    rack = serializers.CharField(allow_null=True)
    kept = serializers.CharField(allow_null=True, allow_blank=True)
    drawn = serializers.CharField(allow_null=True, allow_blank=True)
    rejected = serializers.ListField(child=serializers.CharField())
    deadline = IsoDateTimeField(allow_null=True)
    board = serializers.ListField(child=serializers.CharField(), min_length=15, max_length=15)
    bag_count = serializers.IntegerField()
    pending_rejected = serializers.ListField(child=serializers.CharField(),
                                             help_text="Physical draws rejected before the next rack.")
    coordinates = serializers.CharField()
    labels = LabelsSerializer()
    lexicon = serializers.CharField()
    tileset = serializers.CharField()
    ruleset = serializers.CharField()
    round_seconds = serializers.IntegerField()
    variant = serializers.CharField(help_text="The variant played: duplicate, joker, explosive, seven_of_eight, "
                                    "seven_and_eight or topping (the tournament's).")
    timing = serializers.CharField(help_text="normal, semi_rapid or blitz (the tournament's); its round time is "
                                   "round_seconds.")
    players = serializers.IntegerField()
    version = serializers.IntegerField()
    server_time = IsoDateTimeField()
    restored = RestoredSerializer(allow_null=True, help_text="A game played back from a record: when, and whose "
                                  "seal the record bore; null for a game played here.")


class StandingRowSerializer(BodySerializer):
    rank = serializers.IntegerField()
    series_rank = serializers.IntegerField(help_text="The rank among the players of the same series.")
    player = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True, help_text="Null to anyone but the arbitrators and the "
                                     "player themself, as on the public results page.")
    series = serializers.CharField(allow_blank=True)
    licence = serializers.CharField(allow_blank=True, allow_null=True, help_text="The federation's licence number, "
                                    "if given; null to anyone but the arbitrators and the player themself.")
    club = serializers.CharField(allow_blank=True, help_text="The player's club, if given.")
    category = serializers.CharField(allow_blank=True, help_text="The age category, if given or derived.")
    total = serializers.IntegerField()
    diff = serializers.IntegerField()
    percent = serializers.FloatField()
    tops = serializers.IntegerField()
    solos = serializers.IntegerField()
    solo_points = serializers.IntegerField()
    warnings = serializers.IntegerField()
    warning_points = serializers.IntegerField()
    penalties = serializers.IntegerField()
    rounds = serializers.IntegerField()
    provisional = serializers.BooleanField(
        required=False, help_text="The last closed round's paper slips are still being entered.")
    seconds = serializers.IntegerField(
        required=False, help_text="Topping only: the player's total time in seconds over the closed rounds "
        "(each round: the seconds taken to hand in the top, or the round's time plus the penalty); the "
        "rows are ranked by it, the lowest first.")


class GameTotalSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    number = serializers.IntegerField()
    total = serializers.IntegerField()
    seconds = serializers.IntegerField(
        required=False, help_text="Topping only: the player's time in seconds in this game (null: not in it).")


class TournamentStandingRowSerializer(BodySerializer):
    rank = serializers.IntegerField()
    series_rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True, help_text="Null to anyone but the arbitrators and the "
                                     "player themself, as on the public results page.")
    series = serializers.CharField(allow_blank=True)
    licence = serializers.CharField(allow_blank=True, allow_null=True, help_text="The federation's licence number, "
                                    "if given; null to anyone but the arbitrators and the player themself.")
    club = serializers.CharField(allow_blank=True, help_text="The player's club, if given.")
    category = serializers.CharField(allow_blank=True, help_text="The age category, if given or derived.")
    total = serializers.IntegerField()
    games = GameTotalSerializer(many=True)
    sum_tops = serializers.IntegerField()
    diff = serializers.IntegerField()
    percent = serializers.FloatField()
    tops = serializers.IntegerField()
    solos = serializers.IntegerField()
    warnings = serializers.IntegerField()
    penalties = serializers.IntegerField()
    seconds = serializers.IntegerField(
        required=False, help_text="Topping only: the player's total time in seconds over the games' closed "
        "rounds; the rows are ranked by it, the lowest first.")


class MissingPlayerSerializer(BodySerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)


class ProgressSerializer(BodySerializer):
    round = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    deadline = IsoDateTimeField(allow_null=True)
    received = serializers.IntegerField()
    players = serializers.IntegerField()
    missing = MissingPlayerSerializer(many=True)


class LiveSerializer(BodySerializer):
    version = serializers.IntegerField()
    status = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    round_status = serializers.CharField(allow_null=True)
    deadline = IsoDateTimeField(allow_null=True)
    paused = serializers.BooleanField(required=False, help_text="The arbitrator has stopped the clock.")
    time_left = serializers.FloatField(required=False, allow_null=True,
                                       help_text="Seconds left on the stopped clock (null when it runs).")
    server_time = IsoDateTimeField()


class MySlipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    word = serializers.CharField()
    ref = serializers.CharField(allow_blank=True)
    score = serializers.IntegerField(source="claimed", allow_null=True)
    key = serializers.CharField()
    seq = serializers.IntegerField(allow_null=True)
    received_at = IsoDateTimeField()
    receipt = serializers.SerializerMethodField()

    @extend_schema_field(ReceiptSerializer)
    def get_receipt(self, slip) -> dict:
        from tournaments.receipts import receipt_for

        return receipt_for(slip)


class MeSerializer(BodySerializer):
    """Its instance: the player's fields, the current round and the player's slip in it (a Slip, or None)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    game = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True)
    round_status = serializers.CharField(allow_null=True)
    provisional = serializers.BooleanField(required=False)
    slip = MySlipSerializer(allow_null=True)
    topping = ToppingTrySerializer(
        required=False, help_text="Topping only, with a slip held in the current round: whether it found the "
        "top, and after how many seconds (a reloaded phone). Absent otherwise.")
