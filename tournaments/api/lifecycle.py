"""A tournament's settings edited, a game deleted, archived or brought back, a tournament deleted
(services/lifecycle.py):

    PATCH  /api/tournaments/{id}          some of the creation's fields: its settings (its name only once a game
                                          of it has started: 409 tournament_started for the others)
    DELETE /api/tournaments/{id}          with its games, when none has a log (409 game_has_log)
    DELETE /api/games/{id}                a game never started: its log empty (409 game_has_log: archive it)
    POST   /api/games/{id}/archive        {"archived": true | false}
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from tournaments import services
from tournaments.api import serializers as s
from tournaments.api.permissions import IsHeadArbitrator, IsTournamentHead
from tournaments.api.serializers import StrictBooleanField
from tournaments.api.views import ApiView, answers, get_game, valid
from tournaments.errors import NotFound
from tournaments.models import Tournament


class TournamentUpdateSerializer(s.TournamentCreateSerializer):
    """The creation's fields, each optional: those sent change."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, partial=True, **kwargs)

    def validate(self, attrs):
        """The rules are checked by the service, against the tournament's ruleset when none is sent."""
        overrides = attrs.get("rules") or {}
        clashing = sorted(set(overrides) & (set(self.fields) | {"created_by"}))
        if clashing:
            raise serializers.ValidationError({"rules": [f"set {', '.join(clashing)} outside 'rules'"]})
        return attrs


class ArchiveSerializer(serializers.Serializer):
    archived = StrictBooleanField(help_text="true: archive the game (hidden from the home page and the phones' "
                                            "list of games in play); false: bring it back.")


class ArchivedSerializer(serializers.Serializer):
    """Its instance: the Game."""

    id = serializers.IntegerField()
    archived = serializers.SerializerMethodField()
    archived_at = serializers.DateTimeField(allow_null=True)

    def get_archived(self, game) -> bool:
        return game.archived_at is not None


def get_tournament(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound("not_found", params={"tournament": tournament_id, "why": "tournament"})
    return tournament


class TournamentView(ApiView):
    permission_classes = [IsTournamentHead]

    @extend_schema(request=TournamentUpdateSerializer,
                   responses=answers({200: s.TournamentSerializer}, 400, 401, 403, 404, 409),
                   description="Change the tournament's settings: any of the fields of its creation. Once a game of "
                   "it has started (a rack drawn), its name only: 409 tournament_started for another setting "
                   "that would change.")
    def patch(self, request, tournament_id: int):
        tournament = get_tournament(tournament_id)
        data = dict(valid(TournamentUpdateSerializer, request))
        if "rules" in data:
            data["rule_overrides"] = data.pop("rules") or {}
        tournament = services.tournament_update(tournament=tournament, changes=data, actor=request.user)
        return Response(s.TournamentSerializer(tournament).data)

    @extend_schema(request=None, responses=answers({204: None}, 401, 403, 404, 409),
                   description="Delete the tournament with its games, when none of them has a log (never started, "
                   "nobody registered): 409 game_has_log otherwise (archive its games instead).")
    def delete(self, request, tournament_id: int):
        services.tournament_delete(tournament=get_tournament(tournament_id), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameArchiveView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=ArchiveSerializer, responses=answers({200: ArchivedSerializer}, 400, 401, 403, 404, 409),
                   description="Archive the game, or bring it back: an archived game is not listed on the home page "
                   "(the phones' list of games in play); the console, its sheets and exports still reach it. "
                   "Not while a round is in play (409 round_open). Logged.")
    def post(self, request, game_id: int):
        game = get_game(game_id)
        data = valid(ArchiveSerializer, request)
        game = services.game_archive(game=game, archived=data["archived"], actor=request.user)
        return Response(ArchivedSerializer(game).data)
