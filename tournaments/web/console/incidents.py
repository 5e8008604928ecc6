"""Incidents at the console, on the round screen: pause and resume the clock, extend the round, cancel it
(with a confirmation), replace a mistyped rack; the arbitrators' roles in a game; and who may press what
(the head runs the game, assistants enter and correct slips)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import GamePack, Round
from tournaments.refusals import error_text
from tournaments.services import HEAD, arbitrators, max_extend_seconds, role_of

from . import queries
from .access import arbitrator_required, head_required, refusal_json, report_error, wants_json


def _refused(request: HttpRequest, game_id: int, error: ServiceError) -> HttpResponse:
    if wants_json(request):
        return refusal_json(error.code, error_text(error), error.status, error.fields)
    report_error(request, error)
    return redirect("console-game", game_id=game_id)


def clock_text(seconds: float | None) -> str:
    whole = max(0, int(-(-(seconds or 0) // 1)))  # rounded up, as the countdowns show it
    return f"{whole // 60}:{whole % 60:02d}"


def incident_context(game, context: dict, user) -> dict:
    """What the round screen adds for incidents and roles to panel_context's: the pause, the buttons the
    user's role allows, the round cancelled last."""
    round = context.get("round")
    is_head = role_of(game.pk, user) == HEAD
    status = round.status if round is not None else None
    paused = status == Round.Status.OPEN and round.paused_at is not None
    latest = game.rounds.order_by("-id").only("number", "status", "cancel_reason").first()
    cancelled = latest if latest is not None and latest.status == Round.Status.CANCELLED and latest.cancel_reason \
        else None
    extra = {
        "is_head": is_head,
        "paused": paused,
        "paused_time": clock_text(round.time_left) if paused else "",
        "can_pause": is_head and status == Round.Status.OPEN and not paused,
        "can_resume": is_head and paused,
        "can_extend": is_head and status == Round.Status.OPEN,
        "can_cancel": is_head and status in (Round.Status.DRAWN, Round.Status.OPEN),
        # A sealed pack's rack is the pack's: no rack is replaced (services.round_fix_rack refuses it).
        "can_fix_rack": is_head and status == Round.Status.DRAWN and not GamePack.objects.filter(game_id=game.pk).exists(),
        "max_extend": max_extend_seconds(),
        "incidents": list(round.incidents) if round is not None else [],
        "cancelled": cancelled,
    }
    if not is_head:  # an assistant enters and corrects slips: no clock, rack, master or end
        extra.update(can_start=False, can_close=False, can_draw=False, can_end=False, can_choose_master=False)
    elif paused:
        extra["can_close"] = False
    return extra


def _act(request: HttpRequest, game_id: int, number: int, action, done: str) -> HttpResponse:
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    try:
        action(round)
    except ServiceError as error:
        return _refused(request, game.pk, error)
    messages.success(request, done)
    return redirect("console-game", game_id=game.pk)


@head_required
@require_POST
def round_pause(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    reason = request.POST.get("reason", "")
    return _act(request, game_id, number,
                lambda round: services.round_pause(round=round, reason=reason, actor=request.user),
                _("Round %(number)s: the clock is paused. Slips are refused until it runs again.") % {"number": number})


@head_required
@require_POST
def round_resume(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    reason = request.POST.get("reason", "")
    return _act(request, game_id, number,
                lambda round: services.round_resume(round=round, reason=reason, actor=request.user),
                _("Round %(number)s: the clock runs again.") % {"number": number})


@head_required
@require_POST
def round_extend(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    text = request.POST.get("seconds", "").strip()
    seconds = int(text) if text.isdigit() else -1
    reason = request.POST.get("reason", "")
    return _act(request, game_id, number,
                lambda round: services.round_extend(round=round, seconds=seconds, reason=reason, actor=request.user),
                _("Round %(number)s extended by %(seconds)s s.") % {"number": number, "seconds": text})


@head_required
@require_POST
def round_cancel(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    reason = request.POST.get("reason", "")
    return _act(request, game_id, number,
                lambda round: services.round_cancel(round=round, reason=reason, actor=request.user),
                _("Round %(number)s cancelled: its letters are back in the bag. Draw it again.") % {"number": number})


@head_required
@require_POST
def round_fix_rack(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    rack = "".join(request.POST.get("rack", "").split()).upper()
    reason = request.POST.get("reason", "")
    return _act(request, game_id, number,
                lambda round: services.round_fix_rack(round=round, rack=rack, reason=reason, actor=request.user),
                _("Round %(number)s: the rack is now %(rack)s.") % {"number": number, "rack": rack})


@arbitrator_required
def arbitrators_page(request: HttpRequest, game_id: int) -> HttpResponse:
    from .texts import game_breadcrumbs

    game = queries.game(game_id)
    staff = get_user_model().objects.filter(is_staff=True, is_active=True).order_by("username")
    return render(request, "console/arbitrators.html", {
        "section": "tournaments", "tab": "arbitrators", "game": game,
        "arbitrators": arbitrators(game), "you": role_of(game.pk, request.user),
        "staff": [user.get_username() for user in staff],
        "breadcrumbs": game_breadcrumbs(game, (_("Arbitrators"), None)),
    })


@head_required
@require_POST
def arbitrator_set(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    user, role = request.POST.get("user", ""), request.POST.get("role", "")
    try:
        services.arbitrator_set(game=game, username=user, role=role, actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        messages.success(request, _("%(user)s: %(role)s.") % {"user": user, "role": role_text(role)})
    return redirect("console-arbitrators", game_id=game.pk)


def role_text(role: str | None) -> str:
    return {"head": _("head arbitrator"), "assistant": _("assistant arbitrator")}.get(role or "", _("no role"))
