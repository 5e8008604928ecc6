"""The variants through the tournament (docs/rules.md section 7): a whole game of joker, explosive, 7 sur 8 and
7 et 8 played through the API, on PostgreSQL.

Each round: the draw obeys the variant (a blank in every joker rack while one is left, the explosive blank
replaced by a letter or kept, 8 tiles while the bag holds them); one phone hands in the top found here with the
engine's search, the other a play claimed one point short (a warning) or nothing; after the close the board is
the master placed with its blanks replaced by their letters while the bag holds them (joker, explosive), kept
here round by round with the engine. The standings are then computed here from the raw slips, each judged with
the engine's judge on the board kept here, and compared with the server's.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest

from engine.board import Board
from engine.drawing import replace_played_blanks
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip
from engine.notation import format_ref
from engine.search import find_tops
from tournaments.exports.record import export_record
from tournaments.lexicons import get_lexicon
from tournaments.models import LogEntry, Round, Tournament
from tournaments.packs import game_file_from_record, read_game_file
from tournaments.setting import play_from_dict

from .api_support import assert_error, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

MAX_ROUNDS = 40  # a game has about 20; the bound turns a fault into a failure, not a hang


def _claim(play, labelling: str) -> dict:
    return {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, labelling),
            "score": play.score}


@pytest.mark.parametrize("variant", ["joker", "explosive", "seven_of_eight", "seven_and_eight"])
def test_a_whole_game_of_the_variant_through_the_api(api_game, variant):
    game = api_game(players=2, seed=11, variant=variant, lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    assert (tournament.variant, tournament.timing) == (variant, "normal")
    rules, tileset, lexicon = tournament.rules, tournament.tiles, get_lexicon("TWL06")
    assert rules.rack_size == (8 if variant.startswith("seven") else 7)
    arb, (a, b) = game.arbitrator, game.players
    board = Board.from_rows(["." * 15] * 15)
    slips: dict[int, list[tuple[int, dict | None]]] = {a.id: [], b.id: []}
    rounds = []  # (number, board rows, rack, master score)
    eight_placed = replaced_blanks = 0
    for number in range(1, MAX_ROUNDS + 1):
        before = expect(arb.get(game.url()), 200)
        if before["status"] == "over":
            break
        state_board = before["board"]
        assert state_board == board.rows(), f"round {number}: the board is the masters with the blanks replaced"
        game_row = tournament.games.get(pk=game.id)
        blanks_left = (game_row.bag + game_row.kept).count("?")
        response = arb.post(game.url("/rounds"), {}, format="json")
        if response.status_code == 409:
            break
        drawn = expect(response, 201)
        rack = drawn["rack"]
        left = len(game_row.bag) + len(game_row.kept)
        assert len(rack) == min(rules.rack_size, left), (number, rack)
        if variant == "joker" and blanks_left:
            assert "?" in rack, f"round {number}: a joker rack holds a blank while one is left"
        if variant == "explosive" and blanks_left and game_row.kept.count("?") < blanks_left:
            entry = LogEntry.objects.filter(game_id=game.id, action="round_draw").order_by("-id").first()
            replaced = entry.after.get("replaced")
            assert "?" in rack or replaced in rack, f"round {number}: the new blank is in the rack or replaced"
        if variant not in ("joker", "explosive"):
            assert rack.count("?") <= 2
        expect(arb.post(game.round_url(number, "/start"), {}, format="json"), 200)
        tops = find_tops(board, rack, lexicon, tileset, rules)
        if tops.score is None:
            expect(arb.post(game.round_url(number, "/close"), {}, format="json"), 200)
            continue
        top = tops.plays[0]
        slip_a = _claim(top, tournament.coordinates)
        expect(a.client.post(game.round_url(number, "/slips"), {**slip_a, "key": f"a{number}"}, format="json"), 201)
        slip_b = None
        if number % 3:
            slip_b = {**slip_a, "score": top.score - 1}  # one point short: a warning
            expect(b.client.post(game.round_url(number, "/slips"), {**slip_b, "key": f"b{number}"}, format="json"),
                   201)
        slips[a.id].append((number, slip_a))
        slips[b.id].append((number, slip_b))
        expect(arb.post(game.round_url(number, "/close"), {}, format="json"), 200)
        closed = Round.objects.get(game_id=game.id, number=number)
        assert closed.master is not None and closed.master["score"] == tops.score
        rounds.append((number, board.rows(), rack, tops.score))
        master = play_from_dict(closed.master)
        placed = len(master.tiles)
        assert placed <= rules.max_placed
        if placed == 8:
            eight_placed += 1
            assert rules.bonus_for(8) == 75
        board = board.place(master)
        if variant in ("joker", "explosive"):
            bag_after = list(closed.bag_after)
            board, bag, letters = replace_played_blanks(board, master.tiles, bag_after,
                                                        replace(rules, joker=True, explosive=False))
            replaced_blanks += len(letters)
            assert Counter(tournament.games.get(pk=game.id).bag) == Counter(bag)
    else:
        pytest.fail(f"the game did not end within {MAX_ROUNDS} rounds")
    assert len(rounds) >= 10, "a whole game"
    if variant == "joker":
        assert replaced_blanks >= 1, "some played blank was replaced by its letter"
    if variant == "explosive":
        exploded = [e.after["replaced"] for e in LogEntry.objects.filter(game_id=game.id, action="round_draw")
                    if e.after.get("replaced")]
        assert exploded, "some new blank became the letter of the rack's top"

    # The game's record and a pack made from it carry the variant: the same rules, the same boards.
    record = export_record(tournament.games.get(pk=game.id))
    assert (record["tournament"]["variant"], record["tournament"]["timing"]) == (variant, "normal")
    game_file = game_file_from_record(record)
    assert game_file.rules == rules
    assert [list(r.board) for r in game_file.game.rounds] == [rows for _, rows, _, _ in rounds]
    read_back = read_game_file(json.loads(json.dumps(game_file.as_dict())))  # as a sealed pack reads it
    assert [list(r.board) for r in read_back.game.rounds] == [rows for _, rows, _, _ in rounds]
    assert list(read_back.game.board) == board.rows()

    # The standings from the raw slips, judged here with the engine on the boards kept here.
    expected = {}
    for seat in (a, b):
        total, warnings = 0, 0
        by_round = dict(slips[seat.id])
        for number, rows, rack, _score in rounds:
            slip = by_round.get(number)
            if slip is None:
                continue
            found = judge_slip(Board.from_rows(rows), rack, number,
                               EngineSlip(slip["word"], slip["ref"], slip["score"]), lexicon, tileset, rules,
                               labelling=tournament.coordinates)
            total += found.paid
            warnings += found.outcome == "warning"
        cost = max(0, warnings - rules.free_warnings) * rules.warning_cost if rules.warnings else 0
        expected[seat.id] = total - cost
    standings = expect(arb.get(game.url("/standings")), 200)
    assert {row["player"]: row["total"] for row in standings} == expected
    assert expected[a.id] == sum(score for *_, score in rounds)
    assert expected[a.id] > expected[b.id] > 0


def test_the_variant_and_timing_at_creation_and_their_refusals(arbitrator_client):
    body = {"name": "Blitz joker", "variant": "joker", "timing": "blitz"}
    made = expect(arbitrator_client.post("/api/tournaments", body, format="json"), 201)
    assert (made["variant"], made["timing"], made["round_seconds"]) == ("joker", "blitz", 60)
    rules = Tournament.objects.get(pk=made["id"]).rules
    assert (rules.joker, rules.round_seconds, rules.free_warnings) == (True, 60, 5)
    own = expect(arbitrator_client.post("/api/tournaments", {**body, "round_seconds": 75, "variant":
                                        "seven_and_eight", "rules": {"big_bingo_bonus": 80}}, format="json"), 201)
    rules = Tournament.objects.get(pk=own["id"]).rules
    assert (rules.rack_size, rules.max_placed, rules.bonus_for(8), rules.round_seconds) == (8, 8, 80, 75)
    plain = expect(arbitrator_client.post("/api/tournaments", {"name": "Plain"}, format="json"), 201)
    assert (plain["variant"], plain["timing"], plain["round_seconds"]) == ("duplicate", "normal", 180)
    count = Tournament.objects.count()
    assert_error(arbitrator_client.post("/api/tournaments", {**body, "variant": "scrabble"}, format="json"), 400)
    assert_error(arbitrator_client.post("/api/tournaments", {**body, "timing": "slow"}, format="json"), 400)
    assert_error(arbitrator_client.post("/api/tournaments", {**body, "rules": {"joker": False}}, format="json"), 400)
    assert Tournament.objects.count() == count


@pytest.mark.parametrize("variant", ["duplicate", "joker", "explosive", "seven_of_eight", "seven_and_eight", "topping"])
@pytest.mark.parametrize("timing", ["normal", "blitz"])
def test_a_pack_carries_the_variant_to_the_centre_s_tournament(variant, timing):
    from engine.rules import variant_rules
    from tournaments.centre import pack_settings

    rules = variant_rules(variant, timing=timing, solo_min_players=3)
    settings = pack_settings({"rules": rules.as_dict(), "lexicon": {"name": "TWL06"}, "tileset": "english",
                              "labelling": "rows-letters"})
    assert settings["variant"] == variant
    rebuilt = variant_rules(settings["variant"], ruleset=settings["ruleset"], round_seconds=settings["round_seconds"],
                            **settings["rule_overrides"])
    assert rebuilt == rules


def test_seven_of_eight_pays_nothing_for_a_slip_placing_8_and_seven_and_eight_pays_it_with_75(api_game):
    lexicon = get_lexicon("TWL06")
    paid = {}
    for variant in ("seven_of_eight", "seven_and_eight"):
        game = api_game(players=1, seed=3, variant=variant, lexicon="TWL06")
        tournament = Tournament.objects.get(pk=game.tournament_id)
        arb, (a,) = game.arbitrator, game.players
        assert expect(arb.post(game.url("/rounds"), {"rack": "AEINORST"}, format="json"), 201)["rack"] == "AEINORST"
        expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
        tops = find_tops(Board.from_rows(["." * 15] * 15), "AEINORST", lexicon, tournament.tiles, tournament.rules)
        eight = {"word": "NOTARIES", "ref": "H1", "score": 129, "key": "a1"}
        expect(a.client.post(game.round_url(1, "/slips"), eight, format="json"), 201)
        expect(arb.post(game.round_url(1, "/close"), {}, format="json"), 200)
        result = Round.objects.get(game_id=game.id, number=1).results.get()
        paid[variant] = (result.outcome, result.paid, tops.score, len(tops.plays[0].tiles))
    # 7 sur 8: at most 7 placed, so the top places 7 (50 of bonus) and NOTARIES from H1 is no play of the rack.
    outcome, pays, top, placed = paid["seven_of_eight"]
    assert (outcome, pays, placed) == ("zero", 0, 7) and top < 129
    assert paid["seven_and_eight"] == ("ok", 129, 129, 8)


@pytest.mark.parametrize("variant", ["joker", "explosive", "seven_and_eight"])
def test_the_pack_command_draws_a_game_of_the_variant(variant, tmp_path):
    from django.core.management import call_command

    out = tmp_path / "game.json"
    call_command("pack", "draw", "--seed", "31", "--variant", variant, "--timing", "blitz", "--max-rounds", "8",
                 "--out", str(out))
    game_file = read_game_file(json.loads(out.read_text()))
    assert game_file.rules == variant_rules_of(variant, "blitz")
    rounds = game_file.game.rounds
    assert len(rounds) == 8
    if variant == "joker":
        assert all("?" in r.rack for r in rounds)  # 2 blanks in the bag: far from the last one in 8 rounds
    if variant == "seven_and_eight":
        assert all(len(r.rack) == 8 for r in rounds)


def variant_rules_of(variant: str, timing: str):
    from engine.rules import variant_rules

    return variant_rules(variant, timing=timing)


@pytest.mark.parametrize("variant", ["joker", "explosive"])
def test_a_sealed_pack_of_the_variant_plays_at_a_centre_with_its_racks_and_boards(variant, arbitrator, settings):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from engine.rules import variant_rules
    from tournaments import centre, packs, services

    organiser = Ed25519PrivateKey.generate()
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser)]
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    game_file = packs.draw_game_file(seed=2026, rules=variant_rules(variant), max_rounds=12)
    pack, key = packs.seal_pack(game_file, event="Simultané joker", game_id="G1", signer=organiser)
    tournament = services.tournament_create(name="Centre", created_by=arbitrator)
    game = centre.pack_import(tournament=tournament, raw=packs.pack_bytes(pack), actor=arbitrator)
    tournament.refresh_from_db()
    assert tournament.variant == variant and tournament.rules == game_file.rules
    centre.pack_unlock(game=game, key=packs.key_text(key), actor=arbitrator)
    for planned in game_file.game.rounds:
        game.refresh_from_db()
        assert game.board == list(planned.board), f"round {planned.number}: the pack's board"
        round = services.round_draw(game=game, actor=arbitrator)
        assert round.rack == planned.rack
        round = services.round_start(round=round, actor=arbitrator)
        services.round_close(round=round, actor=arbitrator)
        round.refresh_from_db()
        assert (round.master["word"], round.master["row"], round.master["col"]) == (
            planned.master.word, planned.master.row, planned.master.col)
    game.refresh_from_db()
    assert game.board == list(game_file.game.board)
    if variant == "joker":
        assert any("?" in r.rack for r in game_file.game.rounds)
