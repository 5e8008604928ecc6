"""The player's review of a game (``/games/<id>/review``) and the JSON it reads (``review.json``).

The page is a shell in the reader's language; the rounds come from ``review.json?round=N``, asked with the
player's bearer token (kept by the phone, static/js/phone/store.js) or, for an arbitrator of the game, with
the console's session and ``?player=<id>``.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from rest_framework.exceptions import AuthenticationFailed

from tournaments import review_selectors as review
from tournaments.api.authentication import PlayerTokenAuthentication
from tournaments.errors import ServiceError, error_body
from tournaments.models import Game
from tournaments.refusals import error_text
from tournaments.services import role_of
from tournaments.typography import typeset
from tournaments.web.language import phone_language
from tournaments.web.views import _labels_config, board_context, outcome_texts, reason_texts
from tournaments.wording import found_top_text


def refusal_text(error: ServiceError) -> str:
    """A refusal in the reader's language and typography, from its code and params."""
    return typeset(error_text(error))


def review_texts() -> dict[str, str]:
    return {
        "round_n": _("Round %(n)s"),
        "of_rounds": _("Round %(n)s of %(count)s reviewable"),
        "rank": _("Your play ranks %(rank)s of %(count)s plays."),
        "not_legal": _("Your slip is not among the %(count)s legal plays."),
        "no_slip": _("No slip: %(count)s legal plays."),
        "points": _("%(n)s points"),
        "no_play": _("no play possible"),
        "blank": _("blank"),
        "claimed": _("claimed %(n)s"),
        "no_score": _("no score written"),
        "paid": _("paid %(n)s"),
        "none": _("none"),
        "loss": _("Round %(n)s: %(paid)s of %(top)s (−%(loss)s)"),
        "found_item": _("Round %(n)s: %(word)s"),
        "missed_item": _("Round %(n)s: %(word)s %(ref)s, %(score)s"),
        "total": _("%(total)s of %(top)s points (%(percent)s)"),
        "loading": _("Loading…"),
        "offline": _("No network: try again."),
        "yours": _("your play"),
        "corrected": _("corrected by the arbitrator"),
        "table": _("table %(n)s"),
        # Topping: the player's time in a round, and over the game.
        "time_found": _("Top found in %(n)s s: %(seconds)s s"),
        "time_not_found": _("Top not found: %(seconds)s s"),
        "times": _("%(seconds)s s in all; top found in %(found)s of %(rounds)s rounds"),
    }


def ordinal(n: int, lang: str) -> str:
    """1st, 2nd, 14th / 1er, 2e, 14e."""
    if lang == "fr":
        return "1er" if n == 1 else f"{n}e"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@require_GET
def review_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The review: in the tournament's language unless this browser chose another one."""
    game = get_object_or_404(Game.objects.select_related("tournament"), pk=game_id)
    language = phone_language(request, game.tournament)
    asked = request.GET.get("player", "")
    with translation.override(language):
        arbitrator = role_of(game.pk, request.user) is not None
        config = {
            "game": game.pk,
            "labelling": game.tournament.coordinates,
            "tournament": game.tournament_id,
            "data_url": reverse("game-review-data", args=[game.pk]),
            "player": asked if arbitrator else "",
            "round": request.GET.get("round", ""),
            "text": review_texts(),
            "reasons": reason_texts(),
            "outcomes": outcome_texts(),
            **_labels_config(game),
        }
        context = {"game": game, "tournament": game.tournament, "config": config,
                   "board": board_context(None, game.tournament.coordinates),
                   "back_url": reverse("console-player", args=[game.pk, asked])
                   if arbitrator and asked.isdigit() else reverse("phone", args=[game.pk])}
        response = render(request, "review/review.html", context)
    response["Content-Language"] = language
    return response


def _error(error: ServiceError) -> JsonResponse:
    return JsonResponse(error_body(error.code, refusal_text(error), error.fields, error.params), status=error.status)


@never_cache
@require_GET
def review_data(request: HttpRequest, game_id: int) -> JsonResponse:
    """One round of the review and the summary. ``Authorization: Bearer <player token>`` for the player's
    own review; the console's session of an arbitrator of the game with ``?player=<id>`` for any player's.
    ``?round=N`` (the first reviewable round by default)."""
    game = get_object_or_404(Game.objects.select_related("tournament"), pk=game_id)
    language = phone_language(request, game.tournament)
    with translation.override(language):
        try:
            found = PlayerTokenAuthentication().authenticate_for_game(request, game.pk)
        except AuthenticationFailed:
            return _error(ServiceError("review_not_authenticated", status=401, params={"why": "bad_token"}))
        try:
            if found is not None and found[0].player is None:
                raise ServiceError("not_a_player", status=403)
            player = review.reviewer(game, player=found[0].player if found else None,
                                     arbitrator=not found and role_of(game.pk, request.user) is not None,
                                     asked_player=request.GET.get("player"))
            body = review.player_review(game, player, request.GET.get("round"))
        except ServiceError as error:
            return _error(error)
        mine = body["round"]["mine"]
        if mine["rank"] is not None:
            mine["rank_text"] = ordinal(mine["rank"], language)
        found = body["round"]["found_top"]
        found["text"] = typeset(found_top_text(found["found"], found["players"]))
        more, best = body["round"]["tied_more"], body["round"]["best"]
        body["round"]["tied_more_text"] = typeset(ngettext(
            "…and %(n)s more play tied at %(score)s points.", "…and %(n)s more plays tied at %(score)s points.",
            more) % {"n": more, "score": best[-1]["score"]}) if more and best else ""
        for play in body["round"]["best"]:
            play["rank_text"] = ordinal(play["rank"], language)
    response = JsonResponse(body)
    response["Content-Language"] = language
    return response
