"""A late slip keeps the phone's own send time (sent_ms, on its server-corrected clock): the arrival still
decides (refused, 409 round_closed), but the refusal carries sent_before and the arbitrator sees it on the
console beside "late by", to admit the slip when the server or the network held it up. The claim is only
information: garbage is refused (400 bad_sent_ms), an impossible time (before the round started, after the
arrival) is kept as absent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.limits import SENT_MS_MAX
from tournaments.models import LateSlip, Round, Slip

from .api_support import assert_error, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

TOP = {"word": "MELANIC", "ref": "H4", "score": 78}


def _ms(moment) -> int:
    return int(moment.timestamp() * 1000)


def _at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


SECOND = pytest.approx  # a time from whole milliseconds against a deadline with microseconds


@pytest.fixture
def closed_round(make_game, make_player):
    game = make_game(round_seconds=60)
    ann = make_player(game, "Ann")[0]
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"),
                               now=timezone.now() - timedelta(seconds=61))
    return game, rnd, ann


def _late(rnd, player, key, sent_ms, arrived):
    with pytest.raises(ServiceError) as caught:
        services.slip_submit(round=rnd, player=player, **TOP, key=key, now=arrived, sent_ms=sent_ms)
    return caught.value


def test_a_late_slip_keeps_the_phones_send_time_and_the_refusal_says_how_early_it_left(closed_round):
    game, rnd, ann = closed_round
    sent_ms = _ms(rnd.deadline) - 12000
    refusal = _late(rnd, ann, "k1", sent_ms, rnd.deadline + timedelta(seconds=3))
    # The arrival decides: refused as late, whatever the phone says.
    assert (refusal.code, refusal.status) == ("round_closed", 409)
    assert refusal.fields == {"late_by": 3.0, "sent_before": SECOND(12.0, abs=0.002)}
    late = LateSlip.objects.get(round=rnd, player=ann)
    assert (late.late_by, late.sent_at) == (3.0, _at(sent_ms))
    # A retry under the same key is the same attempt: its first send time stays.
    again = _late(rnd, ann, "k1", sent_ms + 5000, rnd.deadline + timedelta(seconds=9))
    assert again.fields == {"late_by": 3.0, "sent_before": SECOND(12.0, abs=0.002)}
    assert LateSlip.objects.get(pk=late.pk).sent_at == _at(sent_ms)


def test_an_impossible_send_time_is_kept_as_absent(closed_round):
    game, rnd, ann = closed_round
    arrived = rnd.deadline + timedelta(seconds=3)
    before_start = rnd.started_at - timedelta(seconds=30)
    after_arrival = arrived + timedelta(seconds=30)
    for key, sent in (("early", before_start), ("future", after_arrival)):
        refusal = _late(rnd, ann, key, _ms(sent), arrived)
        assert refusal.fields == {"late_by": 3.0}, key
        assert LateSlip.objects.get(round=rnd, key=key).sent_at is None
    # Sent after the end call (the phone's clock a little ahead): kept, but it left no earlier than the end.
    after_end = _ms(rnd.deadline) + 1000
    refusal = _late(rnd, ann, "after-end", after_end, arrived)
    assert refusal.fields == {"late_by": 3.0}
    assert LateSlip.objects.get(round=rnd, key="after-end").sent_at == _at(after_end)
    # Without a send time, as before.
    assert _late(rnd, ann, "none", None, arrived).fields == {"late_by": 3.0}


@pytest.mark.parametrize("sent_ms", ["soon", -1, SENT_MS_MAX + 1, 1.5, True])
def test_a_send_time_that_is_not_a_time_is_refused_and_changes_nothing(closed_round, sent_ms):
    game, rnd, ann = closed_round
    with pytest.raises(ServiceError) as caught:
        services.slip_submit(round=rnd, player=ann, **TOP, key="k", now=rnd.deadline + timedelta(seconds=1),
                             sent_ms=sent_ms)
    assert (caught.value.code, caught.value.status) == ("bad_sent_ms", 400)
    assert not LateSlip.objects.exists()
    assert Round.objects.get(pk=rnd.pk).status == "open"  # not even the close it would have made


def test_over_http_the_send_time_goes_to_the_arbitrator_and_the_console(api_game, client, arbitrator):
    game = api_game(players=2, round_seconds=60)
    arb, (a, b) = game.arbitrator, game.players
    expect(arb.post(f"/api/games/{game.id}/rounds", {"rack": "ACEILMN"}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    # In time, the send time changes nothing.
    expect(b.client.post(game.round_url(1, "/slips"), {**TOP, "key": "b", "sent_ms": _ms(timezone.now())},
                         format="json"), 201)
    deadline = timezone.now() - timedelta(seconds=3)
    Round.objects.filter(game_id=game.id, number=1).update(deadline=deadline,
                                                           started_at=deadline - timedelta(seconds=60))
    sent_ms = _ms(deadline) - 12000
    answer = a.client.post(game.round_url(1, "/slips"), {**TOP, "key": "late-1", "sent_ms": sent_ms},
                           format="json")
    assert answer.status_code == 409
    error = answer.json()["error"]
    assert error["code"] == "round_closed" and error["fields"]["sent_before"] == SECOND(12.0, abs=0.002)
    assert error["fields"]["late_by"] >= 3
    (late,) = expect(arb.get(game.round_url(1)), 200)["late"]
    assert late["sent_before"] == SECOND(12.0, abs=0.002)
    assert datetime.fromisoformat(late["sent_at"]) == _at(sent_ms)
    # Garbage is refused before anything is written, naming the field.
    refused = assert_error(a.client.post(game.round_url(1, "/slips"), {**TOP, "key": "x", "sent_ms": "soon"},
                                         format="json"), 400)
    assert "sent_ms" in refused["fields"]
    assert LateSlip.objects.count() == 1 and Slip.objects.count() == 1

    # The console's round page: "late by" and, beside it, how long before the end the phone sent it.
    client.force_login(arbitrator)
    page = client.get(f"/console/games/{game.id}/rounds/1/").content.decode()
    row = page[page.index(f'id="late-{late["id"]}"'):]
    row = row[:row.index("</tr>")]
    assert '<td class="num sent-before"' in row and ">12.0</td>" in row, row
    assert "Sent before the end (s), by the phone" in page


@pytest.mark.django_db(transaction=True)
def test_the_fast_slip_path_serves_the_send_time_alike(make_game, make_player, settings):
    """Through the ASGI application as uvicorn serves it: a slip with sent_ms is answered before Django
    (tournaments/api/fast.py), in time as late; garbage goes on to Django, which refuses it."""
    from tournaments.api import fast

    from .api_support import asgi_post

    settings.ALLOWED_HOSTS = ["localhost"]
    game = make_game(round_seconds=60)
    (_, ann_token), (bob, bob_token) = make_player(game, "Ann"), make_player(game, "Bob")
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"))
    url = f"/api/games/{game.pk}/rounds/1/slips"
    before = fast.served["fast"]
    status, _, body = asgi_post(url, {**TOP, "key": "a", "sent_ms": _ms(timezone.now())}, f"Bearer {ann_token}")
    assert (status, fast.served["fast"] - before) == (201, 1)
    status, _, body = asgi_post(url, {**TOP, "key": "g", "sent_ms": "soon"}, f"Bearer {bob_token}")
    assert (status, fast.served["fast"] - before) == (400, 1) and "sent_ms" in body["error"]["fields"]

    deadline = timezone.now() - timedelta(seconds=2)
    Round.objects.filter(pk=rnd.pk).update(deadline=deadline, started_at=deadline - timedelta(seconds=60))
    status, _, body = asgi_post(url, {**TOP, "key": "b", "sent_ms": _ms(deadline) - 7000}, f"Bearer {bob_token}")
    assert (status, body["error"]["code"], fast.served["fast"] - before) == (409, "round_closed", 2)
    assert body["error"]["fields"]["sent_before"] == SECOND(7.0, abs=0.002)
    assert LateSlip.objects.get(player=bob).sent_at == _at(_ms(deadline) - 7000)


def test_the_game_record_keeps_the_send_time_and_a_restore_gives_it_back(closed_round, arbitrator):
    import json

    from tournaments.exports import export_record, restore_record

    game, rnd, ann = closed_round
    sent_ms = _ms(rnd.deadline) - 9000
    _late(rnd, ann, "k1", sent_ms, rnd.deadline + timedelta(seconds=2))
    services.round_close(round=Round.objects.get(pk=rnd.pk))
    record = json.loads(json.dumps(export_record(game)))
    (late,) = record["rounds"][0]["late_slips"]
    assert datetime.fromisoformat(late["sent_at"]) == _at(sent_ms)

    restored = restore_record(record=record, actor=arbitrator)
    again = LateSlip.objects.get(round__game=restored)
    assert (again.sent_at, again.late_by) == (_at(sent_ms), 2.0)
