"""Topping through the tournament (docs/rules.md 7.5): a whole topping game played through the API, on
PostgreSQL.

Each round three phones try: A hands in a wrong try (a word that is none) and then the top, and a try after
its top is refused (409 top_found) and changes nothing; B hands in the top straight away every other round and
nothing else; C only a wrong try. The round's start is moved back before the tries (the round then began that
many seconds earlier), so that the times differ from round to round. The standings are then computed here
from the raw slips (each slip's arrival against its round's start, the round's time plus the penalty for a
player who never found the top, the cost of each wrong try) and compared with the server's, rank by rank.
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from engine.board import Board
from engine.notation import format_ref
from engine.search import find_tops
from tournaments.lexicons import get_lexicon
from tournaments.models import Player, Round, Slip, Tournament
from tournaments.setting import play_from_dict
from tournaments.topping_selectors import round_finders

from .api_support import assert_error, expect
from .sheets_support import pdf_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

MAX_ROUNDS = 40  # a game has about 20; the bound turns a fault into a failure, not a hang
WRONG_TRY_SECONDS = 5


def _new_minute(*seats) -> None:
    """A real round lasts minutes: the phones' per-minute slip window has passed by the next one."""
    from types import SimpleNamespace

    from tournaments.api.throttles import SlipRateThrottle

    throttle = SlipRateThrottle()
    for seat in seats:
        request = SimpleNamespace(user=SimpleNamespace(player=SimpleNamespace(pk=seat.id)))
        throttle.cache.delete(f"{throttle.get_cache_key(request, None)}:window")


def _claim(play, labelling: str) -> dict:
    return {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, labelling),
            "score": play.score}


def test_a_whole_topping_game_through_the_api(api_game, console, tmp_path):
    game = api_game(players=3, seed=5, variant="topping", lexicon="TWL06",
                    rules={"topping_wrong_try_seconds": WRONG_TRY_SECONDS})
    tournament = Tournament.objects.get(pk=game.tournament_id)
    rules, tileset, lexicon = tournament.rules, tournament.tiles, get_lexicon("TWL06")
    assert (rules.topping, rules.topping_penalty, rules.topping_wrong_try_seconds) == (True, 60, WRONG_TRY_SECONDS)
    state = expect(game.arbitrator.get(game.url()), 200)
    assert (state["variant"], state["timing"], state["round_seconds"]) == ("topping", "normal", rules.round_seconds)
    arb, (a, b, c) = game.arbitrator, game.players
    board = Board.from_rows(["." * 15] * 15)
    played = 0
    for number in range(1, MAX_ROUNDS + 1):
        if expect(arb.get(game.url()), 200)["status"] == "over":
            break
        response = arb.post(game.url("/rounds"), {}, format="json")
        if response.status_code == 409:
            break
        rack = expect(response, 201)["rack"]
        expect(arb.post(game.round_url(number, "/start"), {}, format="json"), 200)
        _new_minute(a, b, c)
        tops = find_tops(board, rack, lexicon, tileset, rules)
        if tops.score is not None:
            played += 1
            top = _claim(tops.plays[0], tournament.coordinates)
            wrong = {"word": "QZXJV", "ref": top["ref"], "score": 10}
            # The round began earlier than now by a few seconds, different each round (within its time).
            back = timedelta(seconds=(7 * number) % 50 + 3)
            Round.objects.filter(game_id=game.id, number=number).update(
                started_at=Round.objects.get(game_id=game.id, number=number).started_at - back)
            tried = expect(a.client.post(game.round_url(number, "/slips"), {**wrong, "key": f"aw{number}"},
                                         format="json"), 201)
            assert tried["topping"] == {"found": False, "found_after": None}
            tried = expect(a.client.post(game.round_url(number, "/slips"), {**top, "key": f"a{number}"},
                                         format="json"), 201)
            assert tried["topping"]["found"] is True and tried["topping"]["found_after"] >= back.seconds
            assert "word" not in tried["topping"]
            slips_before = Slip.objects.filter(round__game_id=game.id).count()
            again = assert_error(a.client.post(game.round_url(number, "/slips"), {**wrong, "key": f"ax{number}"},
                                               format="json"), 409, "top_found")
            assert again["fields"]["found_after"] == tried["topping"]["found_after"]
            assert Slip.objects.filter(round__game_id=game.id).count() == slips_before
            if number % 2:
                expect(b.client.post(game.round_url(number, "/slips"), {**top, "key": f"b{number}"},
                                     format="json"), 201)
            expect(c.client.post(game.round_url(number, "/slips"), {**wrong, "key": f"c{number}"}, format="json"),
                   201)
            finders = round_finders(round=Round.objects.select_related("game__tournament")
                                    .get(game_id=game.id, number=number))
            assert [f["player"] for f in finders][:1] == [a.id]
            assert {f["player"] for f in finders} == ({a.id, b.id} if number % 2 else {a.id})
        expect(arb.post(game.round_url(number, "/close"), {}, format="json"), 200)
        closed = Round.objects.get(game_id=game.id, number=number)
        if closed.master is not None:
            board = board.place(play_from_dict(closed.master))
    else:
        pytest.fail(f"the game did not end within {MAX_ROUNDS} rounds")
    assert played >= 10, "a whole game"

    # The standings from the raw slips: each try's arrival against its round's start.
    expected = {}
    for seat in (a, b, c):
        total = 0
        for r in Round.objects.filter(game_id=game.id, status=Round.Status.CLOSED):
            mine = list(Slip.objects.filter(round=r, player_id=seat.id).order_by("received_at"))
            hits = [s for s in mine if r.top_score is not None and s.word != "QZXJV"]
            if hits:
                total += math.floor((hits[0].received_at - r.started_at).total_seconds())
            else:
                total += rules.round_seconds + rules.topping_penalty
            total += (len(mine) - len(hits)) * WRONG_TRY_SECONDS
        expected[seat.id] = total
    standings = expect(arb.get(game.url("/standings")), 200)
    assert {row["player"]: row["seconds"] for row in standings} == expected
    assert [row["player"] for row in standings] == sorted(expected, key=expected.get)
    assert [row["rank"] for row in standings] == [1, 2, 3]
    assert expected[a.id] < expected[b.id] < expected[c.id]
    overall = expect(arb.get(f"/api/tournaments/{game.tournament_id}/standings"), 200)
    assert [(row["player"], row["seconds"]) for row in overall] == [(row["player"], row["seconds"]) for row in standings]

    # The console's standings: the times, in that order.
    page = console.get(reverse("console-standings", args=[game.id])).content.decode()
    cells = re.findall(r'<td class="num topping-seconds"><strong>(\d+)</strong>', page)
    assert [int(n) for n in cells] == sorted(expected.values()), cells

    # The sheets and exports carry the times and rank by them; the points stay in their columns.
    names = {seat.id: Player.objects.get(pk=seat.id).name for seat in (a, b, c)}
    ranked = sorted(expected, key=expected.get)
    for url in (reverse("sheet-game-standings", args=[game.id]),
                reverse("sheet-tournament-standings", args=[game.tournament_id])):
        text = pdf_text(arb.get(url).content, tmp_path)
        assert "Time (s)" in text, text
        lines = [next(line for line in text.splitlines() if names[pid] in line) for pid in ranked]
        assert [text.index(line) for line in lines] == sorted(text.index(line) for line in lines)
        for pid, line in zip(ranked, lines, strict=True):
            points = next(row["total"] for row in standings if row["player"] == pid)
            assert re.search(rf"\b{points}\s+{expected[pid]}\b", line), (line, points, expected[pid])
    rows = list(csv.DictReader(io.StringIO(arb.get(reverse("export-standings-csv", args=[game.id]))
                                           .content.decode("utf-8"))))
    assert [(row["name"], int(row["seconds"]), int(row["rank"])) for row in rows] == [
        (names[pid], expected[pid], rank) for rank, pid in enumerate(ranked, 1)]
    results = arb.get(reverse("export-results", args=[game.id])).content.decode("latin-1").splitlines()
    assert [line.split(",")[-1] for line in results] == [f'"{expected[pid]}"' for pid in ranked]
    record = arb.get(reverse("export-record", args=[game.id])).json()
    assert [(row["player"], row["seconds"]) for row in record["standings"]] == [(pid, expected[pid]) for pid in ranked]


def test_a_classic_game_s_standings_carry_no_time(api_game):
    game = api_game(players=1, seed=3)
    game.arbitrator.post(game.url("/rounds"), {}, format="json")
    standings = expect(game.arbitrator.get(game.url("/standings")), 200)
    assert "seconds" not in standings[0]
    state = expect(game.arbitrator.get(game.url()), 200)
    assert (state["variant"], state["timing"]) == ("duplicate", "normal")


def _standings_heads(key: str) -> list[str]:
    from django.test import Client

    page = Client().get(reverse("projector", args=[key])).content.decode()
    head = page[page.index('id="standings"'):]
    head = head[head.index("<thead>"):head.index("</thead>")]
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)]


@pytest.mark.parametrize("variant", ["topping", "duplicate"])
def test_the_projector_s_standings_head_says_time_in_topping(api_game, variant):
    game = api_game(players=1, seed=5, variant=variant, lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    key = tournament.games.get(pk=game.id).screen_key
    for language, words in (("en", {"topping": ["Rank", "Player", "Time (s)", ""],
                                    "duplicate": ["Rank", "Player", "Total", "Behind the sum of tops"]}),
                            ("fr", {"topping": ["Rang", "Joueur", "Temps (s)", ""],
                                    "duplicate": ["Rang", "Joueur", "Total", "Écart à la somme des tops"]})):
        Tournament.objects.filter(pk=tournament.pk).update(language=language)
        assert _standings_heads(key) == words[variant], language
