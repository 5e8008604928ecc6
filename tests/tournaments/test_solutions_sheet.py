"""The solutions sheet: each closed round's master, other tops and next best plays (checked against sorting
every legal play), how many players found the top and the solo, in English and in French, in both labellings;
served to arbitrators, linked from the console, provisional while the game is in play."""

from __future__ import annotations

import re

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from tournaments import services
from tournaments.lexicons import get_lexicon
from tournaments.models import Player, Result, Round
from tournaments.sheets import solutions
from tournaments.sheets.solutions import render_solutions
from tournaments.sheets.solutions_source import solutions_sheet
from tournaments.typography import typeset

from .sheets_support import ZOE, pdf_text, play_game, screenshot

NBSP = "\u00a0"


def _expected(round: Round) -> list:
    """Every legal play sorted by score, kept down to the n-th score: what the sheet must list."""
    tournament = round.game.tournament
    plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon),
                           tournament.tiles, tournament.rules)
    plays.sort(key=lambda play: -play.score)
    least = plays[min(settings.ARBITER_SOLUTIONS_PLAYS, len(plays)) - 1].score
    return [play for play in plays if play.score >= least]


def _found_and_solo(round: Round) -> tuple[int, int, str]:
    """The round's players (every player of the game at that round, with a slip or without one: not one who
    joined later, absent), those paid the top, and the one paid strictly more than all others."""
    results = list(Result.objects.filter(round=round).values_list("player__name", "paid", "reason"))
    played = [(name, paid) for name, paid, reason in results if reason != "absent"]
    found = sum(1 for _name, paid in played if paid == round.top_score)
    paid = sorted((paid for _name, paid, _reason in results), reverse=True)
    solo = ""
    if len(paid) > 1 and paid[0] > paid[1]:
        solo = next(name for name, amount, _reason in results if amount == paid[0])
    return len(played), found, solo


def _check_rounds(game, text: str, labelling: str, *, found_text, solo_text) -> None:
    flat = " ".join(text.split())
    for round in game.rounds.filter(status=Round.Status.CLOSED).order_by("number"):
        expected = _expected(round)
        top = expected[0].score
        master = round.master
        master_ref = format_ref(master["row"], master["col"], master["horizontal"], labelling)
        assert re.search(rf"\b1 {re.escape(master['word'])}\s+{master_ref}\s+{master['score']} (master|retenu)\b",
                         text), round.number
        shown = expected[: settings.ARBITER_SOLUTIONS_MAX_LINES]
        for play in shown:
            ref = format_ref(play.row, play.col, play.horizontal, labelling)
            assert re.search(rf"\b{re.escape(play.word)}\s+{ref}\s+{play.score}\b", text), (round.number, play)
        # Below the tops: the next best plays, ranked after every top.
        below = [play for play in shown if play.score < top]
        for play in below:
            rank = 1 + sum(1 for other in expected if other.score > play.score)
            ref = format_ref(play.row, play.col, play.horizontal, labelling)
            assert re.search(rf"\b{rank} {re.escape(play.word)}\s+{ref}\s+{play.score}\b", text)
        players, found, solo = _found_and_solo(round)
        assert found_text(found, players) in flat, round.number
        if solo:
            assert solo_text(solo) in flat, round.number
    solos = sum(1 for round in game.rounds.filter(status=Round.Status.CLOSED) if _found_and_solo(round)[2])
    assert flat.count(solo_text("")) == solos + 1  # and once in the note under the rounds ("A solo: ...")


def _found_en(found: int, players: int) -> str:
    return f"1 player of {players} found the top" if found == 1 else f"{found} of {players} players found the top"


def _solo_en(name: str) -> str:
    return f"solo: {name}"


def test_each_round_lists_the_master_the_tops_and_the_next_best_plays(played_game, tmp_path):
    pdf = render_solutions(solutions_sheet(played_game.game))
    text = pdf_text(pdf, tmp_path)
    assert "Solutions" in text and "Open de Vichy — Festival" in text
    assert "4 rounds · game over" in text and "game in play" not in text
    _check_rounds(played_game.game, text, "rows-letters", found_text=_found_en, solo_text=_solo_en)
    # Zoé plays the master every round, the others never the top after the first: a solo each time.
    assert " ".join(text.split()).count(f"solo: {ZOE} (top)") == 3
    # Round 1 on an empty board: 54 plays tie for the top, the sheet counts those it leaves out.
    first = played_game.game.rounds.get(number=1)
    assert f"{len(first.tops)} plays score the top" in text
    left = len(_expected(first)) - settings.ARBITER_SOLUTIONS_MAX_LINES
    assert f"and {left} more plays scoring {first.top_score}" in text
    screenshot(pdf, "solutions-en")


def test_the_french_sheet_speaks_french_with_its_typography(make_tournament, arbitrator, tmp_path):
    tournament = make_tournament(name="Coupe de Vichy", language="fr", solo_min_players=3, created_by=arbitrator)
    played = play_game(tournament, arbitrator, rounds=3)
    pdf = render_solutions(solutions_sheet(played.game))
    text = pdf_text(pdf, tmp_path)
    flat = " ".join(text.split())  # a non-breaking space and a plain one alike
    # Over, and every paper player's slip of the last round entered (complete by itself at the close): final.
    assert played.game.rounds.get(number=3).slips_complete
    assert "Solutions" in text and "provisoire" not in text
    assert "Coup 1 · Tirage : AEINRST" in flat and "3 coups · partie terminée" in flat

    def found_fr(found: int, players: int) -> str:
        if found > 1:
            return f"{found} joueurs sur {players} ont trouvé le top"
        return f"{found} joueur sur {players} a trouvé le top"

    def solo_fr(name: str) -> str:
        return f"solo : {name}"

    _check_rounds(played.game, text, "rows-letters", found_text=found_fr, solo_text=solo_fr)
    assert "coups font le top" in text and "de plus à" in text
    assert "master" not in text and "found" not in text
    # The sheet's words as drawn: a non-breaking space before the colon.
    sheet = solutions_sheet(played.game)
    with translation.override("fr"):
        solo = next(line for line in sheet.rounds if line.solo)
        assert typeset(solutions._solo(solo)).startswith(f"solo{NBSP}: {ZOE}")
        assert f"Tirage{NBSP}:" in solutions._heading(sheet.rounds[0]).text
    screenshot(pdf, "solutions-fr")


def test_a_rows_numbers_event_gets_its_references(make_tournament, arbitrator, tmp_path):
    tournament = make_tournament(name="GCG club", coordinates="rows-numbers", solo_min_players=3)
    played = play_game(tournament, arbitrator, rounds=2)
    text = pdf_text(render_solutions(solutions_sheet(played.game)), tmp_path)
    assert "rows 1-15, columns A-O" in text
    _check_rounds(played.game, text, "rows-numbers", found_text=_found_en, solo_text=_solo_en)
    # Round 1 is played across: in this labelling its references start with the row number ("8B").
    first = played.game.rounds.get(number=1)
    assert re.search(rf"\b1 {first.master['word']}\s+8[A-O]\s+{first.master['score']} master", text)
    assert not re.search(rf"{first.master['word']}\s+H\d+\s", text)


def test_a_game_in_play_shows_its_closed_rounds_only_marked_provisional(
    sheets_tournament, arbitrator, arbitrator_client, tmp_path
):
    played = play_game(sheets_tournament, arbitrator, rounds=2, end=False)
    game = played.game
    cancelled = services.round_draw(game=game, actor=arbitrator)
    services.round_cancel(round=cancelled, reason="the bag was mishandled", actor=arbitrator)
    round = services.round_draw(game=game, actor=arbitrator)
    services.round_start(round=round, actor=arbitrator)
    assert game.rounds.filter(number=3).count() == 2
    response = arbitrator_client.get(f"/api/games/{game.pk}/sheets/solutions.pdf")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content, tmp_path)
    assert "Solutions (provisional)" in text and "game in play: provisional" in text
    assert "Round 1" in text and "Round 2" in text and "Round 3" not in text
    assert round.rack not in text.replace(" ", "") and cancelled.rack not in text.replace(" ", "")
    assert "2 rounds" in text


def test_served_to_arbitrators_only_and_listed_in_the_schema(played_game, api_client, player_client,
                                                            arbitrator_client, tmp_path):
    url = f"/api/games/{played_game.game.pk}/sheets/solutions.pdf"
    response = arbitrator_client.get(url, HTTP_ACCEPT="application/pdf")
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    assert f'filename="solutions-game-{played_game.game.pk}.pdf"' in response["Content-Disposition"]
    assert api_client.get(url).json()["error"]["code"] == "not_authenticated"
    refused = player_client(played_game.tokens[ZOE]).get(url)
    assert refused.status_code == 403 and set(refused.json()["error"]) == {"code", "message", "fields"}
    missing = arbitrator_client.get("/api/games/999999/sheets/solutions.pdf")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    schema = api_client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/games/{game_id}/sheets/solutions.pdf"]["get"]
    assert operation["operationId"] == "game_solutions_pdf"
    assert "application/pdf" in operation["responses"]["200"]["content"]


def test_the_console_links_it_beside_the_other_sheets(played_game, client, arbitrator):
    client.force_login(arbitrator)
    page = client.get(reverse("console-standings", args=[played_game.game.pk]))
    assert f'href="/api/games/{played_game.game.pk}/sheets/solutions.pdf"' in page.content.decode()
    pdf = client.get(f"/api/games/{played_game.game.pk}/sheets/solutions.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_a_game_without_a_closed_round_still_prints(make_game, make_player, arbitrator_client, tmp_path):
    game = make_game(name="Club du mardi")
    make_player(game, name=ZOE, table=1)
    response = arbitrator_client.get(f"/api/games/{game.pk}/sheets/solutions.pdf")
    assert response.status_code == 200
    text = pdf_text(response.content, tmp_path)
    assert "0 rounds" in text and "Club du mardi" in text
    assert Player.objects.in_game(game).count() == 1


def test_no_solo_below_the_solo_threshold_nor_under_rules_without_solos(make_tournament, arbitrator, tmp_path):
    """The sheet names a round's solo only when the standings count solos: five players under the FISF rules'
    threshold of 16, or under the classic rules (no solos at all), no round has one, as the standings say."""
    from tournaments import selectors

    for fields in ({"name": "Club du mardi"}, {"name": "Classic club", "ruleset": "classic", "solo_min_players": 3}):
        tournament = make_tournament(created_by=arbitrator, **fields)
        played = play_game(tournament, arbitrator, rounds=3)
        # Zoé alone paid the top every round after the first: a solo where solos count.
        assert any(_found_and_solo(r)[2] == ZOE for r in played.game.rounds.filter(status=Round.Status.CLOSED))
        assert all(row["solos"] == 0 for row in selectors.game_standings(game=played.game))
        sheet = solutions_sheet(played.game)
        assert [(line.solo, line.solo_score) for line in sheet.rounds] == [("", 0)] * 3, fields
        flat = " ".join(pdf_text(render_solutions(sheet), tmp_path, fields["name"]).split())
        assert flat.count("solo:") == flat.count("A solo:") == 1  # the note under the rounds only
