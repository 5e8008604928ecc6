"""A centre follows the organiser's live game (a multiplex: tournaments/relay.py, docs/multiplex.md):

    POST /api/tournaments/{id}/relay     {"auto_start"?: bool} a new game of the tournament that follows the
                                         organiser's game opened to the event (201)
    GET  /api/games/{id}/relay           the link: up or down since when, the racks compared
    POST /api/games/{id}/relay           {"auto_start": bool} the clock started when the rack arrives, or not
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from tournaments import relay
from tournaments.api.lifecycle import get_tournament
from tournaments.api.permissions import IsGameArbitrator, IsHeadArbitrator, IsTournamentHead
from tournaments.api.views import ApiView, answers, get_game, valid
from tournaments.errors import Conflict


class FollowSerializer(serializers.Serializer):
    auto_start = serializers.BooleanField(required=False, default=False,
                                          help_text="Start the clock as soon as the organiser's rack arrives.")


class RelayRackSerializer(serializers.Serializer):
    round = serializers.IntegerField(source="number")
    organiser = serializers.CharField(source="rack", help_text="The organiser's rack.")
    played = serializers.CharField(help_text="The rack played here (drawn from the relay, or typed by hand).")
    compared = serializers.CharField(help_text="relayed, equal (typed by hand: the same), mismatch (typed by hand: "
                                     "another, shown and logged, never replaced), or empty (waiting to be drawn).")
    received_at = serializers.DateTimeField()


class LinkSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    event = serializers.CharField()
    game_id = serializers.CharField()
    auto_start = serializers.BooleanField()
    up = serializers.BooleanField()
    down_since = serializers.DateTimeField(allow_null=True)
    last_contact_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField(allow_blank=True)
    racks = RelayRackSerializer(many=True)


def link_body(game) -> dict:
    state = relay.console_state(game)
    if state is None:
        raise Conflict("relay_none")
    link = state["link"]
    return LinkSerializer({
        "game": game.pk, "event": link.event, "game_id": link.event_game, "auto_start": link.auto_start,
        "up": state["up"], "down_since": state["down_since"], "last_contact_at": state["last_contact_at"],
        "error": state["error"], "racks": list(link.racks.order_by("seq"))}).data


class TournamentRelayView(ApiView):
    permission_classes = [IsTournamentHead]

    @extend_schema(request=FollowSerializer, responses=answers({201: LinkSerializer}, 400, 401, 403, 404, 409),
                   description="A new game of the tournament that follows the organiser's live game (a multiplex), "
                   "from this centre's ORGANISER_URL, ORGANISER_EVENT and ORGANISER_TOKEN; the tournament takes the "
                   "organiser's word list, tile set, labelling, rules and round time. 409 relay_none (no organiser "
                   "set), relay_unreachable, relay_refused (the organiser's words), pack_settings.")
    def post(self, request, tournament_id: int):
        data = valid(FollowSerializer, request)
        game = relay.follow(tournament=get_tournament(tournament_id), actor=request.user,
                            auto_start=data["auto_start"])
        return Response(link_body(game), status=status.HTTP_201_CREATED)


class GameRelayView(ApiView):
    def get_permissions(self):
        return [IsHeadArbitrator()] if self.request.method == "POST" else [IsGameArbitrator()]

    @extend_schema(responses=answers({200: LinkSerializer}, 401, 403, 404, 409),
                   description="The game's link to the organiser: up, or down since when; each round's rack as the "
                   "organiser sent it and how the rack played here compares. 409 relay_none for a game that "
                   "follows no organiser.")
    def get(self, request, game_id: int):
        return Response(link_body(get_game(game_id)))

    @extend_schema(request=FollowSerializer, responses=answers({200: LinkSerializer}, 400, 401, 403, 404, 409),
                   description="Start the clock when the organiser's rack arrives (auto_start), or leave it to the "
                   "arbitrator; by the head arbitrator, logged.")
    def post(self, request, game_id: int):
        data = valid(FollowSerializer, request)
        game = get_game(game_id)
        relay.set_auto_start(game=game, auto_start=data["auto_start"], actor=request.user)
        return Response(link_body(game))
