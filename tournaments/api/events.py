"""The organiser's side of a simultaneous event (tournaments/events.py, docs/packs.md):

    POST /api/events/{id}/results     the body is a centre's results file; ``Authorization: Bearer <the centre's
                                      push token>`` (``Token`` is read too). 201 accepted, 200 already received
    GET  /api/events/{id}/standings   the merged standings (the event's organisers)
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.parsers import BaseParser
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from tournaments import events
from tournaments.api.permissions import IsArbitrator, is_arbitrator
from tournaments.api.views import ApiView, answers
from tournaments.limits import CENTRE_CODE_MAX, RESULTS_FILE_MAX_BYTES


class CentrePrincipal:
    """``request.user`` of a centre's push: not a Django user, never staff; good for its event's push only."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False
    pk = None

    def __init__(self, centre):
        self.centre = centre

    def __str__(self) -> str:
        return f"centre {self.centre.code}"


class CentreTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer <token>`` (or ``Token <token>``): a push token of a centre of the event in the URL.
    Any other token, or none, is refused (401)."""

    message = "This push token is not one of this event's centres: ask the organiser for the centre's token."

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts:
            return None
        if len(parts) != 2 or parts[0].lower() not in (b"bearer", b"token"):
            raise AuthenticationFailed(self.message)
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed(self.message) from None
        event_id = (getattr(request, "parser_context", None) or {}).get("kwargs", {}).get("event_id")
        centre = events.centre_by_token(event_id, token) if isinstance(event_id, int) else None
        if centre is None:
            raise AuthenticationFailed(self.message)
        return CentrePrincipal(centre), centre

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="centre"'


class CentreTokenScheme(OpenApiAuthenticationExtension):
    target_class = "tournaments.api.events.CentreTokenAuthentication"
    name = "centreToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "A centre's push token, given by the organiser."}


class IsCentre(BasePermission):
    message = "Only a centre of this event may push its results, with its token."
    code = "not_authenticated"

    def has_permission(self, request, view) -> bool:
        return isinstance(request.user, CentrePrincipal)


class IsEventOrganiser(BasePermission):
    message = "Only an organiser of this event may do this."
    code = "head_only"

    def has_permission(self, request, view) -> bool:
        if not is_arbitrator(request.user):
            self.message, self.code = IsArbitrator.message, IsArbitrator.code
            return False
        return events.is_organiser(view.kwargs.get("event_id"), request.user)


class ResultsFileParser(BaseParser):
    """The body as received (the results file's bytes), read whole: its content hash is computed here."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        return stream.read(RESULTS_FILE_MAX_BYTES + 1) if stream is not None else b""


class ReceivedSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["accepted", "already_received"])
    message = serializers.CharField()
    sha256 = serializers.CharField()
    centre = serializers.CharField()
    game = serializers.CharField()
    sequence = serializers.IntegerField()
    final = serializers.BooleanField()
    differences = serializers.IntegerField(help_text="Verdicts the organiser's judge gives otherwise, listed for "
                                           "review (never changed).")


class EventResultsView(ApiView):
    authentication_classes = [CentreTokenAuthentication]
    permission_classes = [IsCentre]
    parser_classes = [ResultsFileParser]

    @extend_schema(request={"application/json": {"type": "object", "description": "A centre's results file."}},
                   responses=answers({201: ReceivedSerializer, 200: OpenApiResponse(
                       ReceivedSerializer, description="This very file was already received: not an error, the "
                       "centre stops retrying.")}, 400, 401, 409, 413),
                   description="A centre pushes its results file with its push token. Verified against the centre's "
                   "key and the event's unlocked game: refused bad_results, results_altered, results_forged, "
                   "results_wrong_event, results_outdated (an earlier or equal version than the one held), results_totals, "
                   "results_other_centre (the file names another centre); 409 centre_key_unconfirmed (the centre's "
                   "key awaits the organiser's check by phone: send again once accepted), event_game_locked, "
                   "results_replayed (a version received before and since replaced by a later one). A "
                   "refused file stores nothing. Idempotent by content hash for the version counted; a later version replaces the one "
                   "counted and stays in the history.")
    def post(self, request, event_id: int):
        centre = request.user.centre
        raw = request.data if isinstance(request.data, bytes) else b""
        record, new = events.results_receive(event=centre.event, raw=raw, centre=centre)
        body = {"status": "accepted" if new else "already_received",
                "message": "accepted" if new else "already received",
                "sha256": record.sha256, "centre": centre.code, "game": record.game.game_id,
                "sequence": record.sequence, "final": record.final, "differences": len(record.differences)}
        return Response(ReceivedSerializer(body).data, status=status.HTTP_201_CREATED if new else status.HTTP_200_OK)


def standings_body(event) -> dict:
    merged = events.standings(event)

    def row(r: dict) -> dict:
        return {name: value for name, value in r.items() if name != "key"}

    body = {name: value for name, value in merged.items() if not name.startswith("by_") and name != "rows"}
    body["event"] = event.name
    body["rows"] = [row(r) for r in merged["rows"]]
    for group in ("by_centre", "by_series", "by_category"):
        body[group] = {name: [row(r) for r in rows] for name, rows in merged[group].items()}
    return body


class EventStandingsView(ApiView):
    permission_classes = [IsEventOrganiser]

    @extend_schema(responses=answers({200: OpenApiResponse(description="The merged standings: rows (rank, name, "
                   "licence, club, centre, series, category, total, diff, percent, solos, warnings, games), by_centre, "
                   "by_series, by_category, sum_tops, provisional, missing, missing_centres, unfinished, locked; rounds (game -> "
                   "rounds the organiser's game has, a multiplex's growing as it is played), reported (game -> centre -> "
                   "rounds its counted file holds) and behind (the centres that reported fewer).")},
                   401, 403, 404),
                   description="The event's merged standings over the latest file of each centre's game (engine.merge): "
                   "provisional while a centre has not reported (missing_centres lists them).")
    def get(self, request, event_id: int):
        return Response(standings_body(events.get_event(event_id)))


# ---- a multiplex (tournaments/multiplex.py, docs/multiplex.md) ---------------------------------------------------


class IsRelayCentre(IsCentre):
    message = "Only a centre of this event may follow its relay, with its token."


class RelayItemSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The item's number: ask again with the last one applied as after.")
    kind = serializers.ChoiceField(choices=["rack", "master"])
    round = serializers.IntegerField()
    rack = serializers.CharField(required=False, help_text="kind rack: the round's rack (kept+drawn).")
    rejected = serializers.ListField(child=serializers.CharField(), required=False,
                                     help_text="kind rack: the draws refused before it.")
    started_at = serializers.DateTimeField(required=False, help_text="kind rack: when the organiser started it.")
    master = serializers.DictField(required=False, help_text="kind master: word, ref, score.")


class RelaySerializer(serializers.Serializer):
    format = serializers.CharField()
    event = serializers.CharField()
    game_id = serializers.CharField()
    relay = serializers.CharField(help_text="The relay's id: the centre's results files carry it as pack_sha256.")
    settings = serializers.DictField(help_text="lexicon, tileset, coordinates, ruleset, rule_overrides, "
                                     "round_seconds: the centre's game is played with them.")
    items = RelayItemSerializer(many=True)
    after = serializers.IntegerField(help_text="The last item's seq (the one asked for when there is none).")


class EventRelayView(ApiView):
    authentication_classes = [CentreTokenAuthentication]
    permission_classes = [IsRelayCentre]

    def permission_denied(self, request, message=None, code=None):
        if request.authenticators and not request.successful_authenticator:  # no token at all: say which one
            raise AuthenticationFailed(CentreTokenAuthentication.message)
        super().permission_denied(request, message=message, code=code)

    @extend_schema(
        parameters=[
            OpenApiParameter("after", int, description="The last item's seq the centre applied (0: from the start)."),
            OpenApiParameter("wait", float, description="Seconds to wait when there is nothing after it (at most "
                             "the organiser's ARBITER_RELAY_WAIT_SECONDS, its default)."),
        ],
        responses=answers({200: RelaySerializer}, 400, 401, 409),
        description="A centre follows the organiser's live game (a long poll, outbound from the centre: through "
        "routers and proxies). Answers at once with the items after `after`, else waits up to `wait` seconds for one "
        "(an empty list then). A round's rack appears only once the organiser started the round; its master once "
        "the round is closed there. 401 without a centre's token of this event; 409 multiplex_none while no game is "
        "opened to the centres; 400 bad_relay_query.")
    def get(self, request, event_id: int):
        from tournaments import multiplex

        centre = request.user.centre
        after = multiplex.read_after(request.query_params.get("after"))
        seconds = multiplex.wait_seconds(request.query_params.get("wait"))
        opened = multiplex.live_of(centre.event)
        items = multiplex.wait_for_items(opened, after, seconds)
        body = {**multiplex.header(opened), "items": items, "after": items[-1]["seq"] if items else after}
        return Response(RelaySerializer(body).data)


class OpenGameSerializer(serializers.Serializer):
    game = serializers.IntegerField(min_value=1, max_value=2**63 - 1,
                                    help_text="The organiser's game (its number on this installation).")
    game_id = serializers.RegexField(events.CENTRE_CODE.pattern, max_length=CENTRE_CODE_MAX,
                                     help_text="Its name in the event, as a pack's game id (M1): letters, digits, "
                                     "dashes, dots or underscores.")


class OpenedSerializer(serializers.Serializer):
    game_id = serializers.CharField()
    game = serializers.IntegerField()
    relay = serializers.CharField()
    opened_at = serializers.DateTimeField()


class EventGamesView(ApiView):
    permission_classes = [IsEventOrganiser]

    @extend_schema(request=OpenGameSerializer, responses=answers({201: OpenedSerializer}, 400, 401, 403, 404, 409),
                   description="Open a game played live here to the event's centres (a multiplex): by an organiser "
                   "of the event who is the game's head arbitrator; logged multiplex_open in the game's log. The "
                   "centres then follow it through GET /api/events/{id}/relay. 409 event_game_twice, "
                   "multiplex_game_over.")
    def post(self, request, event_id: int):
        from tournaments import multiplex
        from tournaments.api.views import valid
        from tournaments.models import Game

        data = valid(OpenGameSerializer, request)
        event = events.get_event(event_id)
        game = Game.objects.filter(pk=data["game"]).first()
        if game is None:
            from tournaments.errors import NotFound

            raise NotFound("not_found", params={"game": data["game"], "why": "game"})
        opened = multiplex.game_open(event=event, game=game, game_id=data["game_id"], actor=request.user)
        return Response(OpenedSerializer({"game_id": opened.game_id, "game": game.pk, "relay": opened.sha256,
                                          "opened_at": opened.opened_at}).data, status=status.HTTP_201_CREATED)
