"""A centre plays a sealed pack (tournaments/centre.py, docs/packs.md):

    POST /api/tournaments/{id}/packs     {"pack": <the pack file's JSON, or its text>, "trust_fingerprint"?}
                                         a new game of the tournament played from the pack (201)
    GET  /api/games/{id}/pack            the game's pack: its clear part, locked or not (never a rack)
    POST /api/games/{id}/pack/unlock     {"key": "<typed key, or the QR code's text>"}
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from tournaments import centre
from tournaments.api.lifecycle import get_tournament
from tournaments.api.permissions import IsGameArbitrator, IsHeadArbitrator, IsTournamentHead
from tournaments.api.views import ApiView, answers, get_game, valid
from tournaments.errors import NotFound
from tournaments.models import GamePack

PACK_SCHEMA = {
    "oneOf": [
        {"type": "object", "minProperties": 1, "additionalProperties": True,
         "description": "The pack file's JSON object as is."},
        {"type": "string", "minLength": 1, "description": "The pack file's text."},
    ],
}


@extend_schema_field(PACK_SCHEMA)
class PackField(serializers.Field):
    """The pack: its file's JSON object as is, or its text."""

    def to_internal_value(self, data):
        if not isinstance(data, dict | str) or not data:
            raise serializers.ValidationError("the pack file's JSON object, or its text")
        return data

    def to_representation(self, value):
        return value


class PackImportSerializer(serializers.Serializer):
    pack = PackField(help_text="The sealed pack, as its file holds it (a JSON object), or that file's text.")
    trust_fingerprint = serializers.CharField(
        required=False, allow_blank=True, max_length=40,
        help_text="The organiser's key fingerprint (TZZS-RS6M-RVQJ-AS31), as read out by the organiser on the "
        "phone: when the pack's signer is not yet trusted and this is its fingerprint, the key is trusted from "
        "now on. Left out: an untrusted signer is refused (pack_untrusted, its fingerprint in the message).")


class PackUnlockSerializer(serializers.Serializer):
    key = serializers.CharField(max_length=200, help_text="The key as read out (7 groups of 4 characters; "
                                "case, spaces and dashes do not matter) or the text of its QR code.")


class PackSerializer(serializers.Serializer):
    """The pack's clear part: what every centre may see before the start."""

    event = serializers.CharField()
    game_id = serializers.CharField()
    sha256 = serializers.CharField()
    fingerprint = serializers.CharField(help_text="The signer's (the organiser's) key fingerprint.")
    signer = serializers.CharField(help_text="The signer's Ed25519 public key.")
    lexicon = serializers.DictField(help_text="{name, sha256}")
    tileset = serializers.CharField()
    labelling = serializers.CharField()
    sealed_at = serializers.CharField()
    imported_at = serializers.DateTimeField()
    unlocked = serializers.BooleanField()
    unlocked_at = serializers.DateTimeField(allow_null=True)


class PackGameSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    pack = PackSerializer()


def _pack(game_id: int) -> GamePack:
    pack = GamePack.objects.filter(game_id=game_id).first()
    if pack is None:
        raise NotFound("not_found", params={"game": game_id, "why": "game"})
    return pack


class TournamentPacksView(ApiView):
    permission_classes = [IsTournamentHead]

    @extend_schema(request=PackImportSerializer, responses=answers({201: PackGameSerializer}, 400, 401, 403, 404, 409),
                   description="Import a sealed pack as a new game of the tournament. Refused: pack_altered (changed "
                   "since signed), pack_untrusted (signer not trusted: its fingerprint in the message; send "
                   "trust_fingerprint once checked by phone), pack_fingerprint (another fingerprint sent), "
                   "pack_wrong_lexicon (naming the word list to import), bad_pack; 409 pack_settings when a "
                   "game of the tournament has started with other settings than the pack's. The tournament "
                   "otherwise takes the pack's word list, tile set, labelling and rules. The game's racks stay "
                   "encrypted until its head arbitrator gives the key (POST /api/games/{id}/pack/unlock).")
    def post(self, request, tournament_id: int):
        tournament = get_tournament(tournament_id)
        data = valid(PackImportSerializer, request)
        game = centre.pack_import(tournament=tournament, raw=data["pack"],
                                  trust_fingerprint=data.get("trust_fingerprint"), actor=request.user)
        body = {"game": game.pk, "pack": centre.pack_summary(GamePack.objects.get(game=game))}
        return Response(PackGameSerializer(body).data, status=status.HTTP_201_CREATED)


class GamePackView(ApiView):
    permission_classes = [IsGameArbitrator]

    @extend_schema(responses=answers({200: PackSerializer}, 401, 403, 404),
                   description="The game's sealed pack: its clear part and whether it is unlocked (404 for a game "
                   "not played from a pack).")
    def get(self, request, game_id: int):
        get_game(game_id)
        return Response(PackSerializer(centre.pack_summary(_pack(game_id))).data)


class GamePackUnlockView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=PackUnlockSerializer, responses=answers({200: PackSerializer}, 400, 401, 403, 404, 409),
                   description="Unlock the game's pack with its key, typed or scanned. Refused, nothing changed: "
                   "bad_pack_key (not a key's characters or length), pack_key_check (mistyped: its check does "
                   "not match), wrong_pack_key (does not open this pack, or a QR code of another pack); 409 "
                   "pack_unlocked once unlocked. Each draw then reveals the pack's next rack.")
    def post(self, request, game_id: int):
        game = get_game(game_id)
        _pack(game_id)
        data = valid(PackUnlockSerializer, request)
        pack = centre.pack_unlock(game=game, key=data["key"], actor=request.user)
        return Response(PackSerializer(centre.pack_summary(pack)).data)
