"""Formulas written in compatibility forms (full-width ＝, ＋, －, ＠, the small ﹦...): the federation's Latin-1
file transliterates them into =, +, -, @, so it neutralises what it writes after the transliteration; the
standings CSV, which keeps the name as typed, neutralises them too (a spreadsheet may fold them)."""

from __future__ import annotations

import csv
import io

import pytest

from tournaments.exports import results_file, standings_csv
from tournaments.exports.cells import text_cell

DISGUISED = ["＝5+5", "＋33 6", "－2+3+cmd|' /C calc'!A0", "＠SUM(1+1)", "﹦HYPERLINK(\"http://x.invalid\")",
             "\u2212" + "2+3"]  # U+2212 MINUS SIGN: the Latin-1 file spells it "-"


def _row(name: str) -> dict:
    return {"rank": 1, "name": name, "table": 7, "series": "", "total": 88, "diff": 0, "percent": 100.0,
            "tops": 0, "solos": 0, "warnings": 0, "penalties": 0}


@pytest.mark.parametrize("name", DISGUISED)
def test_the_results_file_neutralises_after_transliterating(name):
    line = results_file([_row(name)]).decode("latin-1")
    table, written, total = next(csv.reader(io.StringIO(line)))
    assert (table, total) == ("7", "88")
    assert written.startswith("'") and written[1] in "=+-@", written
    assert not written.startswith(("=", "+", "-", "@"))


@pytest.mark.parametrize("name", DISGUISED[:5])
def test_the_standings_csv_neutralises_compatibility_forms(name):
    rows = list(csv.DictReader(io.StringIO(standings_csv([_row(name)]))))
    assert rows[0]["name"] == "'" + name


def test_ordinary_names_and_numbers_are_left_alone():
    assert text_cell("Zoé Ｚ") == "Zoé Ｚ" and text_cell("５ points") == "５ points"
    line = results_file([{**_row("Łukasz -1"), "total": -3}]).decode("latin-1")
    assert line == '"7","Lukasz -1","-3"\r\n'


@pytest.mark.django_db
def test_a_disguised_formula_name_through_the_export_url(api_game):
    game = api_game(players=0)
    response = game.arbitrator.post(game.url("/players"), {"name": "＝5+5", "table": 3}, format="json")
    assert response.status_code == 201, response.content
    body = game.arbitrator.get(game.url("/exports/results.txt"))
    assert body.status_code == 200, body.content
    assert body.content.decode("latin-1") == '"3","\'=5+5","0"\r\n'
