"""The order of a player's slips: a slip made before the one held never replaces it, however late its request
arrives (``seq``, the order in which the device made its slips); slips without seq replace as before."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.limits import SEQ_MAX
from tournaments.models import LogEntry, Result, Slip
from tournaments.services.slips import StaleSlip

from .api_support import assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

SLIP_A = {"word": "HELLO", "ref": "H4", "score": 10}  # made first, its request held up on the network
SLIP_B = {"word": "WORLD", "ref": "8H", "score": 12}  # made second, arrives first


def open_round(game):
    return services.round_start(round=services.round_draw(game=game))


def submit(rnd, player, slip, key, seq=None, **kwargs):
    return services.slip_submit(round=rnd, player=player, key=key, seq=seq, **slip, **kwargs)


def held(rnd, player) -> Slip:
    return Slip.objects.get(round=rnd, player=player, current=True)


# --------------------------------------------------------------------------------------------------
# Services


def test_an_older_slip_arriving_late_does_not_replace_the_newer_one(game, make_player):
    player, _ = make_player(game)
    rnd = open_round(game)
    newer, created = submit(rnd, player, SLIP_B, key="b", seq=1_700_000_000_200)
    assert created and newer.seq == 1_700_000_000_200
    log_before = LogEntry.objects.count()

    with pytest.raises(StaleSlip) as caught:
        submit(rnd, player, SLIP_A, key="a", seq=1_700_000_000_100)
    error = caught.value
    assert (error.code, error.status) == ("stale_slip", 409)
    assert "newer slip is already held" in error.message and "WORLD" in error.message
    assert error.held.pk == newer.pk and "seq" in error.fields

    # Nothing changed: no slip A stored, B still counts, nothing logged.
    assert list(Slip.objects.filter(round=rnd, player=player).values_list("key", flat=True)) == ["b"]
    assert held(rnd, player).pk == newer.pk
    assert LogEntry.objects.count() == log_before
    services.round_close(round=rnd)
    assert Result.objects.get(round=rnd, player=player).slip_id == newer.pk


def test_a_replay_of_an_old_key_still_answers_with_that_slip(game, make_player):
    player, _ = make_player(game)
    rnd = open_round(game)
    first, _ = submit(rnd, player, SLIP_A, key="a", seq=5)
    second, _ = submit(rnd, player, SLIP_B, key="b", seq=6)
    again, created = submit(rnd, player, SLIP_A, key="a", seq=5)
    assert not created and again.pk == first.pk and (again.word, again.seq) == ("HELLO", 5)
    assert held(rnd, player).pk == second.pk
    assert Slip.objects.filter(round=rnd, player=player).count() == 2


@pytest.mark.parametrize(
    ("held_seq", "new_seq"),
    [
        (5, 6),  # made later: replaces
        (5, 5),  # not lower: replaces, as a new key always did
        (None, 1),  # the held slip has no order (a paper slip, another client)
        (5, None),  # the new slip has no order
        (None, None),
    ],
)
def test_a_slip_not_older_or_without_order_replaces_as_before(game, make_player, held_seq, new_seq):
    player, _ = make_player(game)
    rnd = open_round(game)
    first, _ = submit(rnd, player, SLIP_A, key="a", seq=held_seq)
    second, created = submit(rnd, player, SLIP_B, key="b", seq=new_seq)
    first.refresh_from_db()
    assert created and second.current and not first.current and second.replaces_id == first.pk
    assert second.seq == new_seq


def test_the_order_is_compared_per_player_and_round(game, make_player):
    ana, _ = make_player(game)
    ben, _ = make_player(game)
    rnd = open_round(game)
    submit(rnd, ana, SLIP_B, key="b", seq=100)
    slip, created = submit(rnd, ben, SLIP_A, key="a", seq=1)  # another player's lower seq is no matter
    assert created and slip.current
    services.round_close(round=rnd)
    rnd2 = open_round(game)
    slip2, created2 = submit(rnd2, ana, SLIP_A, key="a", seq=1)  # nor is a lower seq in another round
    assert created2 and slip2.current


def test_a_correction_keeps_the_order_of_the_slip_it_corrects(game, make_player, arbitrator):
    player, _ = make_player(game)
    rnd = open_round(game)
    slip, _ = submit(rnd, player, SLIP_B, key="b", seq=50)
    fixed = services.slip_correct(slip=slip, reason="score misread", actor=arbitrator, score=14)
    assert fixed.seq == 50
    with pytest.raises(StaleSlip) as caught:
        submit(rnd, player, SLIP_A, key="a", seq=40)
    assert caught.value.held.pk == fixed.pk
    assert held(rnd, player).pk == fixed.pk


def test_after_the_deadline_an_old_slip_is_refused_as_late(game, make_player):
    player, _ = make_player(game)
    rnd = open_round(game)
    submit(rnd, player, SLIP_B, key="b", seq=50)
    with pytest.raises(ServiceError) as caught:
        submit(rnd, player, SLIP_A, key="a", seq=40, now=rnd.deadline + timedelta(seconds=1))
    assert caught.value.code == "round_closed"


@pytest.mark.parametrize("seq", [-1, True, "3", 1.5, SEQ_MAX + 1])
def test_a_seq_that_is_not_a_whole_number_in_range_is_refused(game, make_player, seq):
    player, _ = make_player(game)
    rnd = open_round(game)
    with pytest.raises(ServiceError) as caught:
        submit(rnd, player, SLIP_A, key="a", seq=seq)
    assert (caught.value.code, caught.value.status) == ("bad_seq", 400)
    assert not Slip.objects.exists()


# --------------------------------------------------------------------------------------------------
# API


def _open(game):
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)


def test_api_a_late_older_slip_gets_409_stale_slip_with_the_held_slip(api_game):
    game = api_game(players=1)
    seat = game.players[0]
    _open(game)
    url = game.round_url(1, "/slips")
    b = expect(seat.client.post(url, {**SLIP_B, "key": "b", "seq": 1_763_700_000_200}, format="json"), 201)
    assert b["seq"] == 1_763_700_000_200
    me = expect(seat.client.get(game.url("/me")), 200)
    assert me["slip"]["seq"] == 1_763_700_000_200

    error = assert_error(
        seat.client.post(url, {**SLIP_A, "key": "a", "seq": 1_763_700_000_100}, format="json"), 409, "stale_slip"
    )
    assert "newer slip is already held" in error["message"]
    # The held slip, exactly as it was answered (without the answer's own replayed/replaced marks).
    assert error["fields"]["slip"] == {k: v for k, v in b.items() if k not in ("replayed", "replaced", "receipt")}
    assert isinstance(error["fields"]["seq"], list) and error["fields"]["seq"]

    # Nothing changed: the server holds B, and A was never stored.
    assert expect(seat.client.get(game.url("/me")), 200)["slip"] == me["slip"]
    assert expect(seat.client.get(game.round_url(1)), 200)["slip"]["id"] == b["id"]
    assert not Slip.objects.filter(key="a").exists()
    # The phone retrying A under the same key gets the same refusal.
    assert_error(seat.client.post(url, {**SLIP_A, "key": "a", "seq": 1_763_700_000_100}, format="json"), 409,
                 "stale_slip")


def _plain(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k not in ("replayed", "replaced", "receipt")}


def test_api_a_replay_of_a_replaced_key_answers_200_with_the_slip_held_now(api_game):
    game = api_game(players=1)
    seat = game.players[0]
    _open(game)
    url = game.round_url(1, "/slips")
    a = expect(seat.client.post(url, {**SLIP_A, "key": "a", "seq": 10}, format="json"), 201)
    assert (a["replayed"], a["replaced"]) == (False, None)
    # The current slip's key again: the same slip, marked as a replay.
    assert expect(seat.client.post(url, {**SLIP_A, "key": "a", "seq": 10}, format="json"), 200) == {
        **a, "replayed": True}
    b = expect(seat.client.post(url, {**SLIP_B, "key": "b", "seq": 11}, format="json"), 201)
    # A's key again once B replaced it: B, the slip that counts, with A under "replaced"; nothing written.
    replay = expect(seat.client.post(url, {**SLIP_A, "key": "a", "seq": 10}, format="json"), 200)
    assert replay == {**_plain(b), "replayed": True, "replaced": _plain(a), "receipt": b["receipt"]}
    assert expect(seat.client.get(game.url("/me")), 200)["slip"]["id"] == b["id"]
    assert Slip.objects.filter(round__game_id=game.id).count() == 2
    # Corrected by the arbitrator: the correction is what counts, for A's key and B's alike.
    fixed = expect(game.arbitrator.post(game.round_url(1, f"/slips/{b['id']}/correct"),
                                        {"score": 30, "reason": "misread"}, format="json"), 200)
    assert fixed["status"] == "open"
    held = Slip.objects.get(round__game_id=game.id, current=True)
    for key, slip in (("a", SLIP_A), ("b", SLIP_B)):
        again = expect(seat.client.post(url, {**slip, "key": key}, format="json"), 200)
        assert (again["id"], again["score"], again["replayed"]) == (held.pk, 30, True)
        assert again["replaced"]["key"] == key


def test_api_slips_without_seq_replace_as_before(api_game):
    game = api_game(players=1)
    seat = game.players[0]
    _open(game)
    url = game.round_url(1, "/slips")
    phone = expect(seat.client.post(url, {**SLIP_B, "key": "b", "seq": 99}, format="json"), 201)
    # The arbitrator types the player's paper slip: no order, so it replaces the phone's.
    paper = expect(game.arbitrator.post(url, {**SLIP_A, "player": seat.id}, format="json"), 201)
    assert paper["seq"] is None
    third = expect(seat.client.post(url, {**SLIP_B, "key": "c"}, format="json"), 201)
    assert third["seq"] is None and third["id"] != phone["id"]
    assert expect(seat.client.get(game.url("/me")), 200)["slip"]["id"] == third["id"]


@pytest.mark.parametrize("seq", ["soon", -1, 2**53, 1.5])
def test_api_a_bad_seq_is_refused(api_game, seq):
    game = api_game(players=1)
    seat = game.players[0]
    _open(game)
    error = assert_error(
        seat.client.post(game.round_url(1, "/slips"), {**SLIP_A, "key": "a", "seq": seq}, format="json"), 400
    )
    assert "seq" in error["fields"]
    assert not Slip.objects.exists()
