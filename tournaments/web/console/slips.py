"""Paper slips typed in by table number, and corrections of any slip of any round."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from tournaments import selectors, services, versions
from tournaments.errors import ServiceError
from tournaments.models import Result, Round
from tournaments.refusals import error_text
from tournaments.services import slip_text
from tournaments.typography import elided
from tournaments.web.forms import CorrectionForm, SlipEntryForm

from . import paper, queries
from .access import (
    arbitrator_required,
    head_required,
    refusal_json,
    report_error,
    report_form_errors,
    wants_json,
)
from .texts import canonical_ref, game_breadcrumbs, round_status_text


@arbitrator_required
def slips_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = queries.game(game_id)
    drawn = versions.drawn_mark(game.pk)
    round = selectors.current_round(game)
    progress = selectors.round_progress(round=round) if round is not None else None
    return render(request, "console/slips.html", {
        "drawn_mark": drawn,
        "section": "tournaments",
        "tab": "slips",
        "game": game,
        "round": round,
        "round_status_text": round_status_text(round.status if round else None, round.cancel_reason if round else ""),
        "accepting": round is not None and round.status in (Round.Status.OPEN, Round.Status.CLOSED),
        "after_close": round is not None and round.status == Round.Status.CLOSED,
        "progress": progress,
        "form": SlipEntryForm(),
        "paper_state": paper.page_state(game, round),
        "slip_texts": {
            "recorded": _("Recorded"),
            "replaced": _("Recorded (replaces the earlier slip)"),
            "again": _("Already recorded"),
            "refused": _("Refused"),
            "network": _("Not sent: no answer from the server. Press Enter again."),
            "table": pgettext("table abbreviation", "T."),
            "sending": _("Sending…"),
            "edit": _("Edit"),
            "replaced_later": _("Replaced by a later slip"),
            "second": _("Second slip: paid 0"),
            "cancelled": _("Cancelled: nothing recorded"),
            "cancelled_banner": _("Table %(table)s: entry cancelled, nothing recorded."),
            "paid": _("paid %(n)s"),
            "no_table": _("No player sits at table %(table)s."),
            "shared_table": _("Several players sit at table %(table)s: correct the tables."),
            "not_in_rack": _("Letters not in the rack %(rack)s: %(letters)s"),
            "bad_mark": _("A ? marks the one letter after it as a blank."),
            "blank": _("blank"),
        },
        "breadcrumbs": game_breadcrumbs(game, (_("Paper slips"), None)),
    })


@arbitrator_required
@require_POST
def slip_enter(request: HttpRequest, game_id: int) -> HttpResponse:
    """One paper slip: the table names the player; the slip goes to the round shown on the page.

    Answers JSON to the page's script (the entry stays on the page); a plain form post is redirected back.
    """
    game = queries.game(game_id)
    as_json = wants_json(request)
    form = SlipEntryForm(request.POST)
    if not form.is_valid():
        if as_json:
            first = next(iter(form.errors))
            return refusal_json("invalid", f"{form.fields[first].label}: {form.errors[first][0]}"
                            if first in form.fields else form.errors[first][0], 400,
                            {name: list(errors) for name, errors in form.errors.items()})
        report_form_errors(request, form)
        return redirect("console-slips", game_id=game.pk)
    data = form.cleaned_data
    try:
        data["word"] = paper.typed_word(game, data["word"])  # SA?LAD: a blank L; case makes no blank
        round = selectors.current_round(game)
        wanted = request.POST.get("round")
        if round is None or (wanted and wanted != str(round.number)):
            raise ServiceError("round_changed", status=409)
        # In a closed round: a paper slip handed in before the end call, typed after the close (the service
        # judges it at once, as for the API).
        slip, created, player = services.slip_enter_paper(
            round=round, table=data["table"], word=data["word"], ref=data["ref"] or None, score=data["score"],
            key=data["key"] or None, choice=request.POST.get("choice", ""), actor=request.user,
        )
    except ServiceError as error:
        fields = {("table" if name == "player" else name): value for name, value in (error.fields or {}).items()}
        if as_json:
            return refusal_json(error.code, error_text(error), error.status, fields)
        report_error(request, error)
        return redirect("console-slips", game_id=game.pk)
    progress = selectors.round_progress(round=round)
    if as_json:
        return JsonResponse({
            "created": created,
            "round": round.number,
            "player": {"id": player.pk, "name": player.name, "table": player.table},
            "slip": {"id": slip.pk, "word": slip.word, "ref": canonical_ref(slip.ref, game.tournament.coordinates),
                     "claimed": slip.claimed},
            "progress": {"received": progress["received"], "players": progress["players"],
                         "missing": progress["missing"]},
            # The slip as the page lists it, with what it was paid when the round is already closed.
            "entry": paper.entry_row(slip, Result.objects.filter(round=round, slip=slip).first(),
                                     game.tournament.coordinates),
        }, status=201 if created else 200)
    messages.success(request, _("Table %(table)s (%(name)s): %(slip)s recorded.") % {
        "table": player.table, "name": player.name, "slip": slip_text(slip)})
    return redirect("console-slips", game_id=game.pk)


@arbitrator_required
@require_POST
def slip_correct(request: HttpRequest, game_id: int, slip_id: int) -> HttpResponse:
    game = queries.game(game_id)
    slip = queries.slip_of(game, slip_id)
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        report_form_errors(request, form)
    else:
        data = form.cleaned_data
        try:
            corrected = services.slip_correct(
                slip=slip, reason=data["reason"], actor=request.user,
                word=paper.typed_word(game, data["word"]) if data["word"] else None, ref=data["ref"] or None,
                score=data["score"],
            )
        except ServiceError as error:
            report_error(request, error)
        else:
            messages.success(request, elided(_("Slip of %(name)s corrected: %(slip)s.") % {
                "name": slip.player.name, "slip": slip_text(corrected)}, slip.player.name))
    return redirect("console-round", game_id=game.pk, number=slip.round.number)


@arbitrator_required
@require_POST
def slip_add(request: HttpRequest, game_id: int, number: int, player_id: int) -> HttpResponse:
    """A slip for a player who has none in a closed round (a paper slip found late): judged and logged."""
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    player = queries.player_of(game, player_id)
    form = CorrectionForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["word"]:
        if form.is_valid():
            form.add_error("word", _("This field is required."))
        report_form_errors(request, form)
    else:
        data = form.cleaned_data
        try:
            added = services.slip_add(
                round=round, player=player, word=paper.typed_word(game, data["word"]), ref=data["ref"] or None,
                score=data["score"], reason=data["reason"], actor=request.user,
            )
        except ServiceError as error:
            report_error(request, error)
        else:
            messages.success(request, elided(_("Slip of %(name)s added: %(slip)s.") % {
                "name": player.name, "slip": slip_text(added)}, player.name))
    return redirect("console-round", game_id=game.pk, number=round.number)


def handed_in_at(text: str, round: Round, now: datetime | None = None) -> datetime | None:
    """The time of day typed on the console ("20:15" or "20:15:30", the server's time zone) as a time: today,
    or yesterday when today's is still to come and yesterday's is after the round started (a round that
    ran past midnight). Empty: None (now). Not a time of day: 400 ``bad_received_at``."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        moment = time.fromisoformat(text)
    except ValueError:
        raise ServiceError("bad_received_at", fields={"received_at": ["not a time of day"]},
                           params={"why": "time_of_day", "text": text[:20]}) from None
    now = now or timezone.now()
    at = timezone.make_aware(datetime.combine(timezone.localdate(now), moment.replace(tzinfo=None)))
    if at > now and round.started_at is not None and at - timedelta(days=1) >= round.started_at:
        at -= timedelta(days=1)
    return at


@arbitrator_required
@require_POST
def late_enter(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    """A paper slip handed in after the end call (the table names the player), with the time it was handed
    in (empty: now): on record, paid 0, late by counted from that time."""
    game = queries.game(game_id)
    round = queries.round_of(game, number)
    form = SlipEntryForm(request.POST)
    if not form.is_valid():
        report_form_errors(request, form)
        return redirect("console-slips", game_id=game.pk)
    data = form.cleaned_data
    try:
        received_at = handed_in_at(request.POST.get("received_at", ""), round)
        player = services.paper_player(game=game, table=data["table"])
        late = services.slip_enter_late(round=round, player=player, word=paper.typed_word(game, data["word"]),
                                        ref=data["ref"] or None, score=data["score"], actor=request.user,
                                        received_at=received_at)
    except ServiceError as error:
        report_error(request, error)
    else:
        messages.success(request, elided(_("Late slip of %(name)s (table %(table)s) entered: late by %(seconds)s s.") % {
            "name": player.name, "table": player.table, "seconds": formats.number_format(late.late_by, 1)}, player.name))
    return redirect("console-slips", game_id=game.pk)


@head_required
@require_POST
def late_admit(request: HttpRequest, game_id: int, number: int, late_id: int) -> HttpResponse:
    """Admit a late slip (the fault was the venue's): judged at once and logged with the reason given."""
    from django.http import Http404

    from tournaments.models import LateSlip

    game = queries.game(game_id)
    round = queries.round_of(game, number)
    late = LateSlip.objects.filter(pk=late_id, round=round).select_related("player").first()
    if late is None:
        raise Http404
    try:
        admitted = services.late_slip_admit(late=late, reason=request.POST.get("reason", ""), actor=request.user)
    except ServiceError as error:
        report_error(request, error)
    else:
        messages.success(request, elided(_("Late slip of %(name)s admitted: %(slip)s.") % {
            "name": late.player.name, "slip": slip_text(admitted)}, late.player.name))
    return redirect("console-round", game_id=game.pk, number=round.number)
