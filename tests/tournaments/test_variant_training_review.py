"""Training and the player's review on games of the variants (docs/rules.md 7.7): 7 et 8 and 7 sur 8 (racks of 8,
at most 7 or 8 placed, 50 for 7 tiles and 75 for 8), joker (a played blank replaced on the board by its
letter), topping (the player's time in each round)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from engine.board import Board
from engine.movegen import generate_plays
from tournaments import review_selectors as review
from tournaments import services
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, Player, Result, Round

from .api_support import expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def _play(api_game, variant: str, rounds: list[tuple[str | None, list[dict | None]]], players: int = 2,
          started_before: int = 0, **tournament):
    """A game of ``variant`` played through the API: each round's rack typed (None: drawn), each player's
    slip (None: no slip; a list: several tries), then the game ended and opened to training. ``started_before``:
    each round's start moved back that many seconds before the slips (topping's times)."""
    game = api_game(players=players, seed=5, variant=variant, lexicon="TWL06", **tournament)
    arb = game.arbitrator
    for number, (rack, slips) in enumerate(rounds, start=1):
        expect(arb.post(game.url("/rounds"), {"rack": rack} if rack else {}, format="json"), 201)
        expect(arb.post(game.round_url(number, "/start"), {}, format="json"), 200)
        if started_before:
            row = Round.objects.get(game_id=game.id, number=number)
            Round.objects.filter(pk=row.pk).update(started_at=row.started_at - timedelta(seconds=started_before))
        for seat, slip in zip(game.players, slips, strict=True):
            for i, one in enumerate(slip if isinstance(slip, list) else [slip]):
                if one is not None:
                    expect(seat.client.post(game.round_url(number, "/slips"), {**one, "key": f"{seat.id}-{number}-{i}"},
                                            format="json"), 201)
        expect(arb.post(game.round_url(number, "/close"), {}, format="json"), 200)
    expect(arb.post(game.url("/end"), {}, format="json"), 200)
    row = Game.objects.select_related("tournament").get(pk=game.id)
    services.training_set(game=row, value="everyone")
    return game, row


def _judge(client, game_id, number, word, ref="", score=None):
    return expect(client.post(f"/games/{game_id}/train/judge", {"round": number, "word": word, "ref": ref,
                                                                 "score": score}, content_type="application/json"), 200)


NOTARIES = {"word": "NOTARIES", "ref": "H1", "score": 129}
SENATOR = {"word": "SENATOR", "ref": "H8", "score": 66}


def _rounds(client, game) -> list[dict]:
    return expect(client.get(f"/games/{game.pk}/train/rounds"), 200)["rounds"]


def _all_plays(round: Round) -> list:
    t = round.game.tournament
    return generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(t.lexicon), t.tiles, t.rules)


# ------------------------------------------------------------------------------------------------------------
# 7 et 8, 7 sur 8


def test_training_on_a_seven_and_eight_game_shows_racks_of_8_and_pays_75_for_8_tiles_and_50_for_7(api_game):
    _, game = _play(api_game, "seven_and_eight", [("AEINORST", [NOTARIES, SENATOR]), (None, [None, None])])
    client = Client()
    rounds = _rounds(client, game)
    assert [len(r["rack"]) for r in rounds] == [8, 8]
    assert rounds[0]["rack"] == "AEINORST"
    page = client.get(f"/games/{game.pk}/train").content.decode()
    assert '"rack": "AEINORST"' in page  # the page's own rounds, as the script shows them
    # NOTARIES H1 places all 8: 9 points (A on a double letter) x3 (H1) x2 (H8) = 54, and 75 for the 8 tiles.
    eight = _judge(client, game.pk, 1, "NOTARIES", "H1", 129)
    assert (eight["paid"], eight["outcome"], eight["is_top"], eight["top_score"]) == (129, "ok", True, 129)
    assert {(t["word"], t["ref"]) for t in eight["tops"]} >= {("NOTARIES", "H1"), ("NOTARIES", "H8")}
    # SENATOR H8 places 7: 8 points (T on a double letter) x2 = 16, and 50 for the 7 tiles. A retry: practice.
    seven = _judge(client, game.pk, 1, "SENATOR", "H8", 66)
    assert (seven["paid"], seven["outcome"], seven["is_top"], seven["counted"]) == (66, "ok", False, False)
    # As the close paid the game's players.
    paid = dict(Result.objects.filter(round__game=game, round__number=1).values_list("player__name", "paid"))
    assert paid == {"Player A": 129, "Player B": 66}
    # The result counts the first verdicts: 129 of the tops (129 + round 2's).
    second = Round.objects.get(game=game, number=2)
    last = _judge(client, game.pk, 2, "", "")
    assert (last["paid"], last["top_score"]) == (0, second.top_score)
    result = expect(client.post(f"/games/{game.pk}/train/result", {"name": "Ana", "proofs": [eight["proof"],
                                last["proof"]]}, content_type="application/json"), 200)
    assert (result["total"], result["top_total"], result["rank"], result["players"]) == (
        129, 129 + second.top_score, 1, 3)


def test_training_on_a_seven_of_eight_game_pays_nothing_for_8_tiles(api_game):
    _, game = _play(api_game, "seven_of_eight", [("AEINORST", [NOTARIES, SENATOR])])
    client = Client()
    assert [r["rack"] for r in _rounds(client, game)] == ["AEINORST"]
    eight = _judge(client, game.pk, 1, "NOTARIES", "H1", 129)
    assert (eight["paid"], eight["outcome"], eight["reason"]) == (0, "zero", "not_in_rack")
    # The top places 7 of the 8 tiles: its score is the best 7-tile play's, with the 50 bonus.
    round = Round.objects.get(game=game, number=1)
    plays = _all_plays(round)
    assert max(len(p.tiles) for p in plays) == 7
    assert eight["top_score"] == round.top_score == max(p.score for p in plays) < 129
    seven = _judge(Client(), game.pk, 1, "SENATOR", "H8", 66)
    assert (seven["paid"], seven["outcome"]) == (66, "ok")
    paid = dict(Result.objects.filter(round=round).values_list("player__name", "paid"))
    assert paid == {"Player A": 0, "Player B": 66}


def test_the_review_of_a_seven_and_eight_game_ranks_the_8_tile_play_first(api_game):
    _, game = _play(api_game, "seven_and_eight", [("AEINORST", [NOTARIES, SENATOR])])
    round = Round.objects.get(game=game, number=1)
    plays = _all_plays(round)
    a, b = (Player.objects.in_game(game).get(name=name) for name in ("Player A", "Player B"))
    body = review.player_review(game, a, 1)
    mine = body["round"]
    assert (mine["rack"], mine["top_score"], mine["count"]) == ("AEINORST", 129, len(plays))
    assert mine["best"][0]["score"] == 129 and mine["mine"] == {"state": "ranked", "rank": 1, "score": 129,
                                                                 "word": "NOTARIES", "ref": "H1"}
    assert any(p["word"] == "NOTARIES" and p["ref"] == "H1" and p["mine"] for p in mine["best"])
    assert mine["result"]["paid"] == 129
    theirs = review.player_review(game, b, 1)["round"]
    assert theirs["mine"]["rank"] == 1 + sum(1 for p in plays if p.score > 66)
    assert theirs["result"]["paid"] == 66
    assert review.player_review(game, b, 1)["summary"]["total"] == 66
    assert body["summary"]["topping"] is None and mine["topping"] is None


def test_the_review_of_a_seven_of_eight_game_finds_no_8_tile_play(api_game):
    _, game = _play(api_game, "seven_of_eight", [("AEINORST", [NOTARIES, SENATOR])])
    a = Player.objects.in_game(game).get(name="Player A")
    body = review.player_review(game, a, 1)["round"]
    assert body["rack"] == "AEINORST" and body["top_score"] < 129
    assert all(p["score"] < 129 for p in body["best"])
    assert body["mine"]["state"] == "not_legal" and body["result"]["reason"] == "not_in_rack"


# ------------------------------------------------------------------------------------------------------------
# Joker


def test_training_and_review_of_a_joker_game_show_the_played_blank_replaced_by_its_letter(api_game):
    _, game = _play(api_game, "joker", [("?AEINRS", [None, None]), (None, [None, None]), (None, [None, None])])
    first, second = Round.objects.filter(game=game).order_by("number")[:2]
    blanks = [(r, c, letter) for r, c, letter, blank in first.master["tiles"] if blank]
    assert blanks, "the master of ?AEINRS plays its blank"
    client = Client()
    rounds = _rounds(client, game)
    assert "?" in rounds[1]["rack"]  # the blank came back in the next rack
    for r, c, letter in blanks:
        # On the board of round 2 the blank's square holds the real letter (uppercase), not a blank.
        assert rounds[1]["board"][r][c] == letter.upper()
    assert rounds[1]["board"] == list(second.board)
    a = Player.objects.in_game(game).get(name="Player A")
    assert review.player_review(game, a, 2)["round"]["board"] == list(second.board)
    # The round's top, handed in during training, pays the top (found on the board with the letter).
    top = second.tops[0]
    verdict = _judge(client, game.pk, 2, top["word"], top["ref"], top["score"])
    assert (verdict["paid"], verdict["is_top"]) == (second.top_score, True)


# ------------------------------------------------------------------------------------------------------------
# Topping


def _top_of(rack: str) -> dict:
    from engine.notation import format_ref
    from engine.rules import variant_rules
    from engine.search import find_tops
    from engine.tiles import load_tileset

    found = find_tops(Board.from_rows(["." * 15] * 15), rack, get_lexicon("TWL06"), load_tileset("english"),
                      variant_rules("topping"))
    play = found.plays[0]
    return {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, "rows-letters"),
            "score": play.score}


def test_the_review_of_a_topping_game_shows_the_player_s_times(api_game):
    top = _top_of("AEINRST")
    wrong = {"word": "AEINRST", "ref": "H8", "score": 10}
    _, game = _play(api_game, "topping", [("AEINRST", [[wrong, top], None])], started_before=40,
                    rules={"topping_wrong_try_seconds": 5})
    rules = game.tournament.rules
    round = Round.objects.get(game=game, number=1)
    a, b = (Player.objects.in_game(game).get(name=name) for name in ("Player A", "Player B"))
    found = round.slips.filter(player=a).order_by("received_at").last()
    after = int((found.received_at - round.started_at).total_seconds())
    assert after >= 40
    mine = review.player_review(game, a, 1)
    assert mine["round"]["topping"] == {"found_after": after, "wrong_tries": 1, "seconds": after + 5}
    assert mine["summary"]["topping"] == {"seconds": after + 5, "found": 1, "rounds": 1}
    theirs = review.player_review(game, b, 1)
    never = rules.round_seconds + rules.topping_penalty
    assert theirs["round"]["topping"] == {"found_after": None, "wrong_tries": 0, "seconds": never}
    assert theirs["summary"]["topping"] == {"seconds": never, "found": 0, "rounds": 1}


class _Clock:
    """The training service's clock, moved by the test."""

    def __init__(self):
        import time

        self.now = time.time()

    def time(self) -> float:
        return self.now

    def time_ns(self) -> int:
        return int(self.now * 1e9)


def _start(client, game_id, number):
    return client.post(f"/games/{game_id}/train/start", {"round": number}, content_type="application/json")


def test_training_on_a_topping_game_times_the_trainee_s_tries_on_the_server_s_clock(api_game, monkeypatch):
    top = _top_of("AEINRST")
    wrong = {"word": "AEINRST", "ref": "H8", "score": 10}
    _, game = _play(api_game, "topping", [("AEINRST", [[wrong, top], None]), (None, [None, None]),
                                          (None, [None, None])], started_before=40,
                    rules={"topping_wrong_try_seconds": 5})
    rules = game.tournament.rules
    never = rules.round_seconds + rules.topping_penalty
    clock = _Clock()
    monkeypatch.setattr("tournaments.services.training.time", clock)
    client = Client()
    page = client.get(f"/games/{game.pk}/train").content.decode()
    assert '"topping": true' in page and 'id="train-clock"' not in page  # always timed
    # A try before the round is started is refused and counts for nothing.
    refused = client.post(f"/games/{game.pk}/train/judge", {"round": 1, **top}, content_type="application/json")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "training_not_started"
    assert expect(_start(client, game.pk, 1), 200) == {"round": 1, "topping": True,
                                                       "round_seconds": rules.round_seconds, "elapsed": 0}
    clock.now += 10
    missed = _judge(client, game.pk, 1, wrong["word"], wrong["ref"], wrong["score"])
    assert missed["topping"] == {"found": False, "final": False, "elapsed": 10, "found_after": None,
                                 "wrong_tries": 1, "seconds": never + 5}
    assert missed["counted"] is False
    clock.now += 20
    # Starting the round again does not give back the time.
    assert expect(_start(client, game.pk, 1), 200)["elapsed"] == 30
    found = _judge(client, game.pk, 1, top["word"], top["ref"], top["score"])
    assert found["topping"] == {"found": True, "final": True, "elapsed": 30, "found_after": 30, "wrong_tries": 1,
                                "seconds": 35}
    assert found["counted"] is True and found["is_top"] is True
    # Round 2: given up (an empty slip, as when the clock runs out).
    expect(_start(client, game.pk, 2), 200)
    clock.now += 50
    gave_up = _judge(client, game.pk, 2, "")
    assert gave_up["topping"]["final"] is True and gave_up["topping"]["seconds"] == never
    # Round 3: the top handed in after the round's time is not found.
    third = Round.objects.get(game=game, number=3)
    expect(_start(client, game.pk, 3), 200)
    clock.now += rules.round_seconds + 1
    late = _judge(client, game.pk, 3, third.tops[0]["word"], third.tops[0]["ref"], third.tops[0]["score"])
    assert (late["paid"], late["topping"]["found"], late["topping"]["final"], late["topping"]["seconds"]) == (
        third.top_score, False, True, never)
    result = expect(client.post(f"/games/{game.pk}/train/result", {"name": "Ana", "proofs": [
        missed["proof"], found["proof"], gave_up["proof"], late["proof"]]}, content_type="application/json"), 200)
    total = 35 + never + never
    assert result["topping"] == {"seconds": total, "found": 1, "rounds": 3}
    # Ranked by time among the real game's players (the lowest first), from the standings' seconds.
    standings = expect(Client().get(f"/api/games/{game.pk}/standings"), 200)
    assert result["rank"] == 1 + sum(1 for row in standings if row["seconds"] < total)
    shared = Client().get(result["url"]).content.decode()
    assert f"{total} s; top found in 1 of 3 rounds" in shared
    # In French, for a tournament played in French.
    type(game.tournament).objects.filter(pk=game.tournament_id).update(language="fr")
    french = Client().get(result["url"]).content.decode()
    assert f"{total} s\u00a0; tops trouvés\u00a0: 1 sur 3" in french and "Votre temps" in french
    assert "Votre temps est votre score" in Client().get(f"/games/{game.pk}/train").content.decode()

