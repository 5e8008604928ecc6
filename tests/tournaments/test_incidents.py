"""Incidents in the hall, through the services: the clock paused and resumed, a round extended, cancelled and
drawn again under the same number, a mistyped rack replaced before the start."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.live.snapshot import build_snapshot, game_snapshot, live_body
from tournaments.models import Game, LogEntry, Result, Round, Slip
from tournaments.services.clock import game_close_if_due, round_close_if_due, rounds_close_overdue
from tournaments.tasks import close_round

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def refused(call, code: str, status: int) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call()
    assert (caught.value.code, caught.value.status) == (code, status), caught.value.message
    return caught.value


def open_round(game, *, seconds_ago: float = 0, rack: str = "ACEILMN") -> Round:
    rnd = services.round_draw(game=game, rack=rack)
    return services.round_start(round=rnd, now=timezone.now() - timedelta(seconds=seconds_ago))


def test_a_pause_freezes_the_time_left_refuses_slips_and_is_logged(make_game, make_player, arbitrator):
    game = make_game(round_seconds=60)
    ann, _ = make_player(game, "Ann")
    rnd = open_round(game, seconds_ago=20)
    now = timezone.now()
    paused = services.round_pause(round=rnd, reason="a player was taken ill", actor=arbitrator, now=now)
    assert paused.paused_at == now
    assert paused.time_left == pytest.approx((rnd.deadline - now).total_seconds(), abs=0.01)
    assert 39 < paused.time_left < 41
    assert paused.incidents[-1] == {"action": "pause", "at": now.isoformat(), "by": arbitrator.username,
                                    "reason": "a player was taken ill", "time_left": paused.time_left}
    entry = LogEntry.objects.get(round=rnd, action="round_pause")
    assert (entry.actor, entry.reason) == (arbitrator, "a player was taken ill")

    error = refused(lambda: services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78,
                                                 key="k1"), "paused", 409)
    assert error.params == {"round": rnd.number}
    assert not Slip.objects.filter(round=rnd).exists()
    # A slip that arrived before the pause, served after it, is in time.
    slip, created = services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key="k2",
                                         now=now - timedelta(seconds=1))
    assert created and slip.current

    # Every screen reads the pause: the snapshot and the live body carry it with the time left.
    snapshot = game_snapshot(game.pk)
    assert snapshot["paused"] is True and snapshot["time_left"] == paused.time_left
    body = live_body(game.pk)
    assert body["paused"] is True and body["time_left"] == paused.time_left and body["round_status"] == "open"

    refused(lambda: services.round_pause(round=rnd, reason="again", actor=arbitrator), "paused", 409)
    refused(lambda: services.round_pause(round=rnd, reason="  ", actor=arbitrator), "reason_required", 400)


def test_a_paused_round_never_closes_and_closes_at_the_deadline_set_on_resuming(make_game, make_player, arbitrator):
    game = make_game(round_seconds=30)
    ann, _ = make_player(game, "Ann")
    rnd = open_round(game, seconds_ago=25)  # 5 s left
    services.round_pause(round=rnd, reason="the lights went out", actor=arbitrator)
    original = rnd.deadline
    later = original + timedelta(seconds=60)  # far past the original deadline
    # The clock's task, the sweep, a request reading the game: none closes a paused round.
    assert round_close_if_due(round_id=rnd.pk, now=later) is False
    assert rounds_close_overdue(now=later) == 0
    assert game_close_if_due(game_id=game.pk, now=later) is False
    assert close_round(rnd.pk) is False
    assert game_snapshot(game.pk)["round_status"] == "open"
    assert services.round_close(round=rnd, now=later) is False
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.OPEN and rnd.closed_at is None and not Result.objects.filter(round=rnd).exists()

    resumed_at = timezone.now()
    left = Round.objects.get(pk=rnd.pk).time_left
    resumed = services.round_resume(round=rnd, actor=arbitrator, now=resumed_at)
    assert resumed.paused_at is None and resumed.time_left is None
    assert resumed.deadline == resumed_at + timedelta(seconds=left)
    assert resumed.incidents[-1]["action"] == "resume"
    assert resumed.incidents[-1]["deadline"] == resumed.deadline.isoformat()
    assert LogEntry.objects.filter(round=rnd, action="round_resume", actor=arbitrator).count() == 1
    refused(lambda: services.round_resume(round=rnd, actor=arbitrator), "not_paused", 409)

    # Slips are taken again, until the new deadline; then the round closes.
    services.slip_submit(round=resumed, player=ann, word="MELANIC", ref="H4", score=78, key="k",
                         now=resumed_at + timedelta(seconds=1))
    assert rounds_close_overdue(now=resumed.deadline - timedelta(seconds=0.5)) == 0
    assert rounds_close_overdue(now=resumed.deadline + timedelta(seconds=0.1)) == 1
    result = Result.objects.get(round=rnd, player=ann)
    assert result.paid == 78


def test_pausing_needs_an_open_round_before_its_deadline(make_game, arbitrator):
    game = make_game(round_seconds=10)
    drawn = services.round_draw(game=game, rack="ACEILMN")
    refused(lambda: services.round_pause(round=drawn, reason="x", actor=arbitrator), "round_not_open", 409)
    rnd = services.round_start(round=drawn, now=timezone.now() - timedelta(seconds=11))
    refused(lambda: services.round_pause(round=rnd, reason="too late", actor=arbitrator), "deadline_passed", 409)
    rnd.refresh_from_db()
    assert rnd.paused_at is None


def test_an_extension_moves_the_deadline_or_the_time_left(make_game, arbitrator, settings):
    game = make_game(round_seconds=60)
    rnd = open_round(game, seconds_ago=10)
    extended = services.round_extend(round=rnd, seconds=30, reason="the projector failed", actor=arbitrator)
    assert extended.deadline == rnd.deadline + timedelta(seconds=30)
    assert extended.extended_seconds == 30
    assert extended.incidents[-1]["action"] == "extend" and extended.incidents[-1]["seconds"] == 30
    entry = LogEntry.objects.get(round=rnd, action="round_extend")
    assert (entry.actor, entry.reason, entry.after["seconds"]) == (arbitrator, "the projector failed", 30)

    refused(lambda: services.round_extend(round=rnd, seconds=0, reason="x", actor=arbitrator), "bad_seconds", 400)
    refused(lambda: services.round_extend(round=rnd, seconds=settings.ARBITER_MAX_EXTEND_SECONDS + 1, reason="x",
                                          actor=arbitrator), "bad_seconds", 400)
    refused(lambda: services.round_extend(round=rnd, seconds=True, reason="x", actor=arbitrator), "bad_seconds", 400)
    refused(lambda: services.round_extend(round=rnd, seconds=5, reason="", actor=arbitrator), "reason_required", 400)
    assert Round.objects.get(pk=rnd.pk).extended_seconds == 30  # nothing changed by the refusals

    # While paused, the extension goes to the time left, which the resumed clock then runs down.
    services.round_pause(round=rnd, reason="a dispute", actor=arbitrator)
    left = Round.objects.get(pk=rnd.pk).time_left
    paused = services.round_extend(round=rnd, seconds=15, reason="time lost to the dispute", actor=arbitrator)
    assert paused.time_left == pytest.approx(left + 15)
    now = timezone.now()
    resumed = services.round_resume(round=rnd, actor=arbitrator, now=now)
    assert resumed.deadline == now + timedelta(seconds=left + 15)
    assert resumed.extended_seconds == 45

    # After the deadline the round closes: no extension.
    late = open_round(make_game(round_seconds=5), seconds_ago=6)
    refused(lambda: services.round_extend(round=late, seconds=30, reason="x", actor=arbitrator), "deadline_passed", 409)


def test_a_cancelled_round_keeps_its_slips_void_gives_its_letters_back_and_is_drawn_again(
        make_game, make_player, arbitrator):
    game = make_game(round_seconds=60)
    ann, _ = make_player(game, "Ann")
    bob, _ = make_player(game, "Bob")
    first = open_round(game, rack="AEINQRZ")  # no play uses all seven: letters are kept for round 2
    services.slip_submit(round=first, player=ann, word="ZEIN", ref="H5", score=26, key="a")
    services.round_close(round=first)
    game.refresh_from_db()
    kept, bag_before = game.kept, game.bag
    assert kept  # letters left from round 1 go into round 2's rack

    second = services.round_start(round=services.round_draw(game=game))
    services.slip_submit(round=second, player=bob, word="ZZZ", ref="A1", score=3, key="b")
    cancelled = services.round_cancel(round=second, reason="the wrong rack was announced", actor=arbitrator)
    assert cancelled.status == Round.Status.CANCELLED
    assert cancelled.cancel_reason == "the wrong rack was announced"
    assert cancelled.incidents[-1]["action"] == "cancel" and cancelled.incidents[-1]["slips"] == 1
    # Its slip is kept (void: never judged); the drawn letters are back in the bag, the kept ones still kept.
    assert Slip.objects.filter(round=second).count() == 1
    assert not Result.objects.filter(round=second).exists()
    game.refresh_from_db()
    assert (Counter(game.bag), game.kept) == (Counter(bag_before), kept)
    entry = LogEntry.objects.get(round=second, action="round_cancel")
    assert (entry.actor, entry.reason, entry.after["void_slips"]) == (arbitrator, "the wrong rack was announced", 1)

    # Phones are told: the snapshot names the cancelled round and its reason; the round shown is round 1.
    snapshot = build_snapshot(game.pk)
    assert snapshot["cancelled"] == {"number": 2, "reason": "the wrong rack was announced"}
    assert snapshot["round"] == 1 and snapshot["round_status"] == "closed"

    again = services.round_draw(game=game)
    assert again.number == 2 and again.kept == cancelled.kept
    assert build_snapshot(game.pk)["cancelled"] is None
    refused(lambda: services.round_cancel(round=first, reason="x", actor=arbitrator), "round_closed", 409)
    refused(lambda: services.round_cancel(round=again, reason="", actor=arbitrator), "reason_required", 400)

    # A paused round can be cancelled too (a drawn one as well).
    services.round_start(round=again)
    services.round_pause(round=again, reason="bag dropped", actor=arbitrator)
    gone = services.round_cancel(round=again, reason="the bag was mishandled", actor=arbitrator)
    assert gone.status == Round.Status.CANCELLED and gone.paused_at is None
    drawn = services.round_draw(game=game)
    assert drawn.number == 2
    assert services.round_cancel(round=drawn, reason="typed in the wrong game", actor=arbitrator).status == "cancelled"
    assert Round.objects.filter(game=game, number=2, status=Round.Status.CANCELLED).count() == 3


def test_a_mistyped_rack_is_replaced_before_the_start_with_the_bag_checks(make_game, arbitrator):
    game = make_game()
    bag = Game.objects.get(pk=game.pk).bag
    rnd = services.round_draw(game=game, rack="EIRST?A")
    services.round_compute_tops(round=rnd)

    fixed = services.round_fix_rack(round=rnd, rack="EIRSTSA", reason="a S was typed as a blank", actor=arbitrator)
    assert sorted(fixed.rack) == sorted("EIRSTSA") and fixed.typed
    assert (fixed.tops_ready, fixed.tops, fixed.master) == (False, [], None)
    game.refresh_from_db()
    assert Counter(game.bag) == Counter(bag) - Counter("EIRSTSA")
    assert Counter(fixed.bag_after) == Counter(game.bag)
    assert fixed.incidents[-1] | {"at": None} == {"action": "rack_fix", "at": None, "by": arbitrator.username,
                                                  "reason": "a S was typed as a blank", "before": rnd.rack,
                                                  "after": fixed.rack, "typed_before": True}
    entry = LogEntry.objects.get(round=rnd, action="rack_fix")
    assert (entry.before["rack"], entry.after["rack"], entry.reason) == (rnd.rack, fixed.rack,
                                                                         "a S was typed as a blank")
    # The tops are computed again, for the new rack: those of a game drawn with EIRSTSA from the start.
    recomputed = services.round_compute_tops(round=fixed)
    fresh = services.round_compute_tops(round=services.round_draw(game=make_game(), rack="EIRSTSA"))
    assert recomputed.tops_ready
    assert (recomputed.top_score, recomputed.tops, recomputed.master) == (fresh.top_score, fresh.tops, fresh.master)

    # The same checks as a typed draw: a rack the bag cannot give changes nothing.
    refused(lambda: services.round_fix_rack(round=rnd, rack="EIRSTZZ", reason="x", actor=arbitrator), "not_in_bag", 409)
    refused(lambda: services.round_fix_rack(round=rnd, rack="EIRSTSA", reason="x", actor=arbitrator), "same_rack", 409)
    refused(lambda: services.round_fix_rack(round=rnd, rack="EIR", reason="x", actor=arbitrator), "wrong_size", 409)
    refused(lambda: services.round_fix_rack(round=rnd, rack="EIRST?A", reason="", actor=arbitrator),
            "reason_required", 400)
    assert Round.objects.get(pk=rnd.pk).rack == fixed.rack
    assert Counter(Game.objects.get(pk=game.pk).bag) == Counter(bag) - Counter("EIRSTSA")
    # Once the clock has started the rack stays.
    services.round_start(round=rnd)
    refused(lambda: services.round_fix_rack(round=rnd, rack="EIRST?A", reason="x", actor=arbitrator),
            "round_not_drawn", 409)


VOWELS = set("AEIOU")


def test_a_rack_fixed_keeps_the_kept_letters_of_the_round_before(make_game, make_player, arbitrator):
    game = make_game(seed=3)
    make_player(game, "Ann")
    services.round_close(round=open_round(game, rack="AEINQRZ"))
    game.refresh_from_db()
    kept = game.kept
    assert kept
    second = services.round_draw(game=game)
    game.refresh_from_db()
    before_draw = Counter(game.bag) + Counter(second.drawn)
    # One drawn letter swapped for another of its kind still in the bag: the same vowel/consonant count.
    for i, letter in enumerate(second.drawn):
        others = sorted(ch for ch in set(game.bag) if ch != letter and ch not in "?Y"
                        and (ch in VOWELS) == (letter in VOWELS))
        if letter not in "?Y" and others:
            drawn = second.drawn[:i] + others[0] + second.drawn[i + 1:]
            break
    fixed = services.round_fix_rack(round=second, rack=kept + drawn, reason="one letter misread", actor=arbitrator)
    assert fixed.kept == second.kept and Counter(fixed.drawn) == Counter(drawn)
    assert Counter(Game.objects.get(pk=game.pk).bag) == before_draw - Counter(drawn)
    # Without the kept letters the rack is refused, as a typed draw would be.
    refused(lambda: services.round_fix_rack(round=second, rack=drawn + second.drawn[:len(kept)], reason="x",
                                            actor=arbitrator), "missing_kept", 409)


def test_a_slip_that_arrived_during_a_pause_is_refused_even_when_served_after_the_resume(make_game, make_player):
    game = make_game(round_seconds=60)
    ann, _ = make_player(game, "Ann")
    rnd = open_round(game, seconds_ago=10)
    paused_at = timezone.now() - timedelta(seconds=5)
    services.round_pause(round=rnd, reason="lights out", now=paused_at)
    resumed_at = paused_at + timedelta(seconds=3)
    services.round_resume(round=rnd, now=resumed_at)
    refused(lambda: services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key="k1",
                                         now=paused_at + timedelta(seconds=1)), "paused", 409)
    assert not Slip.objects.filter(round=rnd).exists()
    # Before the pause and after the resume, slips are in time.
    for key, moment in (("k2", paused_at - timedelta(seconds=1)), ("k3", resumed_at + timedelta(seconds=1))):
        slip, created = services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key=key,
                                             now=moment)
        assert created
