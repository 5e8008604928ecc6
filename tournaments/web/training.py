"""Training on a past game: the page (``/games/<id>/train``), the slip judged at once (``POST .../judge``), the
result with its signed link (``POST .../result``), and the shared result page (``.../result/<token>``).

No account is needed: the browser keeps the progress; a game closed to training, or not over, answers 404.
A game open to the club's members is shown to anyone without its rounds; a player's phone then asks for
them (``GET .../rounds``) with the token it keeps since the player joined a game of the club, and sends
that token with each slip.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments import services
from tournaments import training_selectors as training
from tournaments.api.parsers import LimitedJSONParser
from tournaments.api.serializers import StrictCharField, StrictIntegerField
from tournaments.api.throttles import AddressRateThrottle
from tournaments.api.views import valid
from tournaments.errors import NotFound
from tournaments.topping_selectors import is_topping
from tournaments.web.language import phone_language
from tournaments.web.views import (
    _labels_config,
    _tile_values,
    board_context,
    outcome_texts,
    phone_texts,
    reason_texts,
)


class TrainingRateThrottle(AddressRateThrottle):
    """Training slips and results per client address (``DEFAULT_THROTTLE_RATES["training"]``)."""

    scope = "training"


class SiteMemberAuthentication(BaseAuthentication):
    """The site's signed-in user (a club member), from the session; nothing is written, so no CSRF check."""

    def authenticate(self, request):
        user = getattr(request._request, "user", None)
        return (user, None) if user is not None and user.is_authenticated else None


def _bearer(request) -> str | None:
    """The player's token the page sends (``Authorization: Bearer <token>``), if any."""
    scheme, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def _visitor(request) -> tuple:
    """(the signed-in user or AnonymousUser, the player's token or None)."""
    return request.user, _bearer(request)


def training_texts() -> dict[str, str]:
    return {
        "round_n": _("Round %(n)s of %(count)s"),
        "your_total": _("Your total"),
        "top_total": _("Tops"),
        "judging": _("Judging…"),
        "is_top": _("Top! %(n)s points"),
        "not_top": _("Paid %(paid)s, the top was %(top)s"),
        "next": _("Next round"),
        "finish": _("See my result"),
        "time_up": _("Time is up"),
        "no_slip": _("No slip: paid 0"),
        "result": _("%(total)s points of %(tops)s: %(percent)s of the top"),
        "rank": _("Rank in the real game: %(rank)s of %(players)s"),
        "share": _("Share this result"),
        "offline": _("No network: try again."),
        "error": _("Not judged: %(message)s"),
        "restart": _("Start again"),
        "tops": _("Tops"),
        # The tied tops past the first few (the verdict shows five), one or more.
        "more_top": _("…and %(n)s more top"),
        "more_tops": _("…and %(n)s more tops"),
        "master": _("Master move"),
        "yours": _("Your slip"),
        # A retry of a round: only the first verdict of a round counts.
        "practice": _("practice: not counted"),
        # Topping: the trainee's time is their score.
        "try_again": _("Not the top (%(n)s s): try again"),
        "top_found_in": _("Top found in %(n)s s"),
        "top_not_found": _("Top not found: %(seconds)s s"),
        "seconds": _("%(n)s s"),
        "result_time": _("%(seconds)s s; top found in %(found)s of %(rounds)s rounds"),
    }


@require_GET
def training_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game replayed alone: each round's board and rack, a slip judged at once, the running totals."""
    try:
        game = training.training_game(game_id, request.user, shell=True)
    except NotFound:
        raise Http404 from None
    tournament = game.tournament
    language = phone_language(request, tournament)
    # A game open to members, for a visitor not signed in: the page without the rounds (see the docstring).
    shown = training.may_train(game, request.user)
    rounds = training.rounds_shown(game) if shown else []
    with translation.override(language):
        context = {
            "game": game,
            "tournament": tournament,
            "board": board_context(rounds[0]["board"] if rounds else None, tournament.coordinates,
                                   tiles=tournament.tiles),
            "config": {
                "game": game.pk,
                "labelling": tournament.coordinates,
                "values": _tile_values(game),
                "round_seconds": tournament.round_seconds,
                "rounds": rounds,
                "members_only": not shown,
                "tournament": tournament.pk,
                "rounds_url": reverse("training-rounds", args=[game.pk]),
                "judge_url": reverse("training-judge", args=[game.pk]),
                # Topping: each round starts on the server's clock and the trainee's time is their score.
                "topping": is_topping(tournament),
                "start_url": reverse("training-start", args=[game.pk]),
                "result_url": reverse("training-result", args=[game.pk]),
                "text": {**phone_texts(), **training_texts()},
                "reasons": reason_texts(),
                "outcomes": outcome_texts(),
                # A set with tiles beyond A-Z (Spanish CH, LL, RR, Ñ): the labels the rack, the board and the
                # verdicts show, and the slip form's keys for them, as on the phone.
                **_labels_config(game),
            },
        }
        response = render(request, "training/train.html", context)
    response["Content-Language"] = language
    return response


@require_GET
def training_result_page(request: HttpRequest, game_id: int, token: str) -> HttpResponse:
    """A shared result: name given, total, percentage of the top, rank in the real game. A forged link: 404."""
    try:
        # The signed link is what is shared: it opens for anyone while the game is open to training.
        game = training.training_game(game_id, request.user, shell=True)
        shown = training.read_result(game, token)
    except NotFound:
        raise Http404 from None
    language = phone_language(request, game.tournament)
    with translation.override(language):
        response = render(request, "training/result.html", {
            "game": game, "tournament": game.tournament, "result": shown,
            "train_url": reverse("training", args=[game.pk]),
        })
    response["Content-Language"] = language
    return response


# The cookie (``training-trainee-<game id>``, signed) by which a visitor's browser is known from one verdict to
# the next, when the training starts again too: only a round's first verdict counts (services.training_trainee).
TRAINEE_COOKIE = "training-trainee-"


class JudgeSerializer(serializers.Serializer):
    round = StrictIntegerField(min_value=1, help_text="The round's number.")
    word = StrictCharField(max_length=15, allow_blank=True, trim_whitespace=True,
                           help_text="The word as written (lowercase: a blank); empty: no slip.")
    ref = StrictCharField(max_length=8, allow_blank=True, required=False, default="", trim_whitespace=True)
    score = StrictIntegerField(min_value=0, max_value=100000, allow_null=True, required=False, default=None)


class ResultSerializer(serializers.Serializer):
    name = StrictCharField(max_length=training.NAME_MAX, allow_blank=True, required=False, default="")
    proofs = serializers.ListField(child=StrictCharField(max_length=500), max_length=500)


class _TrainingApi(APIView):
    """JSON for the training page: anyone (members: signed in, or a player of the tournament by their token), throttled per address, nothing written."""

    authentication_classes = [SiteMemberAuthentication]
    permission_classes = [AllowAny]
    parser_classes = [LimitedJSONParser]
    throttle_classes = [TrainingRateThrottle]


@extend_schema(exclude=True)  # a page's own JSON, outside /api/ (README: Training on a past game)
class TrainingRoundsView(_TrainingApi):
    def get(self, request, game_id: int):
        game = training.training_game(game_id, *_visitor(request))
        return Response({"game": game.pk, "rounds": training.rounds_shown(game)})


def _trainee(request, game) -> tuple[str, str | None]:
    """(who trains, as services.training_trainee keys them; the key their browser's cookie held)."""
    user, token = _visitor(request)
    known = request.get_signed_cookie(f"{TRAINEE_COOKIE}{game.pk}", default=None, salt=training.TRAINEE_SALT)
    return services.training_trainee(game=game, user=user, token=token, known=known), known


def _keep_trainee(request, response, game, trainee: str, known: str | None):
    if trainee.startswith("a") and trainee != known:  # a visitor's key: their browser keeps it
        response.set_signed_cookie(f"{TRAINEE_COOKIE}{game.pk}", trainee, salt=training.TRAINEE_SALT,
                                   path=f"/games/{game.pk}/train", max_age=settings.ARBITER_TRAINING_FIRST_SECONDS,
                                   httponly=True, samesite="Lax", secure=request.is_secure())
    return response


class StartSerializer(serializers.Serializer):
    round = StrictIntegerField(min_value=1, help_text="The round's number.")


@extend_schema(exclude=True)
class TrainingStartView(_TrainingApi):
    """Topping: the trainee's round starts on the server's clock (services.training_start)."""

    def post(self, request, game_id: int):
        game = training.training_game(game_id, *_visitor(request))
        data = valid(StartSerializer, request)
        trainee, known = _trainee(request, game)
        body = services.training_start(game=game, number=data["round"], trainee=trainee)
        return _keep_trainee(request, Response(body), game, trainee, known)


@extend_schema(exclude=True)
class TrainingJudgeView(_TrainingApi):
    def post(self, request, game_id: int):
        game = training.training_game(game_id, *_visitor(request))
        data = valid(JudgeSerializer, request)
        trainee, known = _trainee(request, game)
        response = Response(services.training_judge(game=game, number=data["round"], word=data["word"],
                                                    ref=data["ref"], score=data["score"], trainee=trainee))
        return _keep_trainee(request, response, game, trainee, known)


@extend_schema(exclude=True)
class TrainingResultView(_TrainingApi):
    def post(self, request, game_id: int):
        game = training.training_game(game_id, *_visitor(request))
        data = valid(ResultSerializer, request)
        shown = services.training_result(game=game, name=data["name"], proofs=data["proofs"])
        shown["url"] = reverse("training-result-page", args=[game.pk, shown["token"]])
        return Response(shown)

