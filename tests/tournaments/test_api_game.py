"""A whole duplicate game played through the HTTP API, checked against the engine's own computation.

Three players hand in slips every round: A the top (right reference, right score), B a lower play with a
wrong claimed score (a warning; once a wrong reference with a reachable score: a penalty), C a word that
is not in the lexicon (zero; in round 2 no slip at all; in round 3 the arbitrator corrects C's slip).
Round 1 is a rack typed from a physical bag with a blank, so the tops tie and the arbitrator picks
another master; every later rack is drawn at random until the bag is empty.

Every expected figure is computed here from the board the API shows, with engine.movegen and
engine.checking, never read back from the services.
"""

from __future__ import annotations

import itertools

import pytest
from django.conf import settings as django_settings

from engine.board import Board
from engine.checking import PlayError, check_play
from engine.lexicon import load_lexicon
from engine.movegen import find_tops, generate_plays
from engine.notation import format_ref
from engine.rules import rules_preset
from engine.tiles import load_tileset
from tournaments.models import LogEntry, Slip

from .api_support import expect
from .game_support import misplaced_ref

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

TYPED_RACK = "EIRST?A"
SOLO_MIN_PLAYERS = 3  # so that the solo rule applies with three players


def ref_of(play) -> str:
    return format_ref(play.row, play.col, play.horizontal)


def brief(play) -> dict:
    return {"word": play.word, "ref": ref_of(play), "score": play.score}


def best_lower_play(plays, top: int):
    """The best play whose word can score no more than ``top - 1`` anywhere (its paid score is unambiguous,
    even under the first round's best-placement rule)."""
    best_of_word: dict[str, object] = {}
    for play in plays:
        if play.word not in best_of_word or play.score > best_of_word[play.word].score:
            best_of_word[play.word] = play
    lower = [p for p in best_of_word.values() if p.score < top]
    return max(lower, key=lambda p: (p.score, p.word, p.row, p.col)) if lower else None


def invalid_word_slip(board, rack, plays, lexicon, tileset, rules):
    """A legal play's new letters shuffled so that a word formed is not in the lexicon: (word, play)."""
    for play in sorted(plays, key=lambda p: (-len(p.tiles), p.word, p.row, p.col))[:60]:
        if len(play.tiles) < 2:
            continue
        new_positions = [
            i for i in range(len(play.word))
            if board.get(play.row + (0 if play.horizontal else i), play.col + (i if play.horizontal else 0)) == "."
        ]
        letters = [play.word[i] for i in new_positions]
        for order in itertools.islice(itertools.permutations(letters), 40):
            chars = list(play.word)
            for i, ch in zip(new_positions, order, strict=True):
                chars[i] = ch
            word = "".join(chars)
            if word == play.word:
                continue
            try:
                check_play(board, rack, word, play.row, play.col, play.horizontal, lexicon, tileset, rules)
            except PlayError as error:
                if error.reason == "invalid_word":
                    return word, play
    return None


def test_a_whole_game_through_http(api_game, settings):
    rates = {"slips": "1000/min", "join_failures": "1000/min"}
    settings.REST_FRAMEWORK = {**django_settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    lexicon = load_lexicon("TWL06", cache_dir=str(django_settings.LEXICON_CACHE_DIR))
    tileset = load_tileset("english")
    rules = rules_preset("fisf", solo_min_players=SOLO_MIN_PLAYERS)

    game = api_game(players=3, seed=20261121, rules={"solo_min_players": SOLO_MIN_PLAYERS})
    arb = game.arbitrator
    a, b, c = game.players
    paid = {seat.id: [] for seat in game.players}
    outcomes = {seat.id: [] for seat in game.players}
    tops_per_round: list[int] = []
    board = Board.empty()
    number = 0
    seen_tie = corrected = penalised = missing = False

    while True:
        number += 1
        body = {"rack": TYPED_RACK} if number == 1 else {}
        response = arb.post(game.url("/rounds"), body, format="json")
        if response.status_code == 409:
            assert response.json()["error"]["code"] == "game_over"
            break
        drawn = expect(response, 201)
        assert drawn["number"] == number and drawn["status"] == "drawn"
        rack = drawn["rack"]
        assert sorted(rack) == sorted(drawn["kept"] + drawn["drawn"])
        if number == 1:
            assert sorted(rack) == sorted(TYPED_RACK)
        state = expect(arb.get(game.url()), 200)
        assert state["board"] == board.rows()
        assert (state["round"], state["rack"]) == (number, rack)

        # What the engine says about this board and rack, computed here.
        tops = find_tops(board, rack, lexicon, tileset, rules)
        plays = generate_plays(board, rack, lexicon, tileset, rules)
        assert tops.score is not None, "a round without any play would be cancelled"
        top_play = min(tops.plays, key=lambda p: (p.word, p.row, p.col, p.horizontal))
        lower = best_lower_play(plays, tops.score)
        invalid = invalid_word_slip(board, rack, plays, lexicon, tileset, rules)

        started = expect(arb.post(game.round_url(number, "/start"), {}, format="json"), 200)
        assert started["status"] == "open" and started["deadline"]

        # A: the top, right reference and score (round 1: sent twice with one key).
        slip_a = {"word": top_play.word, "ref": ref_of(top_play), "score": top_play.score, "key": f"a-{number}"}
        first = expect(a.client.post(game.round_url(number, "/slips"), slip_a, format="json"), 201)
        if number == 1:
            before = Slip.objects.count()
            again = expect(a.client.post(game.round_url(number, "/slips"), slip_a, format="json"), 200)
            assert again["id"] == first["id"] and Slip.objects.count() == before
        expected = {a.id: ("ok", tops.score)}

        # B: a lower play with a wrong score (a warning), or in round 4 a wrong reference with the right score.
        b_play = lower or top_play
        b_ref, b_claimed = ref_of(b_play), b_play.score + 1
        if number == 4:
            b_ref = misplaced_ref(board, rack, b_play, lexicon, tileset, rules)
            b_claimed = b_play.score
            expected[b.id] = ("penalty", b_play.score - 5 if b_play.score - 5 > rules.penalty_floor else 0)
            penalised = True
        else:
            expected[b.id] = ("warning", b_play.score)
        if number == 2:  # a first slip, replaced by a new key while the round is open
            expect(b.client.post(game.round_url(number, "/slips"),
                                 {"word": top_play.word, "ref": ref_of(top_play), "score": 1, "key": "b-2-draft"},
                                 format="json"), 201)
        expect(b.client.post(game.round_url(number, "/slips"),
                             {"word": b_play.word, "ref": b_ref, "score": b_claimed, "key": f"b-{number}"},
                             format="json"), 201)

        # C: a word not in the lexicon; no slip at all in round 2 (or when no such word can be made).
        c_slip = None
        if number != 2 and invalid is not None:
            word, where = invalid
            c_slip = expect(c.client.post(game.round_url(number, "/slips"),
                                          {"word": word, "ref": ref_of(where), "score": 10, "key": f"c-{number}"},
                                          format="json"), 201)
            expected[c.id] = ("zero", 0, "invalid_word")
        else:
            missing = True
            expected[c.id] = ("zero", 0, "no_slip")

        # Before the close: a player sees only their own slip, no tops, no results.
        seen_by_c = expect(c.client.get(game.round_url(number)), 200)
        assert seen_by_c["status"] == "open"
        assert seen_by_c["tops"] is None and seen_by_c["master"] is None and seen_by_c["results"] is None
        assert (seen_by_c["slip"] or {}).get("id") == (c_slip or {}).get("id")

        closed = expect(arb.post(game.round_url(number, "/close"), {}, format="json"), 200)
        assert closed["closed"] is True and closed["status"] == "closed"
        detail = expect(arb.get(game.round_url(number)), 200)
        assert detail["top_score"] == tops.score
        # Each top as the engine gives it (beside it, its word in the set's labels: the same letters in English).
        engine_tops = [brief(p) for p in tops.plays]
        assert sorted(tuple(t[k] for k in engine_tops[0]) for t in detail["tops"]) == sorted(
            tuple(e.values()) for e in engine_tops
        )
        assert all(t["word_labels"] == t["word"] for t in detail["tops"])
        if number == 1:
            assert all(p.horizontal for p in tops.plays)
        by_key = {(p.word, ref_of(p)): p for p in tops.plays}
        master = by_key[(detail["master"]["word"], detail["master"]["ref"])]

        if len(tops.plays) > 1 and not seen_tie:
            # A tie among tops: the arbitrator confirms another of them as the master.
            seen_tie = True
            other = next(p for p in sorted(tops.plays, key=lambda p: (p.word, p.row, p.col)) if p != master)
            expect(arb.post(game.round_url(number, "/master"), {"word": other.word, "ref": ref_of(other)},
                            format="json"), 200)
            detail = expect(arb.get(game.round_url(number)), 200)
            assert (detail["master"]["word"], detail["master"]["ref"]) == (other.word, ref_of(other))
            master = other

        if number == 3 and c_slip is not None:
            # The arbitrator corrects C's slip to what C really played: the top.
            corrected = True
            expect(arb.post(game.round_url(number, f"/slips/{c_slip['id']}/correct"),
                            {"word": top_play.word, "ref": ref_of(top_play), "score": top_play.score,
                             "reason": "misread handwriting"}, format="json"), 200)
            expected[c.id] = ("ok", tops.score, "ok")
            detail = expect(arb.get(game.round_url(number)), 200)

        results = {row["player"]: row for row in detail["results"]}
        assert set(results) == set(paid)
        for seat in game.players:
            row, want = results[seat.id], expected[seat.id]
            assert (row["outcome"], row["paid"]) == want[:2], (number, seat.name, row, want)
            if len(want) == 3:
                assert row["reason"] == want[2], (number, seat.name, row)
            paid[seat.id].append(row["paid"])
            outcomes[seat.id].append(row["outcome"])
        if expected[b.id][0] == "warning":
            assert results[b.id]["reason"] == "wrong_score"
        tops_per_round.append(tops.score)

        board = board.place(master)
        left_over = len(rack) - len(master.tiles)
        state = expect(arb.get(game.url()), 200)
        assert state["board"] == board.rows()
        if state["status"] == "over":
            assert arb.post(game.url("/rounds"), {}, format="json").json()["error"]["code"] == "game_over"
            break
        assert number < 40, "the game should have ended with the bag"

    assert seen_tie and corrected and penalised and missing
    assert number >= 15
    final = expect(arb.get(game.url()), 200)
    assert final["status"] == "over" and final["end_reason"] in ("bag_empty", "no_valid_rack")
    # Every tile is on the board, left over from the last rack, or (when no valid rack can be drawn) in the bag.
    on_board = sum(ch != "." for row in board.rows() for ch in row)
    assert on_board + left_over + final["bag_count"] == 100
    assert final["board"] == board.rows()
    assert LogEntry.objects.filter(game_id=game.id, action="slip_correct").count() == 1

    # The standings, recomputed from the paid scores gathered round by round.
    sum_tops = sum(tops_per_round)
    rounds = len(tops_per_round)
    solos = {seat.id: 0 for seat in game.players}
    for i in range(rounds):
        scores = sorted(((paid[pid][i], pid) for pid in paid), reverse=True)
        if scores[0][0] > scores[1][0]:
            solos[scores[0][1]] += 1
    want = {}
    for seat in game.players:
        warnings = outcomes[seat.id].count("warning")
        total = sum(paid[seat.id]) + rules.solo_bonus * solos[seat.id] - rules.warning_cost * max(
            0, warnings - rules.free_warnings
        )
        want[seat.id] = {
            "player": seat.id, "name": seat.name, "table": seat.table, "total": total, "diff": total - sum_tops,
            "tops": sum(1 for s, t in zip(paid[seat.id], tops_per_round, strict=True) if s == t),
            "solos": solos[seat.id], "warnings": warnings, "penalties": outcomes[seat.id].count("penalty"),
        }
    ranked = sorted(want.values(), key=lambda row: -row["total"])
    for i, row in enumerate(ranked):
        row["rank"] = 1 + next(j for j, other in enumerate(ranked) if other["total"] == row["total"])
        assert i == 0 or row["total"] <= ranked[i - 1]["total"]
    assert solos[a.id] > 0 and want[b.id]["warnings"] > rules.free_warnings and want[b.id]["penalties"] == 1

    standings = expect(game.arbitrator.__class__().get(game.url("/standings")), 200)  # public: no credentials
    assert [row["player"] for row in standings] == [row["player"] for row in ranked]
    for row in standings:
        expected_row = {**want[row["player"]], "table": None}  # a table number is not public (docs/security.md)
        assert {k: row[k] for k in expected_row} == expected_row
        assert row["percent"] == pytest.approx(100 * expected_row["total"] / sum_tops, abs=0.01)
