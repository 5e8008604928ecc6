"""A late paper slip counts its lateness from when it was handed in, as the arbitrator says (a time of day on
the console, an ISO time in the API's optional received_at; left out: now), not from when it was typed. The
time is checked: not in the future, not before the round started (400 bad_received_at, nothing recorded)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import LateSlip, LogEntry, Result
from tournaments.web.console.slips import handed_in_at

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

TOP = {"word": "MELANIC", "ref": "H4", "score": 78}


@pytest.fixture
def closed_round(make_game, make_player):
    """A 60 s round that started 100 s ago (on a whole second), closed: its end call 40 s ago."""
    game = make_game(round_seconds=60)
    ann, bob = make_player(game, "Ann", table=1)[0], make_player(game, "Bob", table=2)[0]
    started = timezone.now().replace(microsecond=0) - timedelta(seconds=100)
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"), now=started)
    services.round_close(round=rnd)
    rnd.refresh_from_db()
    assert rnd.deadline == started + timedelta(seconds=60) and rnd.closed_at > rnd.deadline
    return game, rnd, ann, bob


def _api(client, game, rnd, **body):
    return client.post(f"/api/games/{game.pk}/rounds/{rnd.number}/slips", {**TOP, **body}, format="json")


def test_the_api_takes_the_time_it_was_handed_in(closed_round, arbitrator_client):
    game, rnd, _, bob = closed_round
    handed = rnd.deadline + timedelta(seconds=10)
    answer = _api(arbitrator_client, game, rnd, player=bob.pk, late=True, received_at=handed.isoformat())
    assert answer.status_code == 201, answer.content
    assert answer.json()["late_by"] == 10.0
    late = LateSlip.objects.get(round=rnd, player=bob)
    assert (late.received_at, late.late_by) == (handed, 10.0)
    assert "10.0 s" in Result.objects.get(round=rnd, player=bob).message
    entry = LogEntry.objects.get(round=rnd, action="late_enter")
    assert entry.after["late_by"] == 10.0 and entry.after["received_at"] == handed.isoformat()


def test_left_out_it_is_now(closed_round, arbitrator_client):
    game, rnd, ann, _ = closed_round
    answer = _api(arbitrator_client, game, rnd, player=ann.pk, late=True)
    assert answer.status_code == 201 and answer.json()["late_by"] >= 40


@pytest.mark.parametrize(("when", "why"), [
    (lambda rnd: timezone.now() + timedelta(minutes=5), "in the future"),
    (lambda rnd: rnd.started_at - timedelta(seconds=1), "the round started at"),
    (lambda rnd: "2026-11-25T20:15:00", "ISO 8601"),  # no zone: whose clock?
    (lambda rnd: "yesterday", "ISO 8601"),
])
def test_a_wrong_time_is_refused_clearly_and_records_nothing(closed_round, arbitrator_client, when, why):
    game, rnd, _, bob = closed_round
    value = when(rnd)
    answer = _api(arbitrator_client, game, rnd, player=bob.pk, late=True,
                  received_at=value if isinstance(value, str) else value.isoformat())
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert "received_at" in error["fields"] and why in error["message"] + " ".join(error["fields"]["received_at"])
    assert not LateSlip.objects.filter(round=rnd).exists()
    assert Result.objects.get(round=rnd, player=bob).reason == "no_slip"


def test_received_at_goes_only_with_a_late_paper_slip(closed_round, arbitrator_client):
    game, rnd, _, bob = closed_round
    answer = _api(arbitrator_client, game, rnd, player=bob.pk, received_at=rnd.deadline.isoformat())
    assert answer.status_code == 400 and "received_at" in answer.json()["error"]["fields"]
    assert not LateSlip.objects.exists() and Result.objects.get(round=rnd, player=bob).slip is None


def test_the_service_refuses_the_same_way(closed_round, arbitrator):
    _, rnd, _, bob = closed_round
    with pytest.raises(ServiceError) as refused:
        services.slip_enter_late(round=rnd, player=bob, **{"word": "MELANIC", "ref": "H4", "score": 78},
                                 actor=arbitrator, received_at=timezone.now() + timedelta(seconds=30))
    assert (refused.value.code, refused.value.params["why"]) == ("bad_received_at", "future")
    assert not LateSlip.objects.exists()


def test_the_console_takes_a_time_of_day(closed_round, console):
    game, rnd, _, bob = closed_round
    page = console.get(reverse("console-slips", args=[game.pk])).content.decode()
    assert 'id="late-paper-form"' in page and 'name="received_at"' in page
    handed = timezone.localtime(rnd.deadline + timedelta(seconds=7)).strftime("%H:%M:%S")
    answer = console.post(reverse("console-late-enter", args=[game.pk, rnd.number]),
                          {"table": "2", "word": "MELANIC", "ref": "H4", "score": "78", "received_at": handed},
                          follow=True)
    late = LateSlip.objects.get(round=rnd, player=bob)
    assert late.late_by == 7.0 and late.entered_by == console.user
    assert "late by 7.0 s" in answer.content.decode()
    # In the future: refused in the page's language, nothing more recorded.
    future = timezone.localtime(timezone.now() + timedelta(minutes=3)).strftime("%H:%M")
    if future > timezone.localtime(timezone.now()).strftime("%H:%M"):  # not across midnight
        answer = console.post(reverse("console-late-enter", args=[game.pk, rnd.number]),
                              {"table": "1", "word": "MELANIC", "received_at": future}, follow=True,
                              HTTP_ACCEPT_LANGUAGE="fr")
        assert "dans le futur" in answer.content.decode()
        assert LateSlip.objects.filter(round=rnd).count() == 1
    answer = console.post(reverse("console-late-enter", args=[game.pk, rnd.number]),
                          {"table": "1", "word": "MELANIC", "received_at": "25:99"}, follow=True)
    assert "25:99 is not a time of day (20:15 or 20:15:30)" in answer.content.decode()
    assert LateSlip.objects.filter(round=rnd).count() == 1


def test_a_time_of_day_past_midnight_is_read_as_the_evening_before(closed_round):
    _, rnd, _, _ = closed_round
    tz = timezone.get_current_timezone()
    now = datetime(2026, 11, 26, 0, 2, tzinfo=tz)
    rnd.started_at = datetime(2026, 11, 25, 23, 50, tzinfo=tz)
    assert handed_in_at("23:58:30", rnd, now=now) == datetime(2026, 11, 25, 23, 58, 30, tzinfo=tz)
    assert handed_in_at("00:01", rnd, now=now) == datetime(2026, 11, 26, 0, 1, tzinfo=tz)
    assert handed_in_at("  ", rnd, now=now) is None


def test_a_player_giving_a_hand_in_time_is_refused_as_not_an_arbitrator(make_game, make_player, player_client):
    """The schema allows received_at with late: true (it cannot say who calls): a player sending both is refused
    403 not_arbitrator, nothing recorded; without late: true it stays 400, as the schema forbids it."""
    game = make_game(round_seconds=60)
    ann, token = make_player(game, "Ann", table=1)
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"))
    phone = player_client(token)
    answer = _api(phone, game, rnd, key="k1", late=True, received_at=timezone.now().isoformat())
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_arbitrator", answer.content
    answer = _api(phone, game, rnd, key="k2", received_at=timezone.now().isoformat())
    assert answer.status_code == 400 and "received_at" in answer.json()["error"]["fields"], answer.content
    assert not rnd.slips.exists() and not LateSlip.objects.exists()


def test_the_schema_says_received_at_goes_only_with_late():
    from drf_spectacular.generators import SchemaGenerator
    from jsonschema import Draft4Validator

    slip = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]["SlipRequest"]
    rule = {"anyOf": slip["anyOf"]}
    assert Draft4Validator(rule).is_valid({"word": "A", "key": "k"})
    assert Draft4Validator(rule).is_valid({"word": "A", "key": "k", "late": True, "received_at": "2026-11-25T20:15:00Z"})
    assert not Draft4Validator(rule).is_valid({"word": "A", "key": "k", "received_at": "2026-11-25T20:15:00Z"})
    assert not Draft4Validator(rule).is_valid({"word": "A", "key": "k", "late": False, "received_at": "2026-11-25T20:15:00Z"})
