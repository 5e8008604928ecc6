"""The public results feed (tournaments/public.py, README "Public results"):

    GET /api/public/{key}   the standings after each closed round of a tournament or an event whose public link
                            is on, with each round's master; no credentials. ETag and Cache-Control; 304 to an
                            If-None-Match naming the current ETag; 404 when no link has this key or it is off.

The serializers below only document the body (the schema); the body is built by tournaments.public.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.throttling import BaseThrottle

from tournaments import public
from tournaments.api.views import ERRORS, PublicView


class PublicPlaySerializer(serializers.Serializer):
    word = serializers.CharField()
    ref = serializers.CharField(help_text="The placement, in the tournament's grid labelling (H8, 8H).")
    score = serializers.IntegerField()


class PublicRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    master = PublicPlaySerializer(allow_null=True, help_text="The round's master; null when none was placed.")
    top = serializers.IntegerField(allow_null=True, help_text="The round's top score.")
    provisional = serializers.BooleanField(required=False,
                                           help_text="A tournament's round whose paper slips are not all entered.")


class PublicRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="Competition ranking (1, 1, 3) over everyone.")
    group_rank = serializers.IntegerField(required=False, help_text="The rank within the filtered group (only "
                                                                    "when a filter is asked).")
    name = serializers.CharField()
    club = serializers.CharField(allow_blank=True)
    centre = serializers.CharField(required=False, help_text="An event's row: the centre the player played in.")
    series = serializers.CharField(allow_blank=True)
    category = serializers.CharField(allow_blank=True)
    total = serializers.IntegerField()
    diff = serializers.IntegerField(help_text="The total minus the sum of the tops (0 or negative).")
    percent = serializers.FloatField(help_text="The total as a percentage of the sum of the tops.")
    tops = serializers.IntegerField()
    solos = serializers.IntegerField()
    warnings = serializers.IntegerField()
    series_rank = serializers.IntegerField(required=False, help_text="A game's row: the rank within its series.")
    games = serializers.ListField(child=serializers.IntegerField(), required=False,
                                  help_text="A tournament's row: the total of each game, in order.")
    rank_centre = serializers.IntegerField(required=False, allow_null=True)
    rank_series = serializers.IntegerField(required=False, allow_null=True)
    rank_category = serializers.IntegerField(required=False, allow_null=True)


class PublicGameSerializer(serializers.Serializer):
    number = serializers.IntegerField(required=False, help_text="A tournament's game: its number.")
    id = serializers.CharField(required=False, help_text="An event's game: its id in the pack.")
    over = serializers.BooleanField(required=False)
    rounds_closed = serializers.IntegerField(required=False, help_text="A tournament's game: its closed rounds.")
    rounds_shown = serializers.IntegerField(required=False, help_text="An event's game: the rounds every centre "
                                                                      "has reported, whose masters are shown.")
    provisional = serializers.BooleanField(required=False)
    rounds = PublicRoundSerializer(many=True)
    standings = PublicRowSerializer(many=True, required=False)
    chain = serializers.CharField(required=False, help_text="A tournament's game: the head of its log chain "
                                  "after its last closed round (chain GAME/SEQ/HASH), a proof of the log that "
                                  "manage.py verifylog --held checks.")


class PublicCentreSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    missing = serializers.BooleanField(help_text="Has not reported yet.")
    unfinished = serializers.BooleanField(help_text="Has reported part of a game only.")


class PublicFiltersSerializer(serializers.Serializer):
    centre = serializers.ListField(child=serializers.CharField(), required=False)
    series = serializers.ListField(child=serializers.CharField())
    category = serializers.ListField(child=serializers.CharField())


class PublicFeedSerializer(serializers.Serializer):
    version = serializers.CharField(help_text="The data's hash: the ETag's core, the same while nothing public "
                                              "changed.")
    kind = serializers.ChoiceField(choices=["tournament", "event"])
    name = serializers.CharField()
    language = serializers.CharField(help_text="The tournament's (event's) language: en or fr.")
    provisional = serializers.BooleanField(help_text="Results still to come: paper slips not all entered, a "
                                                     "centre not reported.")
    games = PublicGameSerializer(many=True)
    standings = PublicRowSerializer(many=True, help_text="A tournament of several games: the totals over them "
                                                         "(empty for one game: its game's standings); an event: "
                                                         "the merged standings.")
    centres = PublicCentreSerializer(many=True, required=False)
    filters = PublicFiltersSerializer(help_text="The values each filter can take.")
    filtered = serializers.DictField(child=serializers.CharField(), help_text="The filters applied.")


class NoThrottle(BaseThrottle):
    def allow_request(self, request, view) -> bool:
        return True


class PublicFeedView(PublicView):
    throttle_classes = [NoThrottle]

    @extend_schema(
        operation_id="public_results_feed",
        summary="Public results feed",
        description="A tournament's or an event's standings after each closed round (nothing of a round in play), "
                    "with each round's master. Strong ETag; Cache-Control public with a short max-age; a request "
                    "whose If-None-Match names the current ETag gets 304 with no body.",
        parameters=[
            OpenApiParameter("centre", str, description="Only the rows of this centre (an event)."),
            OpenApiParameter("series", str, description="Only the rows of this series."),
            OpenApiParameter("category", str, description="Only the rows of this category."),
            OpenApiParameter("If-None-Match", str, location=OpenApiParameter.HEADER,
                             description="An ETag this feed gave: 304 while it is current."),
        ],
        responses={200: PublicFeedSerializer, 304: OpenApiResponse(description="Not modified: no body."),
                   404: ERRORS[404], 429: ERRORS[429]},
        auth=[],
    )
    def get(self, request, key: str):
        from django.http import Http404, HttpResponse
        from rest_framework.exceptions import Throttled

        try:
            found = public.published(key, request)
        except public.TooManyUnknown as refused:
            raise Throttled(wait=refused.wait) from None
        if found is None:
            raise Http404
        tag = public.etag(public.FEED, found.tag)
        unchanged = public.not_modified(request, tag)
        if unchanged is not None:
            return unchanged
        body = public.feed_bytes(found, request.query_params)
        return public.cacheable(HttpResponse(body, content_type="application/json"), tag)
