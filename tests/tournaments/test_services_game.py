"""A whole game through the services, three players, from the first draw to the end of the bag.

Every expected value is worked out here from the engine's own pieces (tops, check_play, the move list,
the master heuristic) and the rules' numbers, never read back from the service's output.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine.board import Board
from engine.checking import PlayError, check_play
from engine.drawing import sort_tiles
from engine.master import choose_master
from engine.movegen import find_tops, generate_plays
from engine.notation import format_ref
from tournaments import selectors, services
from tournaments.errors import Conflict
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, LogEntry, Result, Round

from .game_support import misplaced_ref

pytestmark = pytest.mark.django_db

TYPED_FIRST_RACK = "ACEILMN"  # MELANIC at H4 and H6 tie on the empty board


def ref_of(play) -> str:
    return format_ref(play.row, play.col, play.horizontal)


def invalid_variant(board, play, lexicon):
    """The play's word with two of its new tiles swapped so that it is no word: (word, PlayError) or None."""
    dr, dc = (0, 1) if play.horizontal else (1, 0)
    new = [k for k in range(len(play.word)) if board.get(play.row + dr * k, play.col + dc * k) == "."]
    for i in new:
        for j in new:
            if i < j and play.word[i] != play.word[j]:
                letters = list(play.word)
                letters[i], letters[j] = letters[j], letters[i]
                word = "".join(letters)
                if word.upper() not in lexicon:
                    return word
    return None


def penalty_paid(claimed: int, rules) -> int:
    paid = claimed - rules.penalty
    return paid if paid > rules.penalty_floor else 0


def test_whole_game_three_players_to_the_end_of_the_bag(make_game, make_player, arbitrator):
    game = make_game(seed=20261121, solo_min_players=3)
    tournament = game.tournament
    rules, tileset, lexicon = tournament.rules, tournament.tiles, get_lexicon(tournament.lexicon)
    ann, _ = make_player(game, "Ann", table=1)
    bob, _ = make_player(game, "Bob", table=2)
    cleo, _ = make_player(game, "Cleo", table=3)
    players = [ann, bob, cleo]

    board = Board.empty()
    kept = ""
    paid = {p.pk: [] for p in players}  # expected paid per closed round
    outcome_of = {p.pk: [] for p in players}
    tops_per_round: list[int] = []
    seen_reasons: Counter = Counter()
    corrected = False
    cancelled = 0

    for _ in range(60):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        first = not tops_per_round and cancelled == 0
        try:
            rnd = services.round_draw(game=game, rack=TYPED_FIRST_RACK if first else None, actor=arbitrator)
        except Conflict as error:
            assert error.code == "game_over"
            break
        # The rack starts with the letters the last master left, unless the draw was rejected.
        if rnd.rejected and rnd.kept == "":
            assert all(r.startswith("-") for r in rnd.rejected)
        else:
            assert rnd.kept == sort_tiles(kept)
        assert rnd.typed == first
        rack = rnd.rack
        tops = find_tops(board, rack, lexicon, tileset, rules)
        services.round_start(round=rnd, actor=arbitrator)

        if tops.score is None:
            assert services.round_close(round=rnd, actor=arbitrator)
            rnd.refresh_from_db()
            assert rnd.status == Round.Status.CANCELLED
            cancelled += 1
            kept = ""
            continue

        top = tops.plays[0]
        n = len(tops_per_round) + 1
        expected: dict[int, tuple[int, str, str]] = {}

        # Ann always hands in a top, exactly.
        services.slip_submit(round=rnd, player=ann, word=top.word, ref=ref_of(top), score=top.score, key=f"a{n}")
        expected[ann.pk] = (top.score, "ok", "ok")

        # Bob: a wrong claimed score on a top, a lower legal play, or a top.
        lower = [p for p in generate_plays(board, rack, lexicon, tileset, rules) if p.score < tops.score]
        if n % 3 == 1:
            services.slip_submit(round=rnd, player=bob, word=top.word, ref=ref_of(top), score=top.score + 3,
                                 key=f"b{n}")
            expected[bob.pk] = (top.score, "warning", "wrong_score")
        elif n % 3 == 2 and lower:
            play = max(lower, key=lambda p: (p.score, p.word, p.row, p.col))
            checked = check_play(board, rack, play.word, play.row, play.col, play.horizontal, lexicon, tileset,
                                 rules)
            services.slip_submit(round=rnd, player=bob, word=play.word, ref=ref_of(play), score=checked.score,
                                 key=f"b{n}")
            expected[bob.pk] = (checked.score, "ok", "ok")
        else:
            services.slip_submit(round=rnd, player=bob, word=top.word, ref=ref_of(top), score=top.score, key=f"b{n}")
            expected[bob.pk] = (top.score, "ok", "ok")

        # Cleo: no slip, an invalid word, a misplaced reference (penalty), or a top; round 1 no slip.
        invalid = invalid_variant(board, top, lexicon) if n > 1 else None
        case = n % 4 if n > 1 else 1
        if case == 1:
            expected[cleo.pk] = (0, "zero", "no_slip")
        elif case == 2 and invalid:
            with pytest.raises(PlayError) as error:
                check_play(board, rack, invalid, top.row, top.col, top.horizontal, lexicon, tileset, rules)
            services.slip_submit(round=rnd, player=cleo, word=invalid, ref=ref_of(top), score=top.score,
                                 key=f"c{n}")
            expected[cleo.pk] = (0, "zero", error.value.reason)
        elif case == 3:
            ref = misplaced_ref(board, rack, top, lexicon, tileset, rules)
            # A first slip with the right reference, replaced by the one that counts.
            services.slip_submit(round=rnd, player=cleo, word=top.word, ref=ref_of(top), score=top.score,
                                 key=f"c{n}-draft")
            services.slip_submit(round=rnd, player=cleo, word=top.word, ref=ref, score=top.score, key=f"c{n}")
            expected[cleo.pk] = (penalty_paid(top.score, rules), "penalty", "wrong_ref")
        else:
            services.slip_submit(round=rnd, player=cleo, word=top.word, ref=ref_of(top), score=top.score,
                                 key=f"c{n}")
            expected[cleo.pk] = (top.score, "ok", "ok")

        assert services.round_close(round=rnd, actor=arbitrator)
        assert not services.round_close(round=rnd, actor=arbitrator)
        rnd.refresh_from_db()
        assert rnd.status == Round.Status.CLOSED
        assert rnd.top_score == tops.score
        assert sorted((t["word"], t["ref"]) for t in rnd.tops) == sorted((p.word, ref_of(p)) for p in tops.plays)

        # The master: the engine's proposal, or in round 1 (a tie) another top picked by the arbitrator.
        bag_after = list(rnd.bag_after)
        master = choose_master(tops, board, bag_after, tileset, rules, rack=rack)
        if n == 1:
            assert len(tops.plays) >= 2
            assert rnd.master["word"] == master.word and rnd.master["ref"] == ref_of(master)
            master = next(p for p in tops.plays if (p.word, ref_of(p)) != (master.word, ref_of(master)))
            services.round_choose_master(round=rnd, word=master.word, ref=ref_of(master), actor=arbitrator)
            rnd.refresh_from_db()
        assert (rnd.master["word"], rnd.master["ref"]) == (master.word, ref_of(master))
        board = board.place(master)
        used = Counter("?" if blank else letter for _, _, letter, blank in master.tiles)
        kept = "".join((Counter(rack) - used).elements())
        game.refresh_from_db()
        assert game.board == board.rows()
        assert Counter(game.kept) == Counter(kept)

        results = {r.player_id: r for r in Result.objects.filter(round=rnd)}
        assert set(results) == {p.pk for p in players}
        for player in players:
            want_paid, want_outcome, want_reason = expected[player.pk]
            got = results[player.pk]
            assert (got.paid, got.outcome, got.reason) == (want_paid, want_outcome, want_reason), (n, player.name)

        # A correction: the first invalid word is corrected to the top it was meant to be.
        if expected[cleo.pk][2] == "invalid_word" and not corrected:
            slip = results[cleo.pk].slip
            services.slip_correct(slip=slip, reason="misread on the slip", actor=arbitrator, word=top.word)
            fixed = Result.objects.get(round=rnd, player=cleo)
            assert (fixed.paid, fixed.outcome, fixed.corrected) == (top.score, "ok", True)
            entry = LogEntry.objects.filter(round=rnd, action="slip_correct").get()
            assert entry.actor == arbitrator and entry.reason == "misread on the slip"
            assert entry.before["result"]["paid"] == 0 and entry.after["result"]["paid"] == top.score
            expected[cleo.pk] = (top.score, "ok", "ok")
            corrected = True

        tops_per_round.append(tops.score)
        for player in players:
            paid[player.pk].append(expected[player.pk][0])
            outcome_of[player.pk].append(expected[player.pk][1])
            seen_reasons[expected[player.pk][2]] += 1
    else:
        raise AssertionError("the game did not end")

    game.refresh_from_db()
    assert game.status == Game.Status.OVER
    assert len(tops_per_round) >= 15
    # Every case of the brief came up: correct, wrong score, invalid word, missing, penalty, correction.
    for reason in ("ok", "wrong_score", "invalid_word", "no_slip", "wrong_ref"):
        assert seen_reasons[reason] >= 1, reason
    assert corrected

    # Final standings, worked out from the expected round scores.
    sum_tops = sum(tops_per_round)
    solos = Counter()
    for i in range(len(tops_per_round)):
        scores = {p.pk: paid[p.pk][i] for p in players}
        best = max(scores.values())
        winners = [pid for pid, s in scores.items() if s == best]
        if len(winners) == 1:
            solos[winners[0]] += 1
    want = {}
    for p in players:
        warnings = outcome_of[p.pk].count("warning")
        deduction = max(0, warnings - rules.free_warnings) * rules.warning_cost
        total = sum(paid[p.pk]) + solos[p.pk] * rules.solo_bonus - deduction
        want[p.pk] = {
            "total": total,
            "diff": total - sum_tops,
            "percent": round(100 * total / sum_tops, 2),
            "tops": sum(1 for s, t in zip(paid[p.pk], tops_per_round, strict=True) if s == t),
            "solos": solos[p.pk],
            "warnings": warnings,
            "penalties": outcome_of[p.pk].count("penalty"),
        }
    ordered = sorted(want.values(), key=lambda row: -row["total"])
    for row in want.values():
        row["rank"] = 1 + sum(1 for other in ordered if other["total"] > row["total"])
    assert want[bob.pk]["warnings"] > rules.free_warnings  # the deduction is exercised

    standings = selectors.game_standings(game=game)
    assert [row["player"] for row in standings] == sorted(want, key=lambda pid: (-want[pid]["total"], -pid))
    for row in standings:
        got = {key: row[key] for key in ("total", "diff", "percent", "tops", "solos", "warnings", "penalties", "rank")}
        assert got == want[row["player"]], row["name"]

    record = selectors.game_record(game=game)
    assert record["board"] == board.rows()
    assert record["top_total"] == sum_tops
