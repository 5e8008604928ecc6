"""The services one by one: setting up, drawing, the clock's rules for slips, closing, master, corrections."""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from engine.board import Board
from engine.movegen import find_tops
from tournaments import selectors, services
from tournaments.errors import ServiceError
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, LogEntry, Player, Result, Round, Slip, Tournament

pytestmark = pytest.mark.django_db


def error_of(call, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        call(**kwargs)
    return caught.value


def open_round(game, rack=None, now=None):
    rnd = services.round_draw(game=game, rack=rack)
    return services.round_start(round=rnd, now=now)


def a_top(rnd):
    """A top of the round, from the engine directly."""
    tournament = rnd.game.tournament
    tops = find_tops(Board.from_rows(rnd.board), rnd.rack, get_lexicon(tournament.lexicon), tournament.tiles,
                     tournament.rules)
    play = tops.plays[0]
    from engine.notation import format_ref

    return play.word, format_ref(play.row, play.col, play.horizontal), play.score


# --------------------------------------------------------------------------------------------------
# Setting up


def test_tournament_keeps_its_lexicon_hash_and_settings(make_tournament):
    tournament = make_tournament(round_seconds=120, coordinates="rows-numbers", solo_min_players=8)
    assert tournament.lexicon_sha256 == get_lexicon("TWL06").sha256
    assert tournament.rules.solo_min_players == 8
    # The tournament's own round time is the one that counts; its rules carry it (topping counts its seconds).
    assert tournament.rules.round_seconds == tournament.round_seconds == 120
    assert tournament.coordinates == "rows-numbers"


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"lexicon": "NOPE"}, "unknown_lexicon"),
        ({"tileset": "klingon"}, "unknown_tileset"),
        ({"ruleset": "house"}, "bad_rules"),
        ({"solo_bonus": -1}, "bad_rules"),
        ({"no_such_rule": 1}, "bad_rules"),
        ({"coordinates": "columns"}, "bad_coordinates"),
        ({"round_seconds": 0}, "bad_round_seconds"),
        ({"round_seconds": "180"}, "bad_round_seconds"),
        ({"name": "  "}, "name_required"),
    ],
)
def test_tournament_create_refuses_bad_settings(fields, code):
    error = error_of(services.tournament_create, **{"name": "Open", **fields})
    assert error.code == code and error.status == 400
    assert not Tournament.objects.exists()


def test_games_are_numbered_with_a_full_bag_and_distinct_join_codes(make_tournament):
    tournament = make_tournament()
    first = services.game_create(tournament=tournament)
    second = services.game_create(tournament=tournament, seed=5)
    assert (first.number, second.number) == (1, 2)
    assert first.join_code != second.join_code
    assert Counter(first.bag) == Counter(tournament.tiles.full_bag())
    assert second.seed == 5 and first.status == Game.Status.READY
    assert error_of(services.game_create, tournament=tournament, seed=2**70).code == "bad_seed"


def test_player_token_is_stored_hashed_and_works_for_its_game_only(make_game, make_player):
    game = make_game()
    other = make_game()
    player, token = make_player(game, "Ann", table=4, series="2")
    stored = Player.objects.get(pk=player.pk)
    assert token not in stored.token_hash
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert selectors.player_for_token(game_id=game.pk, token=token) == player
    assert selectors.player_for_token(game_id=other.pk, token=token) is None
    assert selectors.player_for_token(game_id=game.pk, token=token + "x") is None
    assert (stored.table, stored.series) == (4, "2")


def test_a_player_of_a_tournament_plays_its_later_games(make_game, make_player):
    first = make_game()
    player, token = make_player(first, "Ann")
    second = services.game_create(tournament=first.tournament)
    assert selectors.player_for_token(game_id=second.pk, token=token) == player
    assert [p.pk for p in Player.objects.in_game(second)] == [player.pk]


def test_join_with_a_code_in_any_case(game):
    player, token = services.player_join(join_code=f" {game.join_code.lower()} ", name="Bea")
    assert player.first_game == game and selectors.player_for_token(game_id=game.pk, token=token) == player
    error = error_of(services.player_join, join_code="ZZZZZZ", name="Bea")
    assert (error.code, error.status) == ("unknown_join_code", 404)


def test_late_arrival_scores_zero_for_rounds_already_played(game, make_player):
    early, _ = make_player(game, "Early")
    services.round_close(round=open_round(game))
    late, _ = make_player(game, "Late")
    assert late.arrival_round == 1
    absent = Result.objects.get(player=late)
    assert (absent.round.number, absent.paid, absent.outcome, absent.reason) == (1, 0, "zero", "absent")
    rnd = open_round(game)
    word, ref, score = a_top(rnd)
    services.slip_submit(round=rnd, player=late, word=word, ref=ref, score=score, key="k")
    services.round_close(round=rnd)
    assert Result.objects.get(player=late, round=rnd).paid == score


# --------------------------------------------------------------------------------------------------
# Drawing


def test_random_draws_replay_from_the_seed(make_game):
    first, second = make_game(seed=77), make_game(seed=77)
    a, b = services.round_draw(game=first), services.round_draw(game=second)
    assert (a.rack, a.rejected) == (b.rack, b.rejected)
    first.refresh_from_db()
    assert len(first.bag) == 100 - 7 and Counter(first.bag) + Counter(a.rack) == Counter(first.tournament.tiles.full_bag())
    assert first.status == Game.Status.PLAYING and a.status == Round.Status.DRAWN


def test_typed_rack_is_checked_against_the_bag_and_the_rules(game):
    before = game.bag
    assert error_of(services.round_draw, game=game, rack="AEIOUUB").code == "too_few_consonants"
    assert error_of(services.round_draw, game=game, rack="ZZABCDE").code == "not_in_bag"
    assert error_of(services.round_draw, game=game, rack="AB1CDEF").code == "bad_letters"
    assert error_of(services.round_draw, game=game, rack="ABC").code == "wrong_size"
    game.refresh_from_db()
    assert game.bag == before and not game.rounds.exists()
    rnd = services.round_draw(game=game, rack="ERT?SAI")
    assert Counter(rnd.rack) == Counter("AEIRST?") and rnd.typed
    game.refresh_from_db()
    assert Counter(before) - Counter(game.bag) == Counter("AEIRST?")


def test_no_draw_while_a_round_is_in_play_or_after_the_end(game):
    rnd = services.round_draw(game=game)
    error = error_of(services.round_draw, game=game)
    assert (error.code, error.status) == ("round_open", 409)
    services.round_start(round=rnd)
    assert error_of(services.round_draw, game=game).code == "round_open"
    services.round_close(round=rnd)
    services.game_end(game=game)
    error = error_of(services.round_draw, game=game)
    assert (error.code, error.status) == ("game_over", 409)


def test_kept_letters_start_the_next_rack(game):
    rnd = open_round(game, rack="ACEILMN")
    services.round_close(round=rnd)
    rnd.refresh_from_db()
    game.refresh_from_db()
    used = Counter("?" if blank else letter for _, _, letter, blank in rnd.master["tiles"])
    leave = Counter(rnd.rack) - used
    assert Counter(game.kept) == leave
    nxt = services.round_draw(game=game)
    assert nxt.number == 2
    assert nxt.kept == "" if nxt.rejected else Counter(nxt.kept) == leave


# --------------------------------------------------------------------------------------------------
# The clock and slips


def test_start_stores_the_deadline(game):
    rnd = services.round_draw(game=game)
    now = timezone.now()
    rnd = services.round_start(round=rnd, now=now)
    assert rnd.status == Round.Status.OPEN
    assert rnd.deadline == now + timedelta(seconds=game.tournament.round_seconds)
    assert error_of(services.round_start, round=rnd).code == "round_open"


def test_same_key_twice_creates_nothing_new(game, make_player):
    player, _ = make_player(game)
    rnd = open_round(game)
    first, created = services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=10, key="k1")
    again, created_again = services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=10, key="k1")
    assert created and not created_again and again.pk == first.pk
    assert Slip.objects.count() == 1
    error = error_of(services.slip_submit, round=rnd, player=player, word="WORLD", ref="H4", score=10, key="k1")
    assert (error.code, error.status) == ("key_reused", 409)


def test_a_new_key_replaces_the_earlier_slip_which_is_kept(game, make_player):
    player, _ = make_player(game)
    rnd = open_round(game)
    first, _ = services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=10, key="k1")
    second, created = services.slip_submit(round=rnd, player=player, word="WORLD", ref="8H", score=None, key="k2")
    first.refresh_from_db()
    assert created and second.replaces == first and not first.current and second.current
    assert Slip.objects.filter(round=rnd, player=player).count() == 2
    services.round_close(round=rnd)
    assert Result.objects.get(round=rnd, player=player).slip == second


def test_slip_after_the_deadline_is_refused_by_the_server_clock(game, make_player):
    player, _ = make_player(game)
    start = timezone.now()
    rnd = open_round(game, now=start)
    at_deadline = rnd.deadline
    services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=1, key="k1", now=at_deadline)
    late = at_deadline + timedelta(milliseconds=1)
    error = error_of(services.slip_submit, round=rnd, player=player, word="WORLD", ref="H4", score=1, key="k2",
                     now=late)
    assert (error.code, error.status) == ("round_closed", 409)
    rnd.refresh_from_db()
    # The deadline alone decides for a slip that does not say when it was sent. The round stays open while
    # a phone's slip may be on its way (ARBITER_TRANSIT_SECONDS); the first request after that closes it.
    assert rnd.status == Round.Status.OPEN
    after = at_deadline + timedelta(seconds=settings.ARBITER_TRANSIT_SECONDS, milliseconds=1)
    error = error_of(services.slip_submit, round=rnd, player=player, word="WORLD", ref="H4", score=1, key="k3",
                     now=after)
    assert (error.code, error.status) == ("round_closed", 409)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED and rnd.closed_at == after
    assert Result.objects.get(round=rnd, player=player).slip.key == "k1"
    # Replaying the slip accepted in time is still answered, unchanged.
    slip, created = services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=1, key="k1",
                                         now=late)
    assert not created and slip.received_at == at_deadline


def test_no_slip_before_the_start_or_after_the_close(game, make_player):
    player, _ = make_player(game)
    rnd = services.round_draw(game=game)
    assert error_of(services.slip_submit, round=rnd, player=player, word="A", ref="", score=0, key="k").code == (
        "round_not_open"
    )
    services.round_start(round=rnd)
    services.round_close(round=rnd)
    error = error_of(services.slip_submit, round=rnd, player=player, word="HELLO", ref="H4", score=1, key="k")
    assert (error.code, error.status) == ("round_closed", 409)


@pytest.mark.parametrize(
    ("slip", "code"),
    [
        ({"ref": "H"}, "bad_ref"),
        ({"ref": "4H4"}, "bad_ref"),
        ({"ref": "H16"}, "off_board"),
        ({"ref": "H000000004"}, "bad_ref"),
        ({"word": "HEL1O"}, "bad_word"),
        ({"word": "W" * 10_240}, "bad_word"),
        ({"word": ""}, "bad_word"),
        ({"word": 12}, "bad_word"),
        ({"score": -1}, "bad_score"),
        ({"score": True}, "bad_score"),
        ({"score": "12"}, "bad_score"),
        ({"key": ""}, "bad_key"),
        ({"key": "k" * 101}, "bad_key"),
    ],
)
def test_bad_slips_are_refused_and_change_nothing(game, make_player, slip, code):
    player, _ = make_player(game)
    rnd = open_round(game)
    log_before = LogEntry.objects.count()
    fields = {"word": "HELLO", "ref": "H4", "score": 8, "key": "k", **slip}
    error = error_of(services.slip_submit, round=rnd, player=player, **fields)
    assert (error.code, error.status) == (code, 400)
    assert not Slip.objects.exists() and LogEntry.objects.count() == log_before


def test_a_player_of_another_tournament_is_unknown(game, make_game, make_player):
    stranger, _ = make_player(make_game())
    rnd = open_round(game)
    error = error_of(services.slip_submit, round=rnd, player=stranger, word="HELLO", ref="H4", score=8, key="k")
    assert (error.code, error.status) == ("unknown_player", 404)
    error = error_of(services.slip_submit, round=rnd, player=None, word="HELLO", ref="H4", score=8, key="k")
    assert error.code == "unknown_player"
    assert not Slip.objects.exists()


# --------------------------------------------------------------------------------------------------
# Closing, master, corrections, end


def test_close_pays_slips_and_gives_no_slip_to_the_others(game, make_player, arbitrator):
    good, _ = make_player(game, "Good")
    absent, _ = make_player(game, "Absent")
    rnd = open_round(game, rack="ACEILMN")
    word, ref, score = a_top(rnd)
    services.slip_submit(round=rnd, player=good, word=word, ref=ref, score=score, key="k")
    assert services.round_close(round=rnd, actor=arbitrator)
    assert not services.round_close(round=rnd, actor=arbitrator)
    results = {r.player_id: r for r in Result.objects.filter(round=rnd)}
    assert (results[good.pk].paid, results[good.pk].outcome) == (score, "ok")
    assert (results[absent.pk].paid, results[absent.pk].reason) == (0, "no_slip")
    assert LogEntry.objects.filter(round=rnd, action="round_close", actor=arbitrator).count() == 1


def test_the_master_changes_among_tied_tops_until_the_next_draw(game):
    rnd = open_round(game, rack="ACEILMN")  # MELANIC at H4 and H6
    services.round_close(round=rnd)
    rnd.refresh_from_db()
    assert rnd.top_score == 78 and len(rnd.tops) == 2
    other = next(t for t in rnd.tops if t["ref"] != rnd.master["ref"])
    assert error_of(services.round_choose_master, round=rnd, word="MELANIC", ref="H7").code == "not_a_top"
    services.round_choose_master(round=rnd, word=other["word"], ref=other["ref"])
    game.refresh_from_db()
    expected = ["." * 15] * 15
    expected[7] = "." * other["col"] + "MELANIC" + "." * (15 - 7 - other["col"])
    assert game.board == expected
    entry = LogEntry.objects.get(round=rnd, action="master_change")
    assert entry.after["ref"] == other["ref"] and entry.before["ref"] != other["ref"]
    services.round_draw(game=game)
    error = error_of(services.round_choose_master, round=rnd, word=other["word"], ref=other["ref"])
    assert (error.code, error.status) == ("master_locked", 409)


def test_master_only_once_closed(game):
    rnd = open_round(game, rack="ACEILMN")
    error = error_of(services.round_choose_master, round=rnd, word="MELANIC", ref="H3")
    assert (error.code, error.status) == ("round_not_closed", 409)


def test_correction_before_the_close_replaces_the_slip(game, make_player, arbitrator):
    player, _ = make_player(game)
    rnd = open_round(game)
    slip, _ = services.slip_submit(round=rnd, player=player, word="HELLO", ref="H4", score=8, key="k")
    assert error_of(services.slip_correct, slip=slip, reason=" ", actor=arbitrator, score=9).code == "reason_required"
    fixed = services.slip_correct(slip=slip, reason="typed wrong", actor=arbitrator, score=9)
    assert (fixed.word, fixed.ref, fixed.claimed, fixed.replaces_id) == ("HELLO", "H4", 9, slip.pk)
    assert not Result.objects.exists()
    error = error_of(services.slip_correct, slip=slip, reason="again", actor=arbitrator, score=10)
    assert (error.code, error.status) == ("slip_replaced", 409)


def test_correction_after_the_close_judges_again_and_is_logged(game, make_player, arbitrator):
    player, _ = make_player(game)
    rnd = open_round(game, rack="ACEILMN")
    word, ref, score = a_top(rnd)
    slip, _ = services.slip_submit(round=rnd, player=player, word=word, ref=ref, score=score + 1, key="k")
    services.round_close(round=rnd)
    assert Result.objects.get(round=rnd).outcome == "warning"
    services.slip_correct(slip=slip, reason="the slip said 78, misread", actor=arbitrator, score=score)
    result = Result.objects.get(round=rnd)
    assert (result.paid, result.outcome, result.corrected) == (score, "ok", True)
    entry = LogEntry.objects.get(action="slip_correct")
    assert entry.before["slip"]["claimed"] == score + 1 and entry.after["slip"]["claimed"] == score
    assert entry.before["result"]["outcome"] == "warning" and entry.after["result"]["outcome"] == "ok"


def test_game_end_refuses_an_open_round_and_cancels_a_drawn_one(game):
    rnd = open_round(game)
    assert error_of(services.game_end, game=game).code == "round_open"
    services.round_close(round=rnd)
    game.refresh_from_db()
    bag_before = game.bag
    drawn = services.round_draw(game=game)
    ended = services.game_end(game=game)
    drawn.refresh_from_db()
    assert ended.status == Game.Status.OVER and ended.end_reason == "arbitrator"
    assert drawn.status == Round.Status.CANCELLED
    assert Counter(ended.bag) == Counter(bag_before) + Counter(game.kept)
    assert services.game_end(game=game).status == Game.Status.OVER  # a second end changes nothing


def test_a_round_with_no_possible_play_is_cancelled_and_drawn_again(make_game):
    services.lexicon_import(name="TINY", words=["qi", "za", "x-ray", "a"])
    game = make_game(lexicon="TINY")
    rnd = open_round(game, rack="BCDEFGO")
    assert services.round_close(round=rnd)
    rnd.refresh_from_db()
    game.refresh_from_db()
    assert rnd.status == Round.Status.CANCELLED and not Result.objects.exists()
    assert len(game.bag) == 100 and game.kept == ""
    again = services.round_draw(game=game)
    assert again.number == 1


def test_lexicon_import_reports_rejected_entries(make_tournament):
    info, rejected = services.lexicon_import(name="CLUB", words=["chat", "chien", "été", "x-ray", "a", "ÇA"])
    assert set(rejected) == {"x-ray", "a"}
    assert info.word_count == 4 and info.imported and len(info.sha256) == 64
    tournament = make_tournament(lexicon="CLUB")
    assert tournament.lexicon_sha256 == info.sha256
    assert "ETE" in get_lexicon("CLUB")
    assert error_of(services.lexicon_import, name="TWL06", words=["aa"]).code == "lexicon_builtin"


def test_a_paper_slip_entered_after_the_close_is_judged_and_logged(game, make_player, arbitrator):
    player, _ = make_player(game)
    rnd = open_round(game, rack="ACEILMN")
    word, ref, score = a_top(rnd)
    error = error_of(services.slip_add, round=rnd, player=player, word=word, ref=ref, score=score,
                     reason="paper slip", actor=arbitrator)
    assert (error.code, error.status) == ("round_not_closed", 409)
    services.round_close(round=rnd)
    assert Result.objects.get(round=rnd, player=player).reason == "no_slip"
    slip = services.slip_add(round=rnd, player=player, word=word, ref=ref, score=score, reason="paper slip",
                             actor=arbitrator)
    result = Result.objects.get(round=rnd, player=player)
    assert (result.slip, result.paid, result.outcome, result.corrected) == (slip, score, "ok", True)
    entry = LogEntry.objects.get(action="slip_add")
    assert entry.before["result"]["reason"] == "no_slip" and entry.after["result"]["paid"] == score
    error = error_of(services.slip_add, round=rnd, player=player, word=word, ref=ref, score=score,
                     reason="again", actor=arbitrator)
    assert error.code == "slip_exists"


def test_the_arbitrator_may_overrule_a_result(game, make_player, arbitrator):
    player, _ = make_player(game)
    rnd = open_round(game)
    services.round_close(round=rnd)
    result = Result.objects.get(round=rnd, player=player)
    assert error_of(services.result_override, result=result, paid=5, outcome="zero", reason="x",
                    actor=arbitrator).code == "bad_outcome"
    assert error_of(services.result_override, result=result, paid=-2, outcome="ok", reason="x",
                    actor=arbitrator).code == "bad_score"
    services.result_override(result=result, paid=12, outcome="ok", reason="slip found under the table",
                             actor=arbitrator)
    result.refresh_from_db()
    assert (result.paid, result.outcome, result.reason, result.corrected) == (12, "ok", "arbitrator", True)
    assert selectors.game_standings(game=game)[0]["total"] == 12
    entry = LogEntry.objects.get(action="result_override")
    assert entry.before["paid"] == 0 and entry.after["paid"] == 12 and entry.actor == arbitrator


def test_rows_numbers_labelling_for_tops_master_and_slips(make_game, make_player):
    game = make_game(coordinates="rows-numbers")
    player, _ = make_player(game)
    rnd = open_round(game, rack="ACEILMN")
    # MELANIC from row 8 (H), column 4 (D) across: "8D" in this labelling, "H4" in the default one.
    services.slip_submit(round=rnd, player=player, word="MELANIC", ref="8D", score=78, key="k")
    services.round_close(round=rnd)
    rnd.refresh_from_db()
    assert sorted(t["ref"] for t in rnd.tops) == ["8D", "8F"]
    result = Result.objects.get(round=rnd)
    assert (result.paid, result.outcome) == (78, "ok")
    other = next(t for t in rnd.tops if t["ref"] != rnd.master["ref"])
    services.round_choose_master(round=rnd, word="MELANIC", ref=other["ref"])
    rnd.refresh_from_db()
    assert rnd.master["ref"] == other["ref"]


def test_the_demo_has_a_game_ready_to_play_and_is_created_once():
    from tournaments.demo import DEMO_PLAYERS, DEMO_USERNAME, create_demo

    lines = create_demo()
    game = Game.objects.get()
    assert game.status == Game.Status.READY and game.tournament.created_by.username == DEMO_USERNAME
    assert sorted(p.name for p in Player.objects.in_game(game)) == sorted(name for name, _ in DEMO_PLAYERS)
    assert any(game.join_code in line for line in lines)
    create_demo()
    assert Game.objects.count() == 1 and Player.objects.count() == len(DEMO_PLAYERS)
    rnd = services.round_start(round=services.round_draw(game=game))
    assert rnd.status == Round.Status.OPEN
