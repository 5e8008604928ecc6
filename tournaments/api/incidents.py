"""The head arbitrator's incidents in the API: pause and resume the clock, extend a round, cancel it, replace a
mistyped rack; and the arbitrators' roles in a game (head, assistant).

    POST /api/games/{id}/rounds/{n}/pause    {"reason"}
    POST /api/games/{id}/rounds/{n}/resume   {"reason"?}
    POST /api/games/{id}/rounds/{n}/extend   {"extra_seconds", "reason"}
    POST /api/games/{id}/rounds/{n}/cancel   {"reason"}
    POST /api/games/{id}/rounds/{n}/rack     {"rack", "reason"}
    GET  /api/games/{id}/arbitrators         (the game's arbitrators)
    POST /api/games/{id}/arbitrators         {"user", "role"} (the head)
"""

from __future__ import annotations

import re

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from tournaments import services
from tournaments.api.permissions import IsGameArbitrator, IsHeadArbitrator
from tournaments.api.serializers import (
    RACK_PATTERN,
    IsoDateTimeField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
)
from tournaments.api.views import ApiView, answers, get_game, get_round, valid
from tournaments.limits import RACK_MAX, REASON_MAX
from tournaments.models import Round
from tournaments.services import ROLES, arbitrators, role_of

# ---- bodies ---------------------------------------------------------------------------------------------


class ReasonSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=REASON_MAX, help_text="Why (kept in the log and the game record).")


class ResumeSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=REASON_MAX, required=False, allow_blank=True, default="",
                             help_text="Why, if worth saying (kept in the log).")


class ExtendSerializer(ReasonSerializer):
    extra_seconds = StrictIntegerField(
        min_value=1, max_value=settings.ARBITER_MAX_EXTEND_SECONDS,
        help_text="Seconds added to the clock (to the time left while paused).",
    )


class RackFixSerializer(ReasonSerializer):
    rack = StrictCharField(max_length=RACK_MAX, pattern=RACK_PATTERN,
                           help_text="The rack as it should have been typed: uppercase letters, '?' a blank.")

    def validate_rack(self, value):
        if not re.fullmatch(RACK_PATTERN, value):
            raise serializers.ValidationError("A rack is uppercase letters and '?' for a blank.")
        return value


class RoleSerializer(serializers.Serializer):
    user = StrictCharField(max_length=150, help_text="The arbitrator's username (a staff user).")
    role = StrictChoiceField(choices=list(ROLES), help_text="head, assistant, or none to take the role away.")


class IncidentSerializer(serializers.Serializer):
    action = serializers.CharField(help_text="pause, resume, extend, cancel or rack_fix")
    at = serializers.DateTimeField()
    by = serializers.CharField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)


@extend_schema_field(IncidentSerializer(many=True))
class IncidentsField(serializers.ListField):
    """The round's incidents as recorded, each with its action's own details (kept whole)."""

    def to_representation(self, value) -> list:
        return list(value)


class RoundIncidentsSerializer(serializers.Serializer):
    """Its instance: the Round."""

    number = serializers.IntegerField()
    status = serializers.CharField()
    rack = serializers.CharField()
    kept = serializers.CharField(allow_blank=True)
    drawn = serializers.CharField(allow_blank=True)
    deadline = IsoDateTimeField(allow_null=True)
    paused = serializers.SerializerMethodField()
    time_left = serializers.SerializerMethodField()
    extended_seconds = serializers.IntegerField()
    cancel_reason = serializers.CharField(allow_blank=True)
    incidents = IncidentsField(help_text="Every incident of the round, oldest first (with each action's details: "
                               "time_left, seconds, deadline, before/after...).")

    @extend_schema_field(serializers.BooleanField())
    def get_paused(self, round: Round) -> bool:
        return round.paused_at is not None

    @extend_schema_field(serializers.FloatField(allow_null=True, help_text="Seconds left when the clock was paused."))
    def get_time_left(self, round: Round) -> float | None:
        return round.time_left if round.paused_at is not None else None


class RoundCancelledSerializer(RoundIncidentsSerializer):
    next_number = serializers.IntegerField(source="number",
                                           help_text="The number the next rack is drawn under (the same).")
    bag_count = serializers.SerializerMethodField()

    @extend_schema_field(serializers.IntegerField())
    def get_bag_count(self, round: Round) -> int:
        return len(round.game.bag)


class ArbitratorSerializer(serializers.Serializer):
    user = serializers.CharField()
    role = serializers.CharField()


class ArbitratorsSerializer(serializers.Serializer):
    """Its instance: ``{"arbitrators": [...], "you": role}``."""

    arbitrators = ArbitratorSerializer(many=True, help_text="Roles recorded (none: every arbitrator is head).")
    you = serializers.CharField(allow_null=True, help_text="The caller's role in the game (null: none).")


def round_body(round: Round) -> dict:
    return RoundIncidentsSerializer(round).data


# ---- views ----------------------------------------------------------------------------------------------


class RoundIncidentView(ApiView):
    """One incident on one round, by the game's head arbitrator."""

    permission_classes = [IsHeadArbitrator]

    def target(self, game_id: int, number: int) -> Round:
        return get_round(get_game(game_id), number)


class RoundPauseView(RoundIncidentView):
    @extend_schema(request=ReasonSerializer, responses=answers({200: RoundIncidentsSerializer}, 400, 401, 403, 404, 409),
                   description="Stop the clock: the time left is kept, slips are refused (409 paused) and the "
                   "round does not close until resumed. 409 paused, round_not_open, round_closed, deadline_passed.")
    def post(self, request, game_id: int, number: int):
        round = self.target(game_id, number)
        data = valid(ReasonSerializer, request)
        return Response(round_body(services.round_pause(round=round, reason=data["reason"], actor=request.user)))


class RoundResumeView(RoundIncidentView):
    @extend_schema(request=ResumeSerializer, responses=answers({200: RoundIncidentsSerializer}, 400, 401, 403, 404, 409),
                   description="Start the clock again: the new deadline is now plus the time left. 409 not_paused.")
    def post(self, request, game_id: int, number: int):
        round = self.target(game_id, number)
        data = valid(ResumeSerializer, request)
        return Response(round_body(services.round_resume(round=round, reason=data.get("reason", ""),
                                                         actor=request.user)))


class RoundExtendView(RoundIncidentView):
    @extend_schema(request=ExtendSerializer, responses=answers({200: RoundIncidentsSerializer}, 400, 401, 403, 404, 409),
                   description="Add seconds to an open round's clock, before its deadline. 409 deadline_passed, "
                   "round_not_open, round_closed.")
    def post(self, request, game_id: int, number: int):
        round = self.target(game_id, number)
        data = valid(ExtendSerializer, request)
        return Response(round_body(services.round_extend(round=round, seconds=data["extra_seconds"], reason=data["reason"],
                                                         actor=request.user)))


class RoundCancelView(RoundIncidentView):
    @extend_schema(request=ReasonSerializer, responses=answers({200: RoundCancelledSerializer}, 400, 401, 403, 404, 409),
                   description="Cancel a drawn or open round: its slips are kept, void; the letters drawn for it go "
                   "back into the bag (the kept ones stay kept); the next rack is drawn under the same number. "
                   "409 round_closed.")
    def post(self, request, game_id: int, number: int):
        round = self.target(game_id, number)
        data = valid(ReasonSerializer, request)
        round = services.round_cancel(round=round, reason=data["reason"], actor=request.user)
        round.game = get_game(game_id)  # the bag as the cancel left it
        return Response(RoundCancelledSerializer(round).data)


class RoundRackView(RoundIncidentView):
    @extend_schema(request=RackFixSerializer, responses=answers({200: RoundIncidentsSerializer}, 400, 401, 403, 404, 409),
                   description="Replace a mistyped rack before the clock starts, with the same checks against the "
                   "bag as a typed draw; the tops are computed again. 409 round_not_drawn, same_rack, not_in_bag...")
    def post(self, request, game_id: int, number: int):
        round = self.target(game_id, number)
        data = valid(RackFixSerializer, request)
        return Response(round_body(services.round_fix_rack(round=round, rack=data["rack"], reason=data["reason"],
                                                           actor=request.user)))


class GameArbitratorsView(ApiView):
    """The arbitrators' roles in a game: read by its arbitrators (head or assistant), set by the head."""

    def get_permissions(self):
        if self.request is not None and self.request.method == "POST":
            return [IsHeadArbitrator()]
        return [IsGameArbitrator()]

    @extend_schema(responses=answers({200: ArbitratorsSerializer}, 401, 403, 404))
    def get(self, request, game_id: int):
        game = get_game(game_id)
        return Response(ArbitratorsSerializer({"arbitrators": arbitrators(game),
                                               "you": role_of(game.pk, request.user)}).data)

    @extend_schema(request=RoleSerializer, responses=answers({200: ArbitratorsSerializer}, 400, 401, 403, 404, 409),
                   description="Give an arbitrator a role (head: clock, racks, master, end, incidents, roles; "
                   "assistant: enter and correct slips), or take it away (none). The first role recorded makes "
                   "the caller head as well; the last head stays (409 last_head).")
    def post(self, request, game_id: int):
        game = get_game(game_id)
        data = valid(RoleSerializer, request)
        listed = services.arbitrator_set(game=game, username=data["user"], role=data["role"], actor=request.user)
        return Response(ArbitratorsSerializer({"arbitrators": listed, "you": role_of(game.pk, request.user)}).data)
