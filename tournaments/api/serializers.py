"""Shapes of the API's bodies: what a request may contain (checked here) and what an answer holds.

Request serializers only check the form of the input; whether the action fits the game is the services'
business. Answer serializers document the bodies for the OpenAPI schema.
"""

from __future__ import annotations

import re

from rest_framework import serializers

from engine.notation import format_ref, parse_ref
from engine.rules import rules_preset
from engine.tiles import load_tileset

NAME_MAX = 60
KEY_MAX = 64
WORD_MAX = 15
RACK_MAX = 7

_WORD = re.compile(r"[A-Za-z]+")
_RACK = re.compile(r"[A-Z?]+")


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


def check_word(value: str) -> str:
    word = value.strip()
    if len(word) > WORD_MAX:
        raise serializers.ValidationError(f"A word has at most {WORD_MAX} letters.")
    if not _WORD.fullmatch(word):
        raise serializers.ValidationError("A word is written with letters only (lowercase for a blank).")
    return word


def canonical_ref(text: str | None, labelling: str) -> str:
    """The reference in canonical form, '' when none was written; RefError when it names no square."""
    if text is None or not text.strip():
        return ""
    ref = parse_ref(text, labelling)
    return format_ref(ref.row, ref.col, ref.horizontal, labelling)


# ---- requests -------------------------------------------------------------------------------------------


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False, style={"input_type": "password"})


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    lexicon = serializers.CharField(max_length=40, default="TWL06")
    tileset = serializers.ChoiceField(choices=["english", "french"], default="english")
    ruleset = serializers.ChoiceField(choices=["fisf", "classic"], default="fisf")
    round_seconds = serializers.IntegerField(min_value=10, max_value=3600, default=180)
    coordinates = serializers.ChoiceField(choices=["rows-letters", "rows-numbers"], default="rows-letters")
    rules = serializers.DictField(
        required=False,
        help_text="Fields of the rules preset to override, e.g. {\"solo_min_players\": 2}.",
    )

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
            rules_preset(attrs["ruleset"], **overrides)
        except (TypeError, ValueError) as exc:
            raise serializers.ValidationError({"rules": [str(exc)]}) from exc
        return attrs


class GameCreateSerializer(serializers.Serializer):
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**63 - 1)


class PlayerRegisterSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=NAME_MAX)
    table = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=10000)
    series = serializers.CharField(required=False, allow_blank=True, max_length=20, default="")


class JoinSerializer(serializers.Serializer):
    join_code = serializers.CharField(max_length=12)
    name = serializers.CharField(max_length=NAME_MAX)


class RoundDrawSerializer(serializers.Serializer):
    rack = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=RACK_MAX,
        help_text="The rack typed from a physical bag: uppercase letters, '?' a blank. Absent: random draw.",
    )

    def validate_rack(self, value):
        if value is None:
            return None
        rack = "".join(value.split())
        if not rack:
            return None
        if not _RACK.fullmatch(rack):
            raise serializers.ValidationError("A rack is uppercase letters and '?' for a blank.")
        return rack


class RackRejectSerializer(RoundDrawSerializer):
    """A rack drawn from the physical bag that fails the vowel/consonant rule, to be recorded as rejected."""

    rack = serializers.CharField(max_length=RACK_MAX, help_text="The rejected rack as drawn: uppercase letters, '?' a blank.")


class RackRejectedSerializer(serializers.Serializer):
    rejected = serializers.ListField(child=serializers.CharField(), help_text="Rejections so far, e.g. -AEIOUU+")
    bag_count = serializers.IntegerField()


class EmptySerializer(serializers.Serializer):
    pass


class SlipFieldsMixin(serializers.Serializer):
    word = serializers.CharField(max_length=WORD_MAX * 4, trim_whitespace=True)
    ref = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=16, default="")
    score = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=100000, default=None)

    def validate_word(self, value: str) -> str:
        return check_word(value)


class SlipSubmitSerializer(SlipFieldsMixin):
    key = serializers.CharField(max_length=KEY_MAX, required=False, help_text="Idempotency key of this slip.")
    seq = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=2**53 - 1, default=None,
        help_text="The order in which the device made its slips (e.g. its time in milliseconds); compared only "
        "between slips of the same player and round. A new key with a lower seq than the held slip's is "
        "refused with 409 stale_slip (error.fields.slip: the slip held). Absent: no order, as before.",
    )
    player = serializers.IntegerField(
        required=False, min_value=1, help_text="Arbitrator entering a paper slip: the player's id."
    )
    table = serializers.IntegerField(
        required=False, min_value=1, help_text="Arbitrator entering a paper slip: the player's table."
    )
    late = serializers.BooleanField(
        required=False, default=False,
        help_text="Arbitrator, closed round: a paper slip handed in after the end call, kept on record and paid "
        "0 (reason late).",
    )


class LateAdmitSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=300, help_text="Why the late slip is admitted (the venue's fault).")


class MasterSerializer(serializers.Serializer):
    word = serializers.CharField(max_length=WORD_MAX * 4)
    ref = serializers.CharField(max_length=16)

    def validate_word(self, value: str) -> str:
        return check_word(value)


class CorrectionSerializer(serializers.Serializer):
    word = serializers.CharField(required=False, max_length=WORD_MAX * 4)
    ref = serializers.CharField(required=False, allow_blank=True, max_length=16)
    score = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=100000)
    reason = serializers.CharField(max_length=500)

    def validate_word(self, value: str) -> str:
        return check_word(value)


# ---- answers --------------------------------------------------------------------------------------------


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class TournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    lexicon = serializers.CharField()
    tileset = serializers.CharField()
    ruleset = serializers.CharField()
    round_seconds = serializers.IntegerField()
    coordinates = serializers.CharField()
    rules = serializers.DictField(source="rule_overrides")
    created_at = serializers.DateTimeField()


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tournament = serializers.IntegerField(source="tournament_id")
    number = serializers.IntegerField()
    join_code = serializers.CharField()
    status = serializers.CharField()
    seed = serializers.IntegerField()


class RegisteredPlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    series = serializers.CharField()
    token = serializers.CharField()


class RoundDrawnSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    rack = serializers.CharField()
    kept = serializers.CharField()
    drawn = serializers.CharField()
    rejected = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    typed = serializers.BooleanField()


class RoundStartedSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    deadline = serializers.DateTimeField()


class RoundClosedSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    closed = serializers.BooleanField(help_text="True when this request closed the round.")


class SlipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round.number")
    player = serializers.IntegerField(source="player_id")
    word = serializers.CharField()
    ref = serializers.CharField()
    score = serializers.IntegerField(source="claimed", allow_null=True)
    key = serializers.CharField()
    seq = serializers.IntegerField(allow_null=True, help_text="The device's order of the slip, as sent.")
    received_at = serializers.DateTimeField()
    entered_by = serializers.CharField(source="entered_by.get_username", allow_null=True, default=None)


class PlayPlainSerializer(serializers.Serializer):
    word = serializers.CharField()
    ref = serializers.CharField()
    score = serializers.IntegerField()


class ResultRowSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    word = serializers.CharField(allow_null=True)
    ref = serializers.CharField(allow_null=True)
    claimed = serializers.IntegerField(allow_null=True)
    paid = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=["ok", "warning", "penalty", "zero"])
    reason = serializers.CharField()


class RoundDetailSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    rack = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    top_score = serializers.IntegerField(allow_null=True)
    tops = PlayPlainSerializer(many=True, required=False)
    master = PlayPlainSerializer(required=False, allow_null=True)
    results = ResultRowSerializer(many=True, required=False)


class GameStateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    board = serializers.ListField(child=serializers.CharField(), min_length=15, max_length=15)
    bag_count = serializers.IntegerField()


class StandingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    total = serializers.IntegerField()
    diff = serializers.IntegerField()
    percent = serializers.FloatField()
    tops = serializers.IntegerField()
    solos = serializers.IntegerField()
    warnings = serializers.IntegerField()
    penalties = serializers.IntegerField()


class MissingPlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)


class ProgressSerializer(serializers.Serializer):
    round = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    received = serializers.IntegerField()
    players = serializers.IntegerField()
    missing = MissingPlayerSerializer(many=True)


class LiveSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    status = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    round_status = serializers.CharField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    server_time = serializers.DateTimeField()


class MySlipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    word = serializers.CharField()
    ref = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)
    key = serializers.CharField()
    seq = serializers.IntegerField(allow_null=True)
    received_at = serializers.DateTimeField()


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    game = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True)
    round_status = serializers.CharField(allow_null=True)
    slip = MySlipSerializer(allow_null=True)

