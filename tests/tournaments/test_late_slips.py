"""Late slips on record (rules §4): refused, kept (player, time received, content) without being judged,
the player's result reading late with how late; the arbitrator may admit one with a reason; a paper slip
handed in after the end call is entered as late."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import LateSlip, LogEntry, Result, Round

from .api_support import expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

TOP = {"word": "MELANIC", "ref": "H4", "score": 78}


@pytest.fixture
def closed_round(make_game, make_player):
    game = make_game(round_seconds=60)
    ann, bob = make_player(game, "Ann")[0], make_player(game, "Bob")[0]
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"),
                               now=timezone.now() - timedelta(seconds=61))
    return game, rnd, ann, bob


def test_a_late_slip_is_refused_kept_once_and_the_result_reads_late(closed_round):
    game, rnd, ann, bob = closed_round
    arrived = rnd.deadline + timedelta(seconds=2.5)
    for _ in range(2):  # a phone retrying with the same key is one attempt on record
        with pytest.raises(ServiceError) as caught:
            services.slip_submit(round=rnd, player=ann, **_slip("k1"), now=arrived)
        assert (caught.value.code, caught.value.fields["late_by"]) == ("round_closed", 2.5)
    (late,) = LateSlip.objects.filter(round=rnd)
    assert (late.player, late.word, late.ref, late.claimed, late.received_at, late.late_by) == (
        ann, "MELANIC", "H4", 78, arrived, 2.5)
    rnd.refresh_from_db()
    assert rnd.status == "closed"  # the late slip closed the round on its way
    result = Result.objects.get(round=rnd, player=ann)
    assert (result.paid, result.reason, result.slip) == (0, "late", None) and "2.5 s" in result.message
    assert Result.objects.get(round=rnd, player=bob).reason == "no_slip"


def test_the_arbitrator_admits_a_late_slip_with_a_reason_judged_and_logged(closed_round, arbitrator):
    game, rnd, ann, _ = closed_round
    with pytest.raises(ServiceError):
        services.slip_submit(round=rnd, player=ann, **_slip("k1"), now=rnd.deadline + timedelta(seconds=1))
    late = LateSlip.objects.get(round=rnd, player=ann)
    with pytest.raises(ServiceError, match="reason"):
        services.late_slip_admit(late=late, reason=" ", actor=arbitrator)
    slip = services.late_slip_admit(late=late, reason="the venue's Wi-Fi dropped", actor=arbitrator)
    result = Result.objects.get(round=rnd, player=ann)
    assert (result.slip, result.paid, result.corrected) == (slip, 78, True)
    assert slip.received_at == late.received_at
    entry = LogEntry.objects.get(round=rnd, action="late_admit")
    assert entry.reason == "the venue's Wi-Fi dropped" and entry.actor == arbitrator
    with pytest.raises(ServiceError) as caught:
        services.late_slip_admit(late=late, reason="again", actor=arbitrator)
    assert caught.value.code == "already_admitted"


def test_a_paper_slip_after_the_end_call_is_entered_as_late(closed_round, arbitrator):
    game, rnd, _, bob = closed_round
    services.round_close(round=rnd)
    late = services.slip_enter_late(round=rnd, player=bob, word="MELANIC", ref="H4", score=78, actor=arbitrator)
    assert late.entered_by == arbitrator and late.late_by >= 0
    result = Result.objects.get(round=rnd, player=bob)
    assert (result.paid, result.reason) == (0, "late")


def test_over_http_late_slips_are_shown_to_the_arbitrator_and_admitted(api_game):
    game = api_game(players=2, round_seconds=60)
    arb, (a, b) = game.arbitrator, game.players
    expect(arb.post(f"/api/games/{game.id}/rounds", {"rack": "ACEILMN"}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    Round.objects.filter(game_id=game.id, number=1).update(deadline=timezone.now() - timedelta(seconds=3))
    answer = a.client.post(game.round_url(1, "/slips"), {**TOP, "key": "late-1"}, format="json")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "round_closed"
    detail = expect(arb.get(game.round_url(1)), 200)
    (late,) = detail["late"]
    assert (late["player"], late["word"], late["admitted"]) == (a.id, "MELANIC", False) and late["late_by"] > 0
    assert {r["player"]: r["reason"] for r in detail["results"]}[a.id] == "late"
    admitted = expect(arb.post(game.round_url(1, f"/late/{late['id']}/admit"), {"reason": "power cut"},
                               format="json"), 200)
    assert {r["player"]: r["paid"] for r in admitted["results"]}[a.id] == 78
    # A paper slip handed in after the end call, entered as late.
    entered = expect(arb.post(game.round_url(1, "/slips"), {**TOP, "player": b.id, "late": True}, format="json"), 201)
    assert entered["player"] == b.id and entered["late_by"] >= 0
    assert {r["player"]: r["reason"] for r in expect(arb.get(game.round_url(1)), 200)["results"]}[b.id] == "late"


def _slip(key: str) -> dict:
    return {"word": TOP["word"], "ref": TOP["ref"], "score": TOP["score"], "key": key}


@pytest.mark.django_db(transaction=False)
def test_the_console_lists_late_slips_and_admits_one(closed_round, client, arbitrator):
    game, rnd, ann, _ = closed_round
    with pytest.raises(ServiceError):
        services.slip_submit(round=rnd, player=ann, **_slip("k1"), now=rnd.deadline + timedelta(seconds=4))
    late = LateSlip.objects.get(round=rnd)
    client.force_login(arbitrator)
    page = client.get(f"/console/games/{game.pk}/rounds/{rnd.number}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f'id="late-{late.pk}"' in text and "MELANIC" in text and "4.0" in text
    answer = client.post(f"/console/games/{game.pk}/rounds/{rnd.number}/late/{late.pk}/admit/",
                         {"reason": "router restarted"})
    assert answer.status_code == 302
    assert Result.objects.get(round=rnd, player=ann).paid == 78
    page = client.get(f"/console/games/{game.pk}/rounds/{rnd.number}/").content.decode()
    assert "late slip of Ann admitted" in page and "router restarted" in page
