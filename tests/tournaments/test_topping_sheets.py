"""Topping's printed sheets show times (docs/rules.md 7.5 and 7.7): the tournament standings' per-game columns
are each game's seconds, a scoresheet gives each round's seconds and their running total, and the game record
a table of every player's seconds per round. Two games of two rounds are played through the API; in each round
Ana hands in the top some seconds after the round's start (the start is moved back, as in test_topping.py) and
Ben only a wrong try. The times are computed here from the slips' arrival and read back from the PDFs' text.
A classic game's sheets stay as they were."""

from __future__ import annotations

import math
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from engine.board import Board
from engine.notation import format_ref
from engine.search import find_tops
from tournaments.lexicons import get_lexicon
from tournaments.models import Round, Slip, Tournament
from tournaments.setting import play_from_dict

from .api_support import expect
from .sheets_support import pdf_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

ROUNDS = 2


def _play(game_id: int, arb, ana, ben, tournament, first_back: int) -> dict:
    """Two rounds of the game; returns {"ana": [seconds...], "ben": [...], "tops": [...], "points": {...}}."""
    rules, lexicon = tournament.rules, get_lexicon("TWL06")
    board = Board.from_rows(["." * 15] * 15)
    url = f"/api/games/{game_id}"
    times = {"ana": [], "ben": [], "tops": []}
    for number in range(1, ROUNDS + 1):
        rack = expect(arb.post(f"{url}/rounds", {}, format="json"), 201)["rack"]
        expect(arb.post(f"{url}/rounds/{number}/start", {}, format="json"), 200)
        tops = find_tops(board, rack, lexicon, tournament.tiles, rules)
        assert tops.score is not None
        top = tops.plays[0]
        claim = {"word": top.word, "ref": format_ref(top.row, top.col, top.horizontal, tournament.coordinates),
                 "score": top.score}
        back = timedelta(seconds=first_back + 11 * number)
        round = Round.objects.get(game_id=game_id, number=number)
        Round.objects.filter(pk=round.pk).update(started_at=round.started_at - back)
        expect(ana.post(f"{url}/rounds/{number}/slips", {**claim, "key": f"a{game_id}-{number}"}, format="json"), 201)
        expect(ben.post(f"{url}/rounds/{number}/slips", {**claim, "word": "QZXJV", "key": f"b{game_id}-{number}"},
                        format="json"), 201)
        expect(arb.post(f"{url}/rounds/{number}/close", {}, format="json"), 200)
        round.refresh_from_db()
        slip = Slip.objects.get(round=round, player__name="Player A")
        times["ana"].append(math.floor((slip.received_at - round.started_at).total_seconds()))
        times["ben"].append(rules.round_seconds + rules.topping_penalty)
        times["tops"].append(round.top_score)
        board = board.place(play_from_dict(round.master))
    return times


def test_topping_sheets_show_each_player_s_seconds(api_game, tmp_path):
    game = api_game(players=2, seed=5, variant="topping", lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    arb, (a, b) = game.arbitrator, game.players
    first = _play(game.id, arb, a.client, b.client, tournament, first_back=4)
    second_id = expect(arb.post(f"/api/tournaments/{tournament.pk}/games", {"seed": 9}, format="json"), 201)["id"]
    second = _play(second_id, arb, a.client, b.client, tournament, first_back=20)
    ana_games, ben_games = (sum(first["ana"]), sum(second["ana"])), (sum(first["ben"]), sum(second["ben"]))
    assert ana_games[0] != ana_games[1]

    # The API's tournament standings: each game's seconds beside its points.
    overall = {row["name"]: row for row in expect(arb.get(f"/api/tournaments/{tournament.pk}/standings"), 200)}
    assert [g["seconds"] for g in overall["Player A"]["games"]] == list(ana_games)
    assert [g["seconds"] for g in overall["Player B"]["games"]] == list(ben_games)

    # The tournament's standings sheet: the game columns are the times, then the points, then the total time.
    text = pdf_text(arb.get(reverse("sheet-tournament-standings", args=[tournament.pk])).content, tmp_path,
                    "tournament")
    for name, per_game in (("Player A", ana_games), ("Player B", ben_games)):
        line = next(line for line in text.splitlines() if name in line)
        points = overall[name]["total"]
        assert re.search(rf"\b{per_game[0]}\s+{per_game[1]}\s+{points}\s+{sum(per_game)}\b", line), (line, per_game)
        if points:  # the games' points are no longer in the game columns
            game_points = [g["total"] for g in overall[name]["games"]]
            assert not re.search(rf"\b{game_points[0]}\s+{game_points[1]}\s+{points}\b", line), line
    assert "the game columns: each" in text

    # A scoresheet: each round's seconds and their running total; the summary's total time.
    sheet = pdf_text(arb.get(reverse("sheet-player-scoresheet", args=[game.id, a.id])).content, tmp_path, "ana")
    assert "Time (s)" in sheet and "Total (s)" in sheet, sheet
    running = 0
    for number, (seconds, top) in enumerate(zip(first["ana"], first["tops"], strict=True), 1):
        running += seconds
        line = next(line for line in sheet.splitlines() if re.match(rf"\s*{number}\s", line))
        assert re.search(rf"\b{top}\s+{seconds}\s+{running}\s*$", line), (line, top, seconds, running)
    assert re.search(rf"Total time \(s\)\s+{ana_games[0]}\b", sheet), sheet
    assert re.search(rf"Tops found\s+{ROUNDS} of {ROUNDS}\b", sheet), sheet
    ben_sheet = pdf_text(arb.get(reverse("sheet-player-scoresheet", args=[game.id, b.id])).content)
    assert re.search(rf"Total time \(s\)\s+{ben_games[0]}\b", ben_sheet) and "0 of 2" in ben_sheet

    # The game record: every player's seconds per round, the lowest total first.
    record = pdf_text(arb.get(reverse("sheet-game-record", args=[game.id])).content, tmp_path, "record")
    assert "Times (s)" in record, record
    lines = [next(line for line in record.splitlines() if name in line) for name in ("Player A", "Player B")]
    assert record.index(lines[0]) < record.index(lines[1])
    for line, seconds in zip(lines, (first["ana"], first["ben"]), strict=True):
        assert re.search(r"\b" + r"\s+".join(str(s) for s in [*seconds, sum(seconds)]) + r"\b", line), (line, seconds)

    # In French.
    Tournament.objects.filter(pk=tournament.pk).update(language="fr")
    sheet = pdf_text(arb.get(reverse("sheet-player-scoresheet", args=[game.id, a.id])).content)
    assert "Temps (s)" in sheet and re.search(rf"Temps total \(s\)\s+{ana_games[0]}\b", sheet), sheet
    assert re.search(rf"Tops trouvés\s+{ROUNDS} sur {ROUNDS}\b", sheet), sheet
    record = pdf_text(arb.get(reverse("sheet-game-record", args=[game.id])).content)
    assert re.search(r"Temps \(s\)\s+Rang\s+Nom\s+C1\s+C2\s+Total \(s\)", record), record
    text = pdf_text(arb.get(reverse("sheet-tournament-standings", args=[tournament.pk])).content)
    assert re.search(r"les colonnes\s+des parties", text) and "P1" in text, text


def test_a_classic_game_s_sheets_carry_no_time(api_game):
    game = api_game(players=1, seed=5, lexicon="TWL06")
    arb, (a,) = game.arbitrator, game.players
    expect(arb.post(game.url("/rounds"), {}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    expect(arb.post(game.round_url(1, "/close"), {}, format="json"), 200)
    sheet = pdf_text(arb.get(reverse("sheet-player-scoresheet", args=[game.id, a.id])).content)
    assert "Time (s)" not in sheet and "Total time" not in sheet and "Tops" in sheet
    record = pdf_text(arb.get(reverse("sheet-game-record", args=[game.id])).content)
    assert "Times (s)" not in record
    overall = expect(arb.get(f"/api/tournaments/{game.tournament_id}/standings"), 200)
    assert "seconds" not in overall[0]["games"][0]
