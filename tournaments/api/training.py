"""Opening a finished game to training, by its head arbitrator.

    POST /api/games/{id}/training   {"open": "closed" | "everyone" | "members"}
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from tournaments import services
from tournaments.api.permissions import IsHeadArbitrator
from tournaments.api.serializers import StrictChoiceField
from tournaments.api.views import ApiView, answers, get_game, valid


class TrainingSerializer(serializers.Serializer):
    open = StrictChoiceField(choices=list(services.TRAINING_CHOICES),
                             help_text="closed (nobody), everyone, or members (the players of the game's tournament, by their token, and signed-in users of the site).")


class TrainingStateSerializer(serializers.Serializer):
    """Its instance: the Game."""

    game = serializers.IntegerField(source="pk")
    training = serializers.CharField(help_text="closed, everyone or members.")
    url = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(
        help_text="The training page (answers 404 while closed or before the game is over)."))
    def get_url(self, game) -> str:
        return reverse("training", args=[game.pk])


def training_body(game) -> dict:
    return TrainingStateSerializer(game).data


class GameTrainingView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=TrainingSerializer, responses=answers({200: TrainingStateSerializer}, 400, 401, 403, 404),
                   description="Open the game to training on /games/{id}/train once it is over: to everyone, or to "
                   "members (the players of the game's tournament, by their token, and signed-in users of the site); closed: nobody (the default). Logged.")
    def post(self, request, game_id: int):
        game = get_game(game_id)
        data = valid(TrainingSerializer, request)
        return Response(training_body(services.training_set(game=game, value=data["open"], actor=request.user)))
