"""The player's review of a game: the data of each round against the engine's full list of plays, the
summary, the cache, and who may read which round."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from tournaments import review_selectors as review
from tournaments import services
from tournaments.lexicons import get_lexicon
from tournaments.models import Result, Round, Slip
from tournaments.services import judge, setting_of

from .sheets_support import ANNA, JEAN, LUKASZ, ZOE, play_game

pytestmark = pytest.mark.django_db


def _all_plays(round: Round) -> list:
    t = round.game.tournament
    plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(t.lexicon), t.tiles, t.rules)
    return sorted(plays, key=lambda p: -p.score)


def _get(client: Client, game, token: str | None = None, **query):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.get(f"/games/{game.pk}/review.json", query, **headers)


def test_each_round_lists_the_best_plays_and_ranks_the_slip_as_the_sorted_legal_plays(played_game):
    game = played_game.game
    setting = setting_of(game.tournament)
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    assert [r.number for r in review.reviewable_rounds(game)] == [r.number for r in rounds]  # the game is over
    for name in (ZOE, LUKASZ, JEAN, ANNA):
        player = played_game.players[name]
        for r in rounds:
            body = review.player_review(game, player, r.number)["round"]
            plays = _all_plays(r)
            assert body["count"] == len(plays)
            # The 10 best distinct plays (score, then square, across first, word), and how many more tie
            # with the 10th.
            tenth = plays[9].score
            ordered = sorted(plays, key=lambda p: (-p.score, p.row, p.col, not p.horizontal, p.word))
            expected = [(p.score, p.word, format_ref(p.row, p.col, p.horizontal, setting.labelling))
                        for p in ordered[:10]]
            assert [(p["score"], p["word"], p["ref"]) for p in body["best"]] == expected
            assert body["tied_more"] == sum(p.score >= tenth for p in plays) - 10
            assert [p["rank"] for p in body["best"]] == [1 + sum(q.score > p.score for q in plays)
                                                         for p in ordered[:10]]
            # The rank of the player's play: one more than the plays scoring more.
            result = Result.objects.select_related("slip").get(round=r, player=player)
            judged = judge(setting, r, result.slip).play if result.slip else None
            if judged is None:
                assert body["mine"]["rank"] is None
                assert body["mine"]["state"] == ("no_slip" if result.slip is None else "not_legal")
                continue
            position = next(i for i, p in enumerate(plays) if (p.word, p.row, p.col, p.horizontal)
                            == (judged.word, judged.row, judged.col, judged.horizontal))
            assert plays[position].score == judged.score
            assert body["mine"]["rank"] == 1 + sum(1 for p in plays if p.score > judged.score)
            assert plays[body["mine"]["rank"] - 1].score == judged.score
            assert body["mine"]["rank"] <= position + 1
            marked = [p for p in body["best"] if p["mine"]]
            listed = [(p.word, p.row, p.col, p.horizontal) for p in ordered[:10]]
            assert len(marked) == ((judged.word, judged.row, judged.col, judged.horizontal) in listed)
            # How many of the round's players (not one who joined later: absent) found the top.
            paid = list(Result.objects.filter(round=r).exclude(reason="absent").values_list("paid", flat=True))
            assert body["found_top"] == {"found": paid.count(r.top_score), "players": len(paid)}
            assert body["rack"] == r.rack and body["board"] == r.board
            assert body["master"]["word"] == r.master["word"]


def test_anna_without_a_slip_in_round_2_is_told_so(played_game):
    game = played_game.game
    body = review.player_review(game, played_game.players[ANNA], 2)["round"]
    assert body["slip"] is None
    assert body["result"]["reason"] == "no_slip"
    assert body["mine"] == {"state": "no_slip", "rank": None, "score": None}


def test_the_summary_lists_the_largest_losses_and_the_words_found_and_missed(played_game):
    game = played_game.game
    player = played_game.players[LUKASZ]
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    summary = review.player_review(game, player)["summary"]
    results = {r.round_id: r for r in Result.objects.filter(player=player, round__in=rounds)}
    losses = [(r.top_score - results[r.pk].paid, r.number) for r in rounds]
    expected = sorted((loss, number) for loss, number in ((-lo, n) for lo, n in losses) if loss < 0)
    assert [(line["loss"], line["number"]) for line in summary["losses"]] == [(-lo, n) for lo, n in expected][:5]
    assert summary["total"] == sum(r.paid for r in results.values())
    assert summary["top_total"] == sum(r.top_score for r in rounds)
    # Lukasz wrote a lower play each round; in round 1 an anagram of the rack is paid its best placement.
    paid_top = [r for r in rounds if results[r.pk].paid == r.top_score]
    assert [r.number for r in paid_top] == [1]
    assert [(f["number"], f["score"]) for f in summary["found"]] == [(r.number, r.top_score) for r in paid_top]
    assert [(m["number"], m["word"], m["paid"]) for m in summary["missed"]] == [
        (r.number, r.master["word"], results[r.pk].paid) for r in rounds if r not in paid_top]
    zoe = review.player_review(game, played_game.players[ZOE])["summary"]
    zoe_slips = {s.round_id: s.word for s in Slip.objects.filter(player=played_game.players[ZOE], current=True)}
    assert [(f["number"], f["word"]) for f in zoe["found"]] == [(r.number, zoe_slips[r.pk]) for r in rounds]
    assert zoe["missed"] == [] and zoe["losses"] == []


def test_a_rounds_plays_are_computed_once_and_kept_in_the_cache(played_game):
    game = played_game.game
    r = game.rounds.get(number=3)
    key = review._plays_key(r)
    cache.delete(key)
    review.player_review(game, played_game.players[ZOE], 3)
    kept = cache.get(key)
    assert kept is not None and kept["count"] == len(_all_plays(r))
    assert str(r.pk) in key and game.tournament_id is not None
    # Another player's review reads the same entry (a changed entry would show).
    cache.set(key, {**kept, "count": kept["count"] + 1000})
    assert review.player_review(game, played_game.players[JEAN], 3)["round"]["count"] == kept["count"] + 1000


@pytest.fixture
def game_in_play(sheets_tournament, arbitrator, isolated_cache):
    """Three closed rounds, then a fourth drawn and open: rounds 1-3 are reviewable, 4 is in play."""
    played = play_game(sheets_tournament, arbitrator, rounds=3, end=False)
    r4 = services.round_draw(game=played.game, actor=arbitrator)
    services.round_start(round=r4, actor=arbitrator)
    played.game.refresh_from_db()
    return played


def test_a_player_reads_their_own_review_with_their_token(game_in_play):
    game = game_in_play.game
    client = Client()
    body = _get(client, game, game_in_play.tokens[ZOE], round=2).json()
    assert body["player"]["name"] == ZOE
    assert body["rounds"] == [1, 2, 3]
    assert body["round"]["number"] == 2
    assert body["round"]["best"][0]["rank_text"] == "1st"


def test_the_round_in_play_and_a_round_not_moved_on_are_refused_and_show_nothing(game_in_play, arbitrator):
    game = game_in_play.game
    r4 = game.rounds.get(number=4)
    response = _get(Client(), game, game_in_play.tokens[ZOE], round=4)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "review_round_not_over"
    assert r4.rack not in response.content.decode()
    assert "round" not in response.json()
    assert _get(Client(), game, game_in_play.tokens[ZOE], round=9).status_code == 404
    assert _get(Client(), game, game_in_play.tokens[ZOE], round="x").status_code == 400
    # Once the fourth round is closed but the fifth not drawn, round 4 still waits.
    services.round_close(round=r4, actor=arbitrator)
    assert _get(Client(), game, game_in_play.tokens[ZOE], round=4).status_code == 409
    r5 = services.round_draw(game=game, actor=arbitrator)
    assert _get(Client(), game, game_in_play.tokens[ZOE], round=4).status_code == 200
    assert _get(Client(), game, game_in_play.tokens[ZOE], round=5).status_code == 409
    assert r5.number == 5


def test_nothing_to_review_before_the_second_rack(sheets_tournament, arbitrator, isolated_cache):
    played = play_game(sheets_tournament, arbitrator, rounds=1, end=False)
    response = _get(Client(), played.game, played.tokens[ZOE])
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "review_nothing_yet"


def test_other_tokens_are_refused(game_in_play, sheets_tournament, arbitrator):
    game = game_in_play.game
    zoe, lukasz = game_in_play.players[ZOE], game_in_play.players[LUKASZ]
    # Another player's review with one's own token.
    response = _get(Client(), game, game_in_play.tokens[ZOE], player=lukasz.pk)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "review_other_player"
    # A forged token, and no token at all.
    assert _get(Client(), game, "forged-token-that-names-no-player").status_code == 401
    assert _get(Client(), game).status_code == 401
    # A token of a player of another tournament's game.
    other = services.tournament_create(name="Other club", created_by=arbitrator) if hasattr(
        services, "tournament_create") else None
    if other is None:
        from tournaments.models import Tournament

        other = Tournament.objects.create(name="Other club")
    other_game = services.game_create(tournament=other, seed=3)
    _stranger, stranger_token = services.player_register(game=other_game, name="Stranger", table=1)
    response = _get(Client(), game, stranger_token)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_a_player"
    assert zoe.pk != lukasz.pk


def test_an_arbitrator_reads_any_players_review(game_in_play, arbitrator, django_user_model):
    game = game_in_play.game
    lukasz = game_in_play.players[LUKASZ]
    client = Client()
    client.force_login(arbitrator)
    body = _get(client, game, player=lukasz.pk, round=3).json()
    assert body["player"]["id"] == lukasz.pk
    assert body["round"]["slip"]["word"] == Slip.objects.get(round__game=game, round__number=3, player=lukasz,
                                                             current=True).word
    assert _get(client, game).json()["error"]["code"] == "review_player_needed"
    assert _get(client, game, player=999999).status_code == 404
    # A signed-in user who is not an arbitrator gets nothing.
    visitor = django_user_model.objects.create_user(username="visitor", password="x-password-1")
    other = Client()
    other.force_login(visitor)
    assert _get(other, game, player=lukasz.pk).status_code == 401


def test_the_page_and_its_data_speak_the_tournaments_language(game_in_play):
    game = game_in_play.game
    game.tournament.language = "fr"
    game.tournament.save(update_fields=["language"])
    page = Client().get(f"/games/{game.pk}/review")
    assert page.status_code == 200
    assert page["Content-Language"] == "fr"
    body = _get(Client(), game, game_in_play.tokens[ZOE], round=1).json()
    assert body["round"]["best"][0]["rank_text"] == "1er"
    refused = _get(Client(), game, game_in_play.tokens[ZOE], round=4).json()
    assert refused["error"]["message"] == "Le coup 4 se revoit une fois le tirage suivant fait, ou à la fin de la partie."
    assert refused["error"]["params"] == {"round": 4}
    nothing = Client().get(f"/games/{game.pk}/review.json", {"round": 1})  # no token
    assert nothing.json()["error"]["message"].startswith("Ouvrez cette page sur le téléphone")
    assert "Revue de la partie" in page.content.decode()


def test_two_blanks_on_an_empty_board_list_ten_plays_and_count_the_ties(make_game, arbitrator, isolated_cache):
    game = make_game(round_seconds=180)
    services.player_register(game=game, name="Solo", table=1)
    r1 = services.round_draw(game=game, rack="??AEIRS", actor=arbitrator)
    services.round_start(round=r1, actor=arbitrator)
    services.round_close(round=r1, actor=arbitrator)
    services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    r1.refresh_from_db()
    plays = _all_plays(r1)
    player = game.tournament.players.get()
    data = review.player_review(game, player, 1)["round"]
    assert len(data["best"]) == 10
    assert data["count"] == len(plays)
    assert data["tied_more"] == sum(p.score >= plays[9].score for p in plays) - 10 > 0
    assert data["mine"]["state"] == "no_slip"
    client = Client()
    client.force_login(arbitrator)
    shown = client.get(f"/games/{game.pk}/review.json", {"player": player.pk, "round": 1}).json()["round"]
    assert shown["tied_more_text"] == f"…and {data['tied_more']} more plays tied at {data['best'][-1]['score']} points."
