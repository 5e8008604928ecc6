"""The printed sheets: rendered from plain data and from a game played through the services, read back
with pypdfium2 (tests/tournaments/sheets_support.py), and screenshotted into test-artifacts/."""

from __future__ import annotations

import re

import pytest

from tournaments import selectors
from tournaments.sheets import sources
from tournaments.sheets.data import (
    GameRecord,
    Header,
    RecordRound,
    Scoresheet,
    ScoresheetRound,
    StandingRow,
    Standings,
)
from tournaments.sheets.labels import outcome_label, reason_label
from tournaments.sheets.record import render_record
from tournaments.sheets.scoresheet import render_scoresheet, render_scoresheets
from tournaments.sheets.standings import render_standings

from .sheets_support import (
    ANNA,
    JEAN,
    LUKASZ,
    PAUL,
    ZOE,
    pdf_fonts,
    pdf_pages,
    pdf_stream_text,
    pdf_text,
    screenshot,
    squeezed,
)

HEADER = Header(tournament="Coupe d'Automne", game="Game 3", date="2026-11-21", lexicon="TWL06",
                lexicon_sha256="0123456789abcdef" * 4, ruleset="fisf")
MINUS = "\u2212"


def _signed(diff: int) -> str:
    return f"{MINUS}{-diff}" if diff < 0 else f"+{diff}" if diff else "0"


def _rows(count: int) -> tuple[StandingRow, ...]:
    names = ["Zoé Lefèvre", "Łukasz Żmuda", "Søren Østergård", "Nguyễn Thị Ánh"]
    return tuple(
        StandingRow(rank=i + 1, name=f"{names[i % len(names)]} {i}", table=i + 1, total=900 - i, diff=-(100 + i),
                    percent=(900 - i) / 10, tops=i % 5, solos=i % 2, warnings=i % 4, penalties=i % 3)
        for i in range(count)
    )


# --------------------------------------------------------------------------------------------------
# From plain data


def test_standings_print_every_player_with_accents_on_paginated_a4(tmp_path):
    rows = _rows(120)
    pdf = render_standings(Standings(header=HEADER, rows=rows, top_total=1000))
    text = pdf_text(pdf, tmp_path)
    pages = pdf_pages(pdf, tmp_path)
    assert pages > 1
    assert text.count("Rank") == pages  # the column titles are repeated on each page
    assert len(re.findall(r"page \d+ of " + str(pages), text)) == pages
    for row in rows:
        line = next(line for line in text.splitlines() if f" {row.name} " in line or line.endswith(row.name))
        assert str(row.total) in line and f"{MINUS}{-row.diff}" in line
    assert "Zoé Lefèvre 0" in text and "Łukasz Żmuda 1" in text and "Nguyễn Thị Ánh 3" in text
    assert "Coupe d'Automne" in text and "Game 3" in text and "2026-11-21" in text
    assert "0123456789abcdef" * 4 in text


def test_the_series_is_printed_with_the_rank_within_it(tmp_path):
    rows = (StandingRow(rank=1, name="Zoé Lefèvre", series="3", series_rank=1, total=10),
            StandingRow(rank=2, name="Anne Martin", total=9),
            StandingRow(rank=3, name="Łukasz Żmuda", series="3", series_rank=2, total=8))
    text = pdf_text(render_standings(Standings(header=HEADER, rows=rows, top_total=10)), tmp_path)
    assert re.search(r"Zoé Lefèvre\s+3 \(1\)\s+10", text)
    assert re.search(r"Anne Martin\s+9", text)
    assert re.search(r"Łukasz Żmuda\s+3 \(2\)\s+8", text)


@pytest.mark.parametrize("render", ["standings", "scoresheet", "record"])
def test_every_font_is_embedded(render, tmp_path):
    pdf = {
        "standings": lambda: render_standings(Standings(header=HEADER, rows=_rows(3))),
        "scoresheet": lambda: render_scoresheet(_sheet("Łukasz Żmuda")),
        "record": lambda: render_record(GameRecord(header=HEADER)),
    }[render]()
    fonts = pdf_fonts(pdf)
    assert fonts and all("DejaVu" in name and embedded for name, embedded in fonts), fonts


def test_tournament_standings_have_one_column_per_game(tmp_path):
    rows = tuple(
        StandingRow(rank=i + 1, name=f"Player {i}", total=300 - i, diff=-i, percent=99.0, game_totals=(100, 101, 99 - i))
        for i in range(3)
    )
    pdf = render_standings(Standings(header=HEADER, rows=rows, top_total=300, game_labels=("G1", "G2", "G3")))
    text = pdf_text(pdf, tmp_path)
    assert re.search(r"G1\s+G2\s+G3\s+Total", text)
    assert re.search(r"Player 2\s+100\s+101\s+97\s+298", text)
    assert "Tournament standings" in text


def test_a_long_name_is_shortened_not_spilled(tmp_path):
    name = "Zoé " + "Lefèvre-" * 20
    pdf = render_standings(Standings(header=HEADER, rows=(StandingRow(rank=1, name=name, total=5),)))
    text = pdf_text(pdf, tmp_path)
    assert "Zoé Lefèvre-Lefèvre" in text and "…" in text and name not in text


def _sheet(name: str, rounds: int = 3) -> Scoresheet:
    lines = tuple(
        ScoresheetRound(number=n, rack="EIR+STAN", word="RAINIEST" if n % 2 else "stAIN", ref="H4", claimed=60,
                        paid=60 if n % 2 else 0, outcome="ok" if n % 2 else "zero",
                        reason="ok" if n % 2 else "invalid_word", top_word="RETINAS", top_ref="8H", top_score=70,
                        total=60 * ((n + 1) // 2), top_total=70 * n)
        for n in range(1, rounds + 1)
    )
    summary = StandingRow(rank=2, name=name, total=lines[-1].total, diff=lines[-1].total - lines[-1].top_total,
                          percent=50.0, tops=0)
    return Scoresheet(header=HEADER, name=name, table=4, rounds=lines, summary=summary, players=9)


def test_scoresheets_give_each_player_a_page(tmp_path):
    names = [f"Łukasz Żmuda {i}" for i in range(7)]
    pdf = render_scoresheets([_sheet(name) for name in names])
    assert pdf_pages(pdf, tmp_path) == len(names)
    text = pdf_text(pdf, tmp_path)
    pages = text.split("\f")
    for name, page in zip(names, pages, strict=False):
        assert name in page and "RAINIEST" in page and "invalid word" in page and "2 of 9" in page


def test_a_player_scoresheet_shows_rounds_and_summary(tmp_path):
    pdf = render_scoresheet(_sheet("Zoé Lefèvre", rounds=20))
    text = pdf_text(pdf, tmp_path)
    assert pdf_pages(pdf, tmp_path) == 1
    assert re.search(r"20\s+EIR\+STAN\s+stAIN\s+H4\s+60\s+0\s+zero\s+invalid word\s+RETINAS\s+8H\s+70\s+600\s+1400",
                     text)
    assert re.search(r"Difference from the top\s+" + MINUS + "800", text)


def test_the_record_lists_rounds_and_draws_the_board(tmp_path):
    board = ["." * 15] * 7 + ["...RETiNAS....."] + ["." * 15] * 7
    record = GameRecord(header=HEADER, board=tuple(board), rounds=(
        RecordRound(number=1, rack="AEINRST", rejected=("-AEIOUUE+",), master_word="RETiNAS", master_ref="H4",
                    master_score=64, top_total=64, tops=3),
        RecordRound(number=2, rack="QZ+XYKJW", cancelled=True, top_total=64),
    ))
    pdf = render_record(record)
    text = pdf_text(pdf, tmp_path)
    assert re.search(r"1\s+AEINRST\s+-AEIOUUE\+\s+RETiNAS\s+H4\s+64\s+3\s+64", text)
    assert "(cancelled)" in text
    assert "Final board (blanks circled)" in text
    board_text = text[text.index("Final board"):]
    assert re.search(r"H\s+TW\s+R\s*1\s+E\s*1\s+T\s*1\s+I\s+N\s*1\s+A\s*1\s+S\s*1", board_text)  # the blank has no value


def test_the_board_and_header_follow_the_rows_numbers_labelling(tmp_path):
    header = Header(tournament="Club", coordinates="rows-numbers")
    pdf = render_record(GameRecord(header=header, rounds=(), board=("." * 15,) * 15))
    text = pdf_text(pdf, tmp_path)
    assert "rows 1-15, columns A-O" in text
    labels = text[text.index("Final board"):].split()
    assert labels[labels.index("circled)") + 1: labels.index("circled)") + 16] == [chr(65 + i) for i in range(15)]


# --------------------------------------------------------------------------------------------------
# From a game played through the services


pytestmark = pytest.mark.django_db


def test_game_standings_pdf_matches_the_standings(played_game, tmp_path):
    rows = selectors.game_standings(game=played_game.game)
    pdf = render_standings(sources.game_standings_sheet(played_game.game))
    text = pdf_text(pdf, tmp_path)
    for row in rows:
        line = next(line for line in text.splitlines() if row["name"] in line)
        numbers = line.split(row["name"])[1].split()
        assert numbers[-7] == str(row["total"])
        assert numbers[-6] == _signed(row["diff"])
        assert numbers[-4:] == [str(row["tops"]), str(row["solos"]), str(row["warnings"]), str(row["penalties"])]
    assert ZOE in text and LUKASZ in text and ANNA in text
    assert played_game.game.tournament.lexicon_sha256 in text
    screenshot(pdf, "sheet-standings")


def test_scoresheets_pdf_has_one_page_per_player_with_their_rounds(played_game, tmp_path):
    sheets = sources.scoresheets_for(played_game.game)
    pdf = render_scoresheets(sheets)
    assert pdf_pages(pdf, tmp_path) == len(played_game.players) == 5
    pages = pdf_text(pdf, tmp_path).split("\f")
    by_name = {name: next(page for page in pages if name in page) for name in (ZOE, LUKASZ, JEAN, ANNA, PAUL)}
    zoe_rows = selectors.player_rounds(game=played_game.game, player=played_game.players[ZOE])
    for row in zoe_rows:
        assert re.search(rf"{row['top']['word']}\s+{row['top']['ref']}\s+{row['top_score']}\s+{row['total']}\s+"
                         rf"{row['top_total']}", by_name[ZOE])
    assert "no slip" in by_name[ANNA]
    assert "absent" in by_name[PAUL]
    # A reason is printed whole, wrapped within its column when long: the row read by position, the reason
    # read in the order it was drawn.
    jean = squeezed(next(page for page in pdf_stream_text(pdf).split("\f") if JEAN in page))
    for row in selectors.player_rounds(game=played_game.game, player=played_game.players[JEAN]):
        assert re.search(rf"{row['word']}\s+{row['ref']}\s+{row['claimed']}\s+{row['paid']}\s+"
                         rf"{outcome_label(row['outcome'])}", by_name[JEAN])
        assert squeezed(f"{outcome_label(row['outcome'])}{reason_label(row['reason'])}") in jean
    kept = played_game.game.rounds.exclude(kept="").first()
    assert kept is not None and f"{kept.kept}+{kept.drawn}" in by_name[ZOE]
    screenshot(pdf, "sheet-scoresheets")


def test_a_reference_written_loosely_is_printed_in_its_canonical_form(played_game, arbitrator, tmp_path):
    from tournaments import services
    from tournaments.models import Slip

    slip = Slip.objects.get(round__game=played_game.game, round__number=4, player=played_game.players[JEAN],
                            current=True)
    loose = " " + slip.ref.lower()[0] + " " + slip.ref.lower()[1:] + " "
    services.slip_correct(slip=slip, reason="reference retyped", actor=arbitrator, ref=loose)
    assert Slip.objects.get(round=slip.round, player=slip.player, current=True).ref != slip.ref
    page = pdf_text(render_scoresheet(sources.scoresheet_for(played_game.game, played_game.players[JEAN])),
                    tmp_path)
    assert re.search(rf"\n\s+4\s+\S+\s+{slip.word}\s+{slip.ref}\s", page)


def test_record_pdf_lists_the_masters_and_the_final_board(played_game, tmp_path):
    record = selectors.game_record(game=played_game.game)
    pdf = render_record(sources.game_record_sheet(played_game.game))
    text = pdf_text(pdf, tmp_path)
    for row in record["rounds"]:
        if row["master"]:
            assert re.search(rf"{row['master']['word']}\s+{row['master']['ref']}\s+{row['master']['score']}\s+.*"
                             rf"{row['top_total']}", text)
    assert f"sum of the tops {record['top_total']}" in text
    screenshot(pdf, "sheet-record", page=pdf_pages(pdf, tmp_path))


# --------------------------------------------------------------------------------------------------
# Over HTTP


SHEETS = (
    "/api/games/{game}/sheets/standings.pdf",
    "/api/games/{game}/sheets/record.pdf",
    "/api/games/{game}/sheets/scoresheets.pdf",
    "/api/games/{game}/players/{player}/scoresheet.pdf",
    "/api/tournaments/{tournament}/sheets/standings.pdf",
)


def _url(template: str, played) -> str:
    game = played.game
    return template.format(game=game.pk, player=played.players[ZOE].pk, tournament=game.tournament_id)


@pytest.mark.parametrize("template", SHEETS)
def test_arbitrator_gets_each_sheet_as_a_pdf(played_game, arbitrator_client, template, tmp_path):
    response = arbitrator_client.get(_url(template, played_game), HTTP_ACCEPT="application/pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    text = pdf_text(response.content, tmp_path)
    assert "Open de Vichy — Festival" in text
    assert ZOE in text or "record" in template


def test_the_console_session_may_print_too(played_game, client, arbitrator):
    client.force_login(arbitrator)
    response = client.get(_url(SHEETS[0], played_game))
    assert response.status_code == 200 and response.content.startswith(b"%PDF")


@pytest.mark.parametrize("template", SHEETS)
def test_sheets_are_for_arbitrators_only(played_game, api_client, player_client, template):
    anonymous = api_client.get(_url(template, played_game))
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_authenticated"
    player = player_client(played_game.tokens[ZOE]).get(_url(template, played_game))
    assert player.status_code == 403
    assert set(player.json()["error"]) == {"code", "message", "fields"}


def test_unknown_game_and_player_are_404_in_the_error_shape(played_game, arbitrator_client, make_game):
    assert arbitrator_client.get("/api/games/999999/sheets/record.pdf").json()["error"]["code"] == "not_found"
    other = make_game()
    url = f"/api/games/{other.pk}/players/{played_game.players[ZOE].pk}/scoresheet.pdf"
    response = arbitrator_client.get(url)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_tournament_standings_pdf_adds_up_two_games(sheets_tournament, arbitrator, arbitrator_client, tmp_path):
    from .sheets_support import play_game

    play_game(sheets_tournament, arbitrator, seed=7, rounds=2)
    play_game(sheets_tournament, arbitrator, seed=8, rounds=2)
    rows = selectors.tournament_standings(tournament=sheets_tournament)
    response = arbitrator_client.get(f"/api/tournaments/{sheets_tournament.pk}/sheets/standings.pdf")
    text = pdf_text(response.content, tmp_path)
    assert re.search(r"G1\s+G2\s+Total", text)
    assert "2 games" in text
    zoe = next(row for row in rows if row["name"] == ZOE)
    games = [str(entry["total"]) for entry in zoe["games"]]
    assert re.search(rf"{ZOE}.*\s{games[0]}\s+{games[1]}\s+{zoe['total']}\s", text)
    screenshot(response.content, "sheet-tournament-standings")


def test_a_game_not_started_yet_still_prints(make_game, make_player, arbitrator_client, tmp_path):
    game = make_game(name="Club du mardi")
    assert arbitrator_client.get(f"/api/games/{game.pk}/sheets/scoresheets.pdf").json()["error"]["code"] == (
        "no_players"
    )
    make_player(game, name=ZOE, table=1)
    for path in ("sheets/standings.pdf", "sheets/record.pdf", "sheets/scoresheets.pdf"):
        response = arbitrator_client.get(f"/api/games/{game.pk}/{path}")
        assert response.status_code == 200, path
        text = pdf_text(response.content, tmp_path)
        assert "Club du mardi" in text and "Game 1" in text
    assert "0 rounds" in text and ZOE in text


def test_sheets_of_a_rows_numbers_event_use_its_references(make_tournament, arbitrator, tmp_path):
    from .sheets_support import play_game

    tournament = make_tournament(name="GCG club", coordinates="rows-numbers")
    played = play_game(tournament, arbitrator, rounds=2)
    text = pdf_text(render_record(sources.game_record_sheet(played.game)), tmp_path)
    assert "rows 1-15, columns A-O" in text
    for master in played.masters:
        assert re.search(rf"{master['word']}\s+{master['ref']}\s+{master['score']}", text)
    # Round 1 is horizontal: in this labelling its reference starts with the row number.
    assert re.fullmatch(r"\d+[A-O]", played.masters[0]["ref"])
