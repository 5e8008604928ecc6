"""The joker's letter through the tournament (docs/rules.md 7.1, "The joker's letter"): from the bag only.

A joker game through the API, its racks typed: when the master places the blank, the close puts the real
letter on the board when the bag holds one (the letter leaves the bag, the blank goes back in); when the bag
holds none, the blank stays on the board and the kept letters are untouched. Each round's top is found here
with the engine's search. A master that is a top never keeps a copy of its blank's letter on the rack
(tests/engine/test_joker_letter.py plays that case, with a master given to the engine)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.board import Board
from engine.notation import format_ref
from engine.search import find_tops
from engine.tiles import BLANK, letter_code
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, Round, Tournament

from .api_support import expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def _play_round(game, tournament, board: Board, rack: str):
    """Draw ``rack`` typed, start, hand in the top, close: (the top played, the closed round)."""
    arb, (seat,) = game.arbitrator, game.players
    number = Round.objects.filter(game_id=game.id).count() + 1
    drawn = expect(arb.post(game.url("/rounds"), {"rack": rack}, format="json"), 201)["rack"]
    assert Counter(drawn) == Counter(rack)
    expect(arb.post(game.round_url(number, "/start"), {}, format="json"), 200)
    tops = find_tops(board, rack, get_lexicon("TWL06"), tournament.tiles, tournament.rules)
    assert len(tops.plays) == 1, "one top: it is the master"
    top = tops.plays[0]
    slip = {"word": top.word, "ref": format_ref(top.row, top.col, top.horizontal, tournament.coordinates),
            "score": top.score, "key": f"s{number}"}
    expect(seat.client.post(game.round_url(number, "/slips"), slip, format="json"), 201)
    expect(arb.post(game.round_url(number, "/close"), {}, format="json"), 200)
    return top, Round.objects.get(game_id=game.id, number=number)


def _blank_of(top) -> tuple[int, int, str]:
    (row, col, letter), = [(r, c, ch.upper()) for r, c, ch, is_blank in top.tiles if is_blank]
    return row, col, letter


def test_the_joker_s_letter_comes_from_the_bag_and_else_the_blank_stays(api_game):
    game = api_game(players=1, seed=3, variant="joker", lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    assert tournament.rules.joker and tournament.rules.joker_replace

    # Round 1: AZ(U)RITE, its blank a U; the bag holds the set's four U: one of them takes the blank's place.
    top, closed = _play_round(game, tournament, Board.empty(), "?ZAEIRT")
    row, col, letter = _blank_of(top)
    assert letter == "U" and "U" in closed.bag_after
    played = Game.objects.get(pk=game.id)
    board = Board.from_rows(played.board)
    assert board.tile(row, col) == letter_code("U")
    assert Counter(played.bag) == Counter(closed.bag_after) - Counter("U") + Counter("?")
    assert played.kept == ""

    # Round 2, on that board: WHI(Z)Z, its blank a Z, the set's only Z being on the board: no Z to take from
    # the bag, the blank stays on the board. N, V and D are kept for the next rack.
    assert Counter(tournament.tiles.full_bag())["Z"] == 1
    top, closed = _play_round(game, tournament, board, "?NVDHWI")
    row, col, letter = _blank_of(top)
    assert (top.word.upper(), letter) == ("WHIZZ", "Z") and "Z" not in closed.bag_after
    played = Game.objects.get(pk=game.id)
    assert Board.from_rows(played.board).tile(row, col) == letter_code("Z") | BLANK
    assert Counter(played.bag) == Counter(closed.bag_after)
    assert Counter(played.kept) == Counter("NVD")
    # Every tile of the set in one place: the board (a blank as '?'), the bag, the kept letters.
    on_board = Counter("?" if ch.islower() else ch for line in played.board for ch in line if ch != ".")
    assert on_board + Counter(played.bag) + Counter(played.kept) == Counter(tournament.tiles.full_bag())
