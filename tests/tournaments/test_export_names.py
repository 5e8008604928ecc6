"""Hostile and faraway names in the files a game leaves behind, downloaded through their URLs:

- the standings CSV and the federation's results file never hand a spreadsheet a formula (a text cell that
  begins with =, +, -, @, a tab or a carriage return gets a single quote), while numbers stay numbers;
- the Latin-1 results file spells Cyrillic, Greek, Arabic, Hebrew and Chinese names in Latin letters;
- the PDFs print every name as readable text in a glyph the embedded font has: Cyrillic and Greek as
  written, the scripts the sheets cannot lay out (Arabic, Hebrew, Chinese) transliterated; never a box.
"""

from __future__ import annotations

import csv
import io

import pytest

from tournaments.exports.cells import text_cell
from tournaments.sheets.typefaces import SANS, SANS_BOLD, glyphs, printable

from .sheets_support import ZOE, pdf_text, play_game

pytestmark = pytest.mark.django_db

FORMULAS = ['=HYPERLINK("http://x.invalid","c")', "@SUM(1+1)", "+33 6 12", "-2+3+cmd|' /C calc'!A0"]

# name as typed -> as the PDFs print it (DejaVu Sans draws Cyrillic and Greek) -> in the Latin-1 results file
FARAWAY = {
    "Иван Петров": ("Иван Петров", "Ivan Petrov"),
    "Ελένη Παππά": ("Ελένη Παππά", "Eleni Pappa"),
    "محمد علي": ("mhmd `ly", "mhmd `ly"),
    "דוד כהן": ("dvd khhn", "dvd khhn"),
    "李雷": ("LiLei", "LiLei"),
}


@pytest.fixture
def hostile_game(sheets_tournament, arbitrator, arbitrator_client):
    """A played game (rounds closed, not over) that players with hostile and faraway names then join through
    the API: arriving late they score 0, so their difference from the top is negative."""
    played = play_game(sheets_tournament, arbitrator, end=False)
    game = played.game
    for table, name in enumerate([*FORMULAS, *FARAWAY], start=20):
        response = arbitrator_client.post(f"/api/games/{game.pk}/players", {"name": name, "table": table},
                                          format="json")
        assert response.status_code == 201, response.content
    return played


def _csv(arbitrator_client, game) -> tuple[str, list[dict]]:
    response = arbitrator_client.get(f"/api/games/{game.pk}/exports/standings.csv")
    assert response.status_code == 200
    text = response.content.decode("utf-8")
    return text, list(csv.DictReader(io.StringIO(text)))


def test_formula_names_reach_the_csv_as_text_and_numbers_stay_numbers(hostile_game, arbitrator_client):
    text, rows = _csv(arbitrator_client, hostile_game.game)
    names = [row["name"] for row in rows]
    for formula in FORMULAS:
        assert "'" + formula in names  # shown as text by the spreadsheet, the player's name still readable
        assert formula not in names
    # Each text cell is quoted in the file itself; numbers are bare, negative ones included.
    lines = text.splitlines()
    assert lines[0].startswith('"rank","series_rank","name",')
    for line, row in zip(lines[1:], rows, strict=True):
        assert '"' + row["name"].replace('"', '""') + '"' in line
        assert f",{row['diff']}," in line and f",\"{row['diff']}\"," not in line
    late = [row for row in rows if row["name"].startswith("'")]
    assert late and all(int(row["diff"]) < 0 and not row["diff"].startswith("'") for row in late)
    assert any(int(row["diff"]) == 0 for row in rows)  # the leader: "0", a number too


def test_every_dangerous_first_character_is_neutralised_in_text_only():
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert text_cell(f"{start}1+1") == f"'{start}1+1"
    assert text_cell("Zoé -12") == "Zoé -12" and text_cell("") == "" and text_cell(None) == ""
    from tournaments.exports import standings_csv

    row = {"rank": 2, "name": "\tTab", "table": None, "series": "-x", "total": 88, "diff": -12, "percent": 88.0,
           "tops": 0, "solos": 0, "warnings": 0, "penalties": 1, "club": "=SUM(A1)"}
    line = standings_csv([row]).splitlines()[1]
    # The federation's identity follows (licence, club, category, date of birth), its text neutralised too.
    assert line == '2,"","\'\tTab","","\'-x",88,-12,88.00,0,0,0,1,"","\'=SUM(A1)","",""'


def test_the_results_file_neutralises_formulas_and_transliterates_faraway_names(hostile_game, arbitrator_client):
    game = hostile_game.game
    response = arbitrator_client.get(f"/api/games/{game.pk}/exports/results.txt")
    assert response.status_code == 200
    body = response.content.decode("latin-1")
    lines = body.split("\r\n")
    by_table = {int(line.split('","')[0].strip('"')): line for line in lines if line and not line.startswith('""')}
    tables = {name: 20 + index for index, name in enumerate([*FORMULAS, *FARAWAY])}
    assert by_table[tables["@SUM(1+1)"]].startswith(f'"{tables["@SUM(1+1)"]}","\'@SUM(1+1)",')
    assert by_table[tables[FORMULAS[0]]].startswith(
        f'"{tables[FORMULAS[0]]}","\'=HYPERLINK(""http://x.invalid"",""c"")",'
    )
    for name, (_, latin1) in FARAWAY.items():
        assert by_table[tables[name]].startswith(f'"{tables[name]}","{latin1}",'), by_table[tables[name]]
    assert f'"1","{ZOE}"' in body  # Latin-1 letters stay as they are
    assert "?" not in body


def _assert_drawable(text: str) -> None:
    """Every character the PDF's text holds has a glyph in the sheets' fonts: none was drawn as glyph 0."""
    drawable = glyphs(SANS) & glyphs(SANS_BOLD)
    missing = sorted({ch for ch in text if not ch.isspace() and ord(ch) not in drawable})
    assert missing == [], missing


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/{game}/sheets/standings.pdf",
        "/api/games/{game}/sheets/scoresheets.pdf",
        "/api/tournaments/{tournament}/sheets/standings.pdf",
    ],
)
def test_every_name_prints_as_readable_text_in_the_pdfs(hostile_game, arbitrator_client, path, tmp_path):
    game = hostile_game.game
    response = arbitrator_client.get(path.format(game=game.pk, tournament=game.tournament_id))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content, tmp_path)
    for name, (printed, _) in FARAWAY.items():
        assert printed in text, (name, printed)
    for script in ("محمد", "دمحم", "דוד", "דוד"[::-1], "李", "雷"):
        assert script not in text  # neither drawn unjoined and reversed, nor as boxes
    _assert_drawable(text)


def test_the_player_scoresheet_title_is_readable(hostile_game, arbitrator_client, tmp_path):
    game = hostile_game.game
    player = game.arrivals.get(name="李雷")
    response = arbitrator_client.get(f"/api/games/{game.pk}/players/{player.pk}/scoresheet.pdf")
    assert response.status_code == 200
    text = pdf_text(response.content, tmp_path)
    assert "LiLei" in text
    _assert_drawable(text)


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("Zoé Łukasz Ødegård", "Zoé Łukasz Ødegård"),
        ("Иван", "Иван"),
        ("Ελένη", "Ελένη"),
        ("مُحَمَّد", "muhamad"),  # marks follow their letter
        ("דוד", "dvd"),
        ("山田 太郎", "ShanTian TaiLang"),
        ("देवनागरी", "devnagri"),
        ("김민수", "GimMinSu"),
        ("\ue000x", "?x"),  # a private character with no spelling
    ],
)
def test_printable_keeps_what_the_font_draws_and_spells_the_rest(name, printed):
    for font in (SANS, SANS_BOLD):
        assert printable(name, font) == printed
        assert all(ord(ch) in glyphs(font) for ch in printable(name, font))
