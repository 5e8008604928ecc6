"""The API's views: check the input, call one service or selector, shape the answer.

Who may call what is declared per view (permissions.py): a game's operations take a role in that game
(services.roles: head, or head or assistant), a tournament's a role in one of its games; the services that
act for someone check the same roles again, so the API and the console answer alike. The services decide
whether the action fits the state of the game and raise ServiceError, which exceptions.py turns into the
contract's error shape.
"""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from arbiter.arrival import received_at
from engine.notation import RefError
from tournaments import reading, security, selectors, services
from tournaments.api import serializers as s
from tournaments.api.authentication import (
    ArbitratorTokenAuthentication,
    ConsoleSessionAuthentication,
    PlayerTokenAuthentication,
)
from tournaments.api.parsers import LimitedJSONParser
from tournaments.api.permissions import (
    IsArbitrator,
    IsGameArbitrator,
    IsGameArbitratorOrPlayer,
    IsHeadArbitrator,
    IsPlayer,
    ScopedUrl,
    is_arbitrator,
    player_of,
)
from tournaments.api.throttles import (
    AuthRateThrottle,
    JoinFailureThrottle,
    SlipRateThrottle,
)
from tournaments.errors import Forbidden, NotFound, ServiceError, input_refused
from tournaments.models import Game, LateSlip, Player, Round, Slip, Tournament
from tournaments.public import for_reader
from tournaments.services import StaleSlip, hash_token, refuse_if_paused
from tournaments.services.setup import JOIN_CODE_LENGTH
from tournaments.web.language import expressed_language, keep_language

ERRORS = {
    400: OpenApiResponse(s.ErrorSerializer, description="Bad input"),
    401: OpenApiResponse(s.ErrorSerializer, description="No or unknown credentials"),
    403: OpenApiResponse(s.ErrorSerializer, description="Not allowed"),
    404: OpenApiResponse(s.ErrorSerializer, description="No such resource"),
    409: OpenApiResponse(s.ErrorSerializer, description="The action does not fit the state of the game"),
    413: OpenApiResponse(s.ErrorSerializer, description="The body is too large"),
    429: OpenApiResponse(s.ErrorSerializer, description="Too many requests: wait and retry"),
}


def answers(ok: dict, *codes: int) -> dict:
    return {**ok, **{code: ERRORS[code] for code in codes}}


class ApiView(ScopedUrl, APIView):
    """Arbitrators by token or session, players by bearer token; JSON bodies with a size cap."""

    parser_classes = [LimitedJSONParser]
    authentication_classes = [ArbitratorTokenAuthentication, PlayerTokenAuthentication, ConsoleSessionAuthentication]
    permission_classes = [IsArbitrator]


class PublicView(ApiView):
    """Readable by anyone with the link: no credentials are looked at (and none can fail)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]


def valid(serializer_class, request, **context):
    """The body's fields, checked by the serializer. The body is a JSON object (no body at all reads as {});
    JSON that is not an object, null included, is refused."""
    if not isinstance(request.data, dict):
        raise ServiceError("invalid", fields={"non_field_errors": ["The body must be a JSON object."]},
                           params={"why": "not_object"})
    serializer = serializer_class(data=request.data, context=context)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def get_game(game_id: int) -> Game:
    game = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if game is None:
        raise NotFound("not_found", params={"game": game_id, "why": "game"})
    return game


def read_game(game_id: int) -> Game:
    """The game for a view that shows it: a round whose deadline has passed is closed first (the deadline
    is the truth; one indexed query when nothing is due)."""
    game = get_game(game_id)
    services.game_close_if_due(game_id=game.pk)
    return game


def get_round(game: Game, number: int) -> Round:
    round = (
        Round.objects.counting().filter(game=game, number=number)
        .select_related("game__tournament")
        .first()
    )
    if round is None:
        raise NotFound("not_found", params={"round": number, "game": game.pk, "why": "round"})
    return round


def get_round_of_game(game_id: int, number: int) -> Round:
    """The round with its game and tournament in one plain query (every slip of a hall asks it); 404 as
    get_game then get_round would say."""
    round = selectors.round_with_game(game_id=game_id, number=number)
    if round is None:
        get_game(game_id)  # no game: 404 naming the game
        raise NotFound("not_found", params={"round": number, "game": game_id, "why": "round"})
    return round


def checked_ref(text: str | None, game: Game) -> str:
    """The reference in canonical form ('' when none was written); 400 ``bad_ref`` when it names no square."""
    try:
        return s.canonical_ref(text, game.tournament.coordinates)
    except RefError as error:
        raise input_refused(error, "ref", code="bad_ref") from None


def arbitrator(request):
    return request.user if is_arbitrator(request.user) else None


# ---- authentication and set-up --------------------------------------------------------------------------


class AuthTokenView(ApiView):
    """A new API token per request (tournaments/security.py: only its digest is kept; it expires). Wrong
    passwords count against the account and the client address (django-axes, shared with the console's
    and the admin's logins): past the limit both are locked, the right password included (429)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthRateThrottle]

    @extend_schema(request=s.TokenRequestSerializer, responses=answers({200: s.TokenSerializer}, 400, 403, 429))
    def post(self, request):
        data = valid(s.TokenRequestSerializer, request)
        # django-axes reads and marks the HttpRequest itself (DRF's Request wraps it).
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None:
            if getattr(request._request, "axes_locked_out", False):
                raise ServiceError("locked_out", security.locked_out_message(), status=429)
            raise ServiceError("bad_credentials")
        if not user.is_staff:
            raise Forbidden("not_arbitrator", params={"why": "api_token"})
        token, expires = security.issue_api_token(user)
        return Response(s.TokenSerializer({"token": token, "expires": expires}).data)


class TournamentsView(ApiView):
    @extend_schema(
        request=s.TournamentCreateSerializer, responses=answers({201: s.TournamentSerializer}, 400, 401, 403)
    )
    def post(self, request):
        data = valid(s.TournamentCreateSerializer, request)
        overrides = data.pop("rules", None) or {}
        tournament = services.tournament_create(created_by=request.user, **data, **overrides)
        return Response(s.TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)


class TournamentGamesView(ApiView):
    @extend_schema(request=s.GameCreateSerializer, responses=answers({201: s.GameSerializer}, 400, 401, 403, 404))
    def post(self, request, tournament_id: int):
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise NotFound("not_found", params={"tournament": tournament_id, "why": "tournament"})
        data = valid(s.GameCreateSerializer, request)
        game = services.game_create(tournament=tournament, seed=data.get("seed"), actor=request.user)
        return Response(s.GameSerializer(game).data, status=status.HTTP_201_CREATED)


def standings_reader(request, *, game_id: int | None = None, tournament_id: int | None = None) -> dict:
    """Who reads a standings answer (readable by anyone): ``{"arbitrator": bool, "player_id": int | None}``
    for tournaments.public.for_reader. An arbitrator with a role in the game (the tournament), by token or
    session, sees every row whole; a player, by their bearer token, their own row whole; anyone else what the
    public results page shows. Credentials that fail count as none: the answer is the public one."""
    from rest_framework.exceptions import AuthenticationFailed

    from tournaments.services import role_of, tournament_role

    reader = {"arbitrator": False, "player_id": None}
    try:
        found = ArbitratorTokenAuthentication().authenticate(request)
    except AuthenticationFailed:
        found = None
    # The console's session (read from the session itself: a view without authentication classes has set
    # the request's user to the anonymous one). A GET changes nothing: no CSRF check is owed.
    user = found[0] if found is not None else get_user(request._request)
    if is_arbitrator(user):
        role = role_of(game_id, user) if game_id is not None else tournament_role(tournament_id, user)
        if role is not None:
            reader["arbitrator"] = True
            return reader
    try:
        found = PlayerTokenAuthentication().authenticate_for_game(request, game_id)
    except AuthenticationFailed:
        found = None
    if found is not None:
        if game_id is not None:
            reader["player_id"] = found[0].player.pk if found[0].player is not None else None
        else:
            reader["player_id"] = (Player.objects.filter(tournament_id=tournament_id,
                                                         token_hash=hash_token(found[1]))
                                   .values_list("pk", flat=True).first())
    return reader


class TournamentStandingsView(PublicView):
    @extend_schema(responses=answers({200: s.TournamentStandingRowSerializer(many=True)}, 404),
                   description="Anyone may read the standings; ``table`` and ``licence`` are null but for the "
                   "tournament's arbitrators and, in their own row, the player (bearer token): an anonymous "
                   "answer carries what the public results page shows.")
    def get(self, request, tournament_id: int):
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise NotFound("not_found", params={"tournament": tournament_id, "why": "tournament"})
        rows = for_reader(selectors.tournament_standings(tournament=tournament),
                          **standings_reader(request, tournament_id=tournament.pk))
        return Response(s.TournamentStandingRowSerializer(rows, many=True).data)


def registered(player: Player, token: str) -> dict:
    return s.RegisteredPlayerSerializer(player, context={"token": token}).data


class GamePlayersView(ApiView):
    permission_classes = [IsGameArbitrator]

    @extend_schema(
        request=s.PlayerRegisterSerializer, responses=answers({201: s.RegisteredPlayerSerializer}, 400, 401, 403, 404, 409)
    )
    def post(self, request, game_id: int):
        game = get_game(game_id)
        data = valid(s.PlayerRegisterSerializer, request)
        player, token = services.player_register(game=game, **data, actor=request.user)
        return Response(registered(player, token), status=status.HTTP_201_CREATED)


class JoinView(ApiView):
    """Join with the game's code. A right code joins at once, always: neither the wrong codes sent from its
    address (a hall behind one venue address, someone in it guessing) nor those from anywhere else hold it
    up. Only wrong codes count against an address, counted before they are answered: past the limit, 429
    rather than 404 (docs/security.md, Join codes). A short code of a game made before codes had
    JOIN_CODE_LENGTH characters is not looked up from an address past its limit: such codes are too few to
    be looked up without one."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [JoinFailureThrottle]

    @extend_schema(request=s.JoinSerializer, responses=answers({201: s.RegisteredPlayerSerializer}, 400, 404, 409, 429))
    def post(self, request):
        data = valid(s.JoinSerializer, request)
        language = data.get("language") or expressed_language(request)
        if len("".join(str(data["join_code"]).split())) < JOIN_CODE_LENGTH:
            throttles = self.get_throttles()
            if any(throttle.held(request, self) for throttle in throttles):
                self.throttled(request, max(throttle.wait() for throttle in throttles))
        try:
            player, token = services.player_join(join_code=data["join_code"], name=data["name"],
                                                 table=data.get("table"), language=language)
        except NotFound as error:
            if error.code == "unknown_join_code":
                throttles = self.get_throttles()
                if not all([throttle.record_failure(request, self) for throttle in throttles]):
                    self.throttled(request, max(throttle.wait() for throttle in throttles))
            raise
        # The phone's pages are opened without the token: its language cookie keeps the player's language.
        return keep_language(Response(registered(player, token), status=status.HTTP_201_CREATED), language)


# ---- a game ---------------------------------------------------------------------------------------------


class GameView(ApiView):
    permission_classes = [IsGameArbitratorOrPlayer]

    def get_permissions(self):
        if self.request.method == "DELETE":  # deleting the game: its head arbitrator's
            return [IsHeadArbitrator()]
        return super().get_permissions()

    @extend_schema(responses=answers({200: s.GameStateSerializer}, 401, 403, 404))
    def get(self, request, game_id: int):
        return Response(s.GameStateSerializer(selectors.game_state(game=read_game(game_id))).data)

    @extend_schema(request=None, responses=answers({204: None}, 401, 403, 404, 409),
                   description="Delete a game never started: its log is empty (nobody registered, no rack drawn, no "
                   "role named). 409 game_has_log otherwise: archive it (POST /api/games/{id}/archive).")
    def delete(self, request, game_id: int):
        services.game_delete(game=get_game(game_id), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameEndView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.EmptySerializer, responses=answers({200: s.GameStateSerializer}, 401, 403, 404, 409))
    def post(self, request, game_id: int):
        game = get_game(game_id)
        valid(s.EmptySerializer, request)
        game = services.game_end(game=game, actor=request.user)
        return Response(s.GameStateSerializer(selectors.game_state(game=game)).data)


class GameStandingsView(PublicView):
    @extend_schema(responses=answers({200: s.StandingRowSerializer(many=True)}, 404),
                   description="Anyone with the game's link may read the standings; ``table`` and ``licence`` "
                   "are null but for the game's arbitrators and, in their own row, the player (bearer token): an "
                   "anonymous answer carries what the public results page shows.")
    def get(self, request, game_id: int):
        game = get_game(game_id)
        provisional = selectors.standings_provisional(game)  # paper slips of the last round still coming
        rows = [{**row, "provisional": provisional} for row in selectors.game_standings(game=game)]
        rows = for_reader(rows, **standings_reader(request, game_id=game.pk))
        return Response(s.StandingRowSerializer(rows, many=True).data)


class GameProgressView(ApiView):
    """How many slips are in for the current round and who is missing; never what a slip says."""

    permission_classes = [IsGameArbitrator]

    @extend_schema(responses=answers({200: s.ProgressSerializer}, 401, 403, 404))
    def get(self, request, game_id: int):
        return Response(s.ProgressSerializer(selectors.game_progress(game=read_game(game_id))).data)


class GameLiveView(PublicView):
    """Polled every second by phones and the projector: reload the rest only when ``version`` changes."""

    @extend_schema(responses=answers({200: s.LiveSerializer}, 404))
    def get(self, request, game_id: int):
        body = reading.live_body(game_id)
        if body is None:
            raise NotFound("not_found", params={"game": game_id, "why": "game"})
        return Response(s.LiveSerializer(body).data)


class GameMeView(ApiView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=answers({200: s.MeSerializer}, 401, 403, 404))
    def get(self, request, game_id: int):
        game = read_game(game_id)
        player = player_of(request)
        round = selectors.current_round(game)
        slip = None
        if round is not None:
            slip = Slip.objects.filter(round=round, player=player, current=True).first()
        body = s.MeSerializer({
            "id": player.pk, "name": player.name, "table": player.table, "game": game.pk,
            "round": round.number if round else None, "round_status": round.status if round else None,
            "provisional": selectors.standings_provisional(game), "slip": slip,
        }).data
        if slip is not None:
            from tournaments.services.topping import topping_answer

            if (tried := topping_answer(slip, round)) is not None:
                body["topping"] = tried  # topping: whether the held try found the top (a reloaded phone)
        return Response(body)


# ---- rounds ---------------------------------------------------------------------------------------------


def drawn(round: Round) -> dict:
    return s.RoundDrawnSerializer(round).data


class RoundsView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.RoundDrawSerializer, responses=answers({201: s.RoundDrawnSerializer}, 400, 401, 403, 404, 409))
    def post(self, request, game_id: int):
        game = get_game(game_id)
        data = valid(s.RoundDrawSerializer, request)
        round = services.round_draw(game=game, rack=data.get("rack"), actor=request.user)
        return Response(drawn(round), status=status.HTTP_201_CREATED)


class RackRejectView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.RackRejectSerializer, responses=answers({201: s.RackRejectedSerializer}, 400, 401, 403, 404, 409))
    def post(self, request, game_id: int):
        game = get_game(game_id)
        data = valid(s.RackRejectSerializer, request)
        rejected = services.rack_reject(game=game, rack=data.get("rack"), actor=request.user)
        game.refresh_from_db(fields=["bag"])
        return Response(s.RackRejectedSerializer({"rejected": rejected, "bag_count": len(game.bag)}).data,
                        status=status.HTTP_201_CREATED)


class RoundView(ApiView):
    permission_classes = [IsGameArbitratorOrPlayer]

    @extend_schema(responses=answers({200: s.RoundDetailSerializer}, 401, 403, 404))
    def get(self, request, game_id: int, number: int):
        round = get_round(read_game(game_id), number)
        return Response(s.RoundDetailSerializer(
            selectors.round_detail(round=round, player=player_of(request), arbitrator=is_arbitrator(request.user))
        ).data)


class RoundStartView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.EmptySerializer, responses=answers({200: s.RoundStartedSerializer}, 401, 403, 404, 409))
    def post(self, request, game_id: int, number: int):
        round = get_round(get_game(game_id), number)
        valid(s.EmptySerializer, request)
        round = services.round_start(round=round, actor=request.user)
        return Response(s.RoundStartedSerializer(round).data)


class RoundCloseView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.EmptySerializer, responses=answers({200: s.RoundClosedSerializer}, 401, 403, 404, 409))
    def post(self, request, game_id: int, number: int):
        round = get_round(get_game(game_id), number)
        valid(s.EmptySerializer, request)
        refuse_if_paused(round)  # a paused round never closes: resume it first
        closed = services.round_close(round=round, actor=request.user)
        round.refresh_from_db(fields=["status"])
        return Response(s.RoundClosedSerializer({"round": round, "closed": closed}).data)


class RoundCompleteView(ApiView):
    """The arbitrator has entered every paper slip of the closed round: its standings are final."""

    permission_classes = [IsGameArbitrator]

    @extend_schema(request=s.EmptySerializer, responses=answers({200: s.RoundCompleteSerializer}, 401, 403, 404, 409))
    def post(self, request, game_id: int, number: int):
        round = get_round(get_game(game_id), number)
        valid(s.EmptySerializer, request)
        round = services.round_slips_complete(round=round, actor=request.user)
        return Response({"number": round.number, "status": round.status, "slips_complete": round.slips_complete,
                         "provisional": selectors.standings_provisional(round.game)})


class RoundMasterView(ApiView):
    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.MasterSerializer, responses=answers({200: s.RoundDetailSerializer}, 400, 401, 403, 404, 409))
    def post(self, request, game_id: int, number: int):
        game = get_game(game_id)
        round = get_round(game, number)
        data = valid(s.MasterSerializer, request)
        ref = checked_ref(data["ref"], game)
        round = services.round_choose_master(round=round, word=data["word"], ref=ref, actor=request.user)
        return Response(s.RoundDetailSerializer(selectors.round_detail(round=round, arbitrator=True)).data)


def slip_body(slip: Slip) -> dict:
    return s.SlipSerializer(slip).data


def slip_answer(slip: Slip, created: bool) -> dict:
    """The answer to a slip handed in: the slip (201), or its key again (200, ``replayed``). A replayed key
    whose slip was replaced since (a newer slip of the player, a correction) answers with the slip the
    server holds now, the replayed one under ``replaced``: a phone retrying an old request is shown what
    counts, never a slip that no longer does."""
    if created or slip.current:
        return s.SlipAnswerSerializer(s.SlipAnswer(slip, replayed=not created)).data
    held = (Slip.objects.filter(round_id=slip.round_id, player_id=slip.player_id, current=True)
            .select_related("round", "entered_by").first())
    if held is None:  # no slip counts for the player (none is ever left without one): the slip as it was
        return s.SlipAnswerSerializer(s.SlipAnswer(slip, replayed=True)).data
    return s.SlipAnswerSerializer(s.SlipAnswer(held, replayed=True, replaced=slip)).data


class SlipsView(ApiView):
    """A player hands in a slip from their phone; the arbitrator enters a paper slip for a player."""

    permission_classes = [IsGameArbitratorOrPlayer]
    throttle_classes = [SlipRateThrottle]

    @extend_schema(
        request=s.SlipRequestSerializer,
        responses=answers(
            {
                201: OpenApiResponse(
                    PolymorphicProxySerializer(
                        component_name="SlipHandedIn", serializers=[s.SlipAnswerSerializer, s.LateSlipSerializer],
                        resource_type_field_name=None,
                    ),
                    description="The slip, held from now on (a late paper slip: kept on record)",
                ),
                200: OpenApiResponse(s.SlipAnswerSerializer, description="The same key again: nothing written"),
            },
            400, 401, 403, 404, 409, 413, 429,
        ),
    )
    def post(self, request, game_id: int, number: int):
        round = get_round_of_game(game_id, number)  # one query for the round, its game and tournament
        game = round.game
        data = valid(s.SlipSubmitSerializer, request)
        ref = checked_ref(data.get("ref"), game)
        entered_by = arbitrator(request)
        if data.get("received_at") is not None:
            if not data.get("late"):
                raise ServiceError("invalid", fields={"received_at": ["only with late: true"]},
                                   params={"why": "received_at"})
            if entered_by is None:  # a late paper slip is the arbitrator's (the schema cannot say who)
                raise Forbidden("not_arbitrator")
        if entered_by is not None and data.get("late"):
            player = services.paper_player(game=game, player=data.get("player"), table=data.get("table"))
            late = services.slip_enter_late(round=round, player=player, word=data["word"], ref=ref,
                                            score=data.get("score"), actor=entered_by,
                                            received_at=data.get("received_at"))
            return Response(late_body(late), status=status.HTTP_201_CREATED)
        try:
            if entered_by is not None:
                slip, created, __ = services.slip_enter_paper(
                    round=round, player=data.get("player"), table=data.get("table"), word=data["word"], ref=ref,
                    score=data.get("score"), key=data.get("key"), choice=data.get("choice"),
                    actor=entered_by, seq=data.get("seq"), now=received_at(request),
                )
            else:
                player = player_of(request)
                if data.get("player") not in (None, player.pk):
                    raise Forbidden("not_your_slip")
                if not data.get("key"):
                    raise ServiceError("invalid", fields={"key": ["This field is required."]}, params={"why": "no_key"})
                slip, created = services.slip_submit(
                    round=round, player=player, word=data["word"], ref=ref, score=data.get("score"),
                    key=data["key"], seq=data.get("seq"), now=received_at(request), sent_ms=data.get("sent_ms"),
                )
        except StaleSlip as stale:
            # The page shows what the server holds: the held slip, as a 200/201 would have answered it.
            stale.fields = {**stale.fields, "slip": slip_body(stale.held)}
            raise
        body = slip_answer(slip, created)
        if entered_by is None:
            from tournaments.services.topping import topping_answer

            if (tried := topping_answer(slip, round)) is not None:
                body["topping"] = tried  # topping: whether this try found the top, and in how many seconds
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ReceiptCheckView(ApiView):
    """The game's arbitrator checks a slip's receipt shown in a dispute: the server's seal, and the slip it
    names as on record."""

    permission_classes = [IsGameArbitrator]

    @extend_schema(request=s.ReceiptSerializer, responses=answers({200: s.ReceiptCheckSerializer}, 400, 401, 403, 404))
    def post(self, request, game_id: int):
        from tournaments.receipts import receipt_check

        game = get_game(game_id)
        shape = s.ReceiptSerializer(data=request.data if isinstance(request.data, dict) else None)
        if not shape.is_valid():  # not a receipt's shape: 400 under "receipt"; what a receipt proves is the check's
            problems = [f"{name}: {' '.join(map(str, errors)) if isinstance(errors, list) else 'not valid'}"
                        for name, errors in shape.errors.items()]
            raise ServiceError("invalid", fields={"receipt": problems}, params={"why": "receipt"})
        return Response(s.ReceiptCheckSerializer(receipt_check(game=game, receipt=request.data)).data)


def late_body(late) -> dict:
    return s.LateSlipSerializer(late).data


class LateAdmitView(ApiView):
    """The arbitrator admits a late slip (the fault was the venue's): judged at once, logged."""

    permission_classes = [IsHeadArbitrator]

    @extend_schema(request=s.LateAdmitSerializer, responses=answers({200: s.RoundDetailSerializer}, 400, 401, 403, 404, 409))
    def post(self, request, game_id: int, number: int, late_id: int):
        round = get_round(get_game(game_id), number)
        late = LateSlip.objects.filter(pk=late_id, round=round).first()
        if late is None:
            raise NotFound("not_found", params={"late": late_id, "round": number, "why": "late_slip"})
        data = valid(s.LateAdmitSerializer, request)
        services.late_slip_admit(late=late, reason=data["reason"], actor=request.user)
        round.refresh_from_db()
        return Response(s.RoundDetailSerializer(selectors.round_detail(round=round, arbitrator=True)).data)


class SlipCorrectView(ApiView):
    permission_classes = [IsGameArbitrator]

    @extend_schema(request=s.CorrectionSerializer, responses=answers({200: s.RoundDetailSerializer}, 400, 401, 403, 404, 409))
    def post(self, request, game_id: int, number: int, slip_id: int):
        game = get_game(game_id)
        round = get_round(game, number)
        slip = Slip.objects.filter(pk=slip_id, round=round).select_related("round", "player").first()
        if slip is None:
            raise NotFound("not_found", params={"slip": slip_id, "round": number, "why": "slip"})
        data = valid(s.CorrectionSerializer, request)
        changes = {name: data[name] for name in ("word", "score") if name in data}
        if "ref" in data:
            changes["ref"] = checked_ref(data["ref"], game)
        services.slip_correct(slip=slip, reason=data["reason"], actor=request.user, **changes)
        round.refresh_from_db()
        return Response(s.RoundDetailSerializer(selectors.round_detail(round=round, arbitrator=True)).data)
