"""A tournament's language: chosen at its creation, it writes the sheets (standings, scoresheets, game record)
in French or English whatever the reader's language, with each language's plurals and typography; a game
still in play is printed as provisional. A French tournament on an imported word list is played end to end
through the API: draw, slips (phone and paper), judging, close, master, end, sheets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import translation

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from tournaments import typography
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, Lexicon, Round, Tournament
from tournaments.sheets.data import GameRecord, Header, RecordRound, Scoresheet, ScoresheetRound, StandingRow
from tournaments.sheets.record import render_record
from tournaments.sheets.scoresheet import render_scoresheet

from .api_support import assert_error, bearer_client, expect
from .sheets_support import pdf_text, screenshot

pytestmark = pytest.mark.django_db

FRENCH_WORDS = Path(__file__).resolve().parents[1] / "fixtures" / "french_words.txt"
NBSP = "\u00a0"

# Words an English sheet prints that a French sheet must not (whole words, case as written).
ENGLISH_WORDS = (
    "rounds", "round", "Final", "final", "board", "Board", "Standings", "Total", "Rank", "Name", "Word", "Paid",
    "Reason", "Outcome", "Claim", "Rack", "Master", "Cumulative", "Ties", "Score", "lexicon", "rules", "Game",
    "game", "games", "of", "sum", "Sum", "Difference", "Percentage", "warning", "warnings", "penalty",
    "invalid", "references", "blank", "blanks", "Scoresheet", "Scoresheets", "record", "provisional", "players",
    "English", "FISF competition", "tiles", "wrong", "slip", "Series", "series", "TW", "DW", "TL", "DL",
)


def english_words_in(text: str) -> list[str]:
    text = re.sub(r"--[\w-]+", "", text)  # a command's option (manage.py verifylog --record) is no English word
    return [word for word in ENGLISH_WORDS if re.search(rf"(?<![\w'’]){re.escape(word)}(?![\w'’])", text)]


# --------------------------------------------------------------------------------------------------
# POST /api/tournaments with a language


@pytest.mark.parametrize(("asked", "kept"), [({"language": "fr"}, "fr"), ({"language": "en"}, "en"), ({}, "en")])
def test_a_tournament_is_created_in_its_language(arbitrator_client, asked, kept):
    body = expect(arbitrator_client.post("/api/tournaments", {"name": "Club", **asked}, format="json"), 201)
    assert body["language"] == kept
    assert Tournament.objects.get(pk=body["id"]).language == kept


@pytest.mark.parametrize("language", ["de", "FR", "french", "", 1, None, ["fr"]])
def test_an_unknown_language_is_refused_and_nothing_is_created(arbitrator_client, language):
    answer = arbitrator_client.post("/api/tournaments", {"name": "Club", "language": language}, format="json")
    error = assert_error(answer, 400)
    assert "language" in error["fields"]
    assert '"en" or "fr"' in " ".join(error["fields"]["language"]) or "null" in str(error["fields"]["language"])
    assert not Tournament.objects.exists()


def test_the_schema_documents_the_language(arbitrator_client):
    schema = arbitrator_client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    schemas = schema["components"]["schemas"]
    created = schemas["TournamentCreate"]["properties"]["language"]
    assert created["default"] == "en" and "phones" in created["description"]
    assert set(schemas[created["allOf"][0]["$ref"].rsplit("/", 1)[1]]["enum"]) == {"en", "fr"}
    assert "language" in schema["components"]["schemas"]["Tournament"]["properties"]


def test_the_service_refuses_an_unknown_language_with_a_code(make_tournament):
    from tournaments.errors import ServiceError

    with pytest.raises(ServiceError) as refused:
        make_tournament(language="de")
    assert (refused.value.code, refused.value.params) == ("bad_language", {"language": "de", "choices": "en, fr"})
    assert not Tournament.objects.exists()


# --------------------------------------------------------------------------------------------------
# Typography


def test_french_typography_puts_a_no_break_space_before_high_punctuation():
    assert typography.typeset("Bulletins reçus : 2 / 5", "fr") == f"Bulletins reçus{NBSP}: 2 / 5"
    assert typography.typeset("Sac: 93", "fr") == f"Sac{NBSP}: 93"
    assert typography.typeset("Prêt ? Oui ! Non ; peut-être", "fr") == f"Prêt{NBSP}? Oui{NBSP}! Non{NBSP}; peut-être"
    # Times, addresses and a blank's ? inside a word are not punctuation.
    assert typography.typeset("12:30 http://x.fr SA?LAD", "fr") == "12:30 http://x.fr SA?LAD"
    assert typography.typeset("Bag: 93", "en") == "Bag: 93"
    assert typography.percent(87.5, 1, "fr") == f"87,5{NBSP}%"
    assert typography.percent(87.5, 1, "en") == "87.5%"
    assert typography.decimal(3.25, 2, "fr") == "3,25"
    with translation.override("fr"):
        assert typography.colon() == f"{NBSP}:"
    with translation.override("en"):
        assert typography.colon() == ":"


# --------------------------------------------------------------------------------------------------
# Sheets from plain data: the sheet's language, plurals, provisional


def _header(language: str, provisional: bool = False) -> Header:
    return Header(tournament="Coupe d'Automne", game="Partie 1" if language == "fr" else "Game 1",
                  date="2026-11-21", lexicon="ODS9", ruleset="fisf", tileset="french", language=language,
                  provisional=provisional)


def _scoresheet(language: str, rounds: int) -> Scoresheet:
    lines = tuple(ScoresheetRound(number=n, rack="EIR+STAN", word="RATINES", ref="H4", claimed=70, paid=70,
                                  outcome="ok", reason="ok", top_word="RATINES", top_ref="H4", top_score=70,
                                  total=70 * n, top_total=70 * n) for n in range(1, rounds + 1))
    summary = StandingRow(rank=1, name="Zoé Lefèvre", total=70 * rounds, percent=87.5)
    return Scoresheet(header=_header(language), name="Zoé Lefèvre", table=3, rounds=lines, summary=summary,
                      players=2)


@pytest.mark.parametrize(("language", "counts"), [
    ("en", {0: "0 rounds", 1: "1 round", 2: "2 rounds"}),
    ("fr", {0: "0 coup", 1: "1 coup", 2: "2 coups"}),  # French: 0 and 1 are singular
])
def test_plurals_are_right_in_both_languages(language, counts, tmp_path):
    for rounds, words in counts.items():
        text = pdf_text(render_scoresheet(_scoresheet(language, rounds)), tmp_path)
        assert re.search(rf"(?<!\d){words}(?!\w)", text), (words, text[:400])


def test_a_sheet_is_written_in_its_tournament_language_whatever_the_reader(tmp_path):
    with translation.override("en"):  # an English reader prints a French tournament's sheet
        french = pdf_text(render_scoresheet(_scoresheet("fr", 2)), tmp_path)
    with translation.override("fr"):  # and a French reader an English one
        english = pdf_text(render_scoresheet(_scoresheet("en", 2)), tmp_path)
    assert "Feuille de match" in french and "Écart au top" in french and "Pourcentage du top" in french
    assert re.search(r"Pourcentage du top\s+87,50\s%", french)  # decimal comma, a space before %
    assert "lexique ODS9" in french and "jeu de lettres français" in french
    assert "Règlement de compétition FISF" in french and "références" in french
    assert english_words_in(french) == []
    assert "Scoresheet" in english and "Difference from the top" in english and "87.50%" in english
    assert "lexicon ODS9" in english and "FISF competition rules" in english and "French tiles" in english
    assert "Feuille" not in english and "coups" not in english


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_record_still_in_play_is_provisional_and_never_calls_the_board_final(language, tmp_path):
    rounds = (RecordRound(number=1, rack="AEINRST", master_word="RATINES", master_ref="H4", master_score=70,
                          top_total=70),)
    board = ("." * 15,) * 7 + ("...RATINES.....",) + ("." * 15,) * 7
    in_play = pdf_text(render_record(GameRecord(header=_header(language, provisional=True), rounds=rounds,
                                                board=board)), tmp_path)
    over = pdf_text(render_record(GameRecord(header=_header(language), rounds=rounds, board=board,
                                             status="over")), tmp_path)
    if language == "en":
        assert "(provisional)" in in_play and "Board after round 1 (provisional" in in_play
        assert "Final" not in in_play and "final" not in in_play
        assert "Final board" in over and "provisional" not in over
    else:
        assert "(provisoire)" in in_play and "Grille après le coup 1 (provisoire" in in_play
        assert "finale" not in in_play.lower()
        assert "Grille finale" in over and "provisoire" not in over
        assert re.search(r"MT\b", in_play) and not re.search(r"\bTW\b", in_play)  # premium squares in French


# --------------------------------------------------------------------------------------------------
# A French tournament on an imported list, end to end through the API


def _plays(game: Game, number: int):
    round = Round.objects.get(game=game, number=number)
    tournament = game.tournament
    plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon),
                           tournament.tiles, tournament.rules)
    return sorted(plays, key=lambda p: (-p.score, p.word, p.row, p.col, p.horizontal))


def _ref(play, labelling: str = "rows-letters") -> str:
    return format_ref(play.row, play.col, play.horizontal, labelling)


def test_a_french_tournament_on_an_imported_list_end_to_end(arbitrator_client, isolated_cache, tmp_path):
    call_command("importlexicon", str(FRENCH_WORDS), "--name", "FRLISTE", "--tileset", "french", stdout=None)
    words = set(Lexicon.objects.get(name="FRLISTE").words.split())
    assert {"ELEPHANT", "ZEBRE", "ILE", "CA", "COEUR", "SOEURS", "TRAINES"} <= words  # accents folded to A-Z
    assert not {"AUJOURD'HUI", "L'EAU", "X1"} & words
    t = expect(arbitrator_client.post("/api/tournaments", {
        "name": "Tournoi du club", "lexicon": "FRLISTE", "tileset": "french", "language": "fr",
        "rules": {"solo_min_players": 3}}, format="json"), 201)
    assert (t["language"], t["lexicon"], t["tileset"]) == ("fr", "FRLISTE", "french")
    g = expect(arbitrator_client.post(f"/api/tournaments/{t['id']}/games", {"seed": 11}, format="json"), 201)
    url = f"/api/games/{g['id']}"
    seats = {}
    for name, table in (("Alice", 1), ("Bruno", 2), ("Chloé", 3)):
        p = expect(arbitrator_client.post(f"{url}/players", {"name": name, "table": table}, format="json"), 201)
        seats[name] = bearer_client(p["token"])
    game = Game.objects.get(pk=g["id"])

    # Round 1: a rack typed from the bag; Alice's phone hands in the top, Bruno's paper slip has a wrong
    # score (entered by the arbitrator by table), Chloé writes a word that is not in the list.
    expect(arbitrator_client.post(f"{url}/rounds", {"rack": "AEINRST"}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    plays = _plays(game, 1)
    top = plays[0]
    assert top.score >= 50 and len(top.word) == 7  # a seven-letter word of the list: a bingo
    expect(seats["Alice"].post(f"{url}/rounds/1/slips", {"word": top.word, "ref": _ref(top), "score": top.score,
                                                         "key": "a1"}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/slips", {"table": 2, "word": top.word, "ref": _ref(top),
                                                            "score": top.score + 2}, format="json"), 201)
    expect(seats["Chloé"].post(f"{url}/rounds/1/slips", {"word": "STRAINE", "ref": "H4", "score": 70,
                                                         "key": "c1"}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/close", {}, format="json"), 200)
    detail = expect(arbitrator_client.get(f"{url}/rounds/1"), 200)
    assert detail["top_score"] == top.score
    results = {row["name"]: row for row in detail["results"]}
    assert (results["Alice"]["paid"], results["Alice"]["outcome"]) == (top.score, "ok")
    assert (results["Bruno"]["paid"], results["Bruno"]["reason"]) == (top.score, "wrong_score")
    assert (results["Chloé"]["paid"], results["Chloé"]["reason"]) == (0, "invalid_word")
    master = detail["master"]

    # Round 2: a random draw; only Alice hands in a slip.
    expect(arbitrator_client.post(f"{url}/rounds", {}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/2/start", {}, format="json"), 200)
    second = _plays(game, 2)[0]
    expect(seats["Alice"].post(f"{url}/rounds/2/slips", {"word": second.word, "ref": _ref(second),
                                                         "score": second.score, "key": "a2"}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/2/close", {}, format="json"), 200)

    # Still in play: the game record is provisional, its board not final.
    in_play_pdf = arbitrator_client.get(f"{url}/sheets/record.pdf").content
    in_play = pdf_text(in_play_pdf, tmp_path, "in-play")
    screenshot(in_play_pdf, "sheet-fr-record-in-play")
    assert "Feuille de partie (provisoire)" in in_play and "Grille après le coup 2 (provisoire" in in_play
    assert "finale" not in in_play.lower() and english_words_in(in_play) == []

    # Every paper slip entered: the arbitrator marks the rounds' slips complete, then ends the game.
    for number in (1, 2):
        expect(arbitrator_client.post(f"{url}/rounds/{number}/complete", {}, format="json"), 200)
    expect(arbitrator_client.post(f"{url}/end", {}, format="json"), 200)
    sheets = {
        "standings": f"{url}/sheets/standings.pdf",
        "scoresheets": f"{url}/sheets/scoresheets.pdf",
        "record": f"{url}/sheets/record.pdf",
        "tournament": f"/api/tournaments/{t['id']}/sheets/standings.pdf",
    }
    texts = {}
    for name, path in sheets.items():
        answer = arbitrator_client.get(path, HTTP_ACCEPT_LANGUAGE="en")  # an English reader: still French
        assert answer.status_code == 200 and answer.content.startswith(b"%PDF"), name
        texts[name] = pdf_text(answer.content, tmp_path, name)
        screenshot(answer.content, f"sheet-fr-{name}")
        assert english_words_in(texts[name]) == [], (name, english_words_in(texts[name]))
        assert "Tournoi du club" in texts[name] and "lexique FRLISTE" in texts[name]
        assert "jeu de lettres français" in texts[name] and "Règlement de compétition FISF" in texts[name]
        assert "provisoire" not in texts[name]
    assert "Classement" in texts["standings"] and "Partie 1" in texts["standings"]
    assert re.search(r"Rang\s+Nom\s+Table\s+Série\s+Points\s+Écart", texts["standings"])
    assert "3 joueurs" in texts["standings"]
    assert "Classement du tournoi" in texts["tournament"] and "1 partie" in texts["tournament"]
    assert re.search(r"P1\s+Points", texts["tournament"])
    pages = texts["scoresheets"].split("\f")
    bruno = next(page for page in pages if "Bruno" in page)
    chloe = next(page for page in pages if "Chloé" in page)
    assert "Feuilles de match" in bruno and "2 coups" in bruno and "score faux" in bruno and "avert." in bruno
    assert "mot non valable" in chloe and "zéro" in chloe and "pas de bulletin" in chloe
    assert re.search(r"Pourcentage du top\s+\d+,\d\d\s%", bruno)
    record = texts["record"]
    assert "Feuille de partie" in record and "Grille finale (jokers entourés)" in record
    assert "2 coups" in record and "partie terminée" in record
    assert re.search(rf"{master['word']}\s+{master['ref']}\s+{master['score']}", record)

    # The tournament's language does not change the reader's pages: the API's refusals stay as they are.
    assert Tournament.objects.get(pk=t["id"]).language == "fr"


def test_a_game_over_whose_last_round_slips_are_incomplete_is_provisional(make_tournament, arbitrator, tmp_path):
    from tournaments.sheets import sources

    from .sheets_support import play_game

    played = play_game(make_tournament(name="Club", language="fr"), arbitrator, rounds=2)
    assert played.game.status == Game.Status.OVER
    Round.objects.filter(game=played.game).update(slips_complete=True)
    assert not sources.game_standings_sheet(played.game).header.provisional
    Round.objects.filter(game=played.game, number=2).update(slips_complete=False)
    header = sources.game_standings_sheet(played.game).header
    assert header.provisional and header.language == "fr"
    text = pdf_text(render_record(sources.game_record_sheet(played.game)), tmp_path)
    assert "(provisoire)" in text and "finale" not in text.lower()


def test_english_sheets_of_a_game_read_english(make_tournament, arbitrator, tmp_path):
    from tournaments.sheets import sources
    from tournaments.sheets.standings import render_standings

    from .sheets_support import play_game

    played = play_game(make_tournament(name="Club"), arbitrator, rounds=2)
    Round.objects.filter(game=played.game).update(slips_complete=True)  # every paper slip entered
    with translation.override("fr"):  # a French reader of an English tournament
        standings = pdf_text(render_standings(sources.game_standings_sheet(played.game)), tmp_path)
        record = pdf_text(render_record(sources.game_record_sheet(played.game)), tmp_path)
    assert re.search(r"Rank\s+Name\s+Table\s+Series\s+Total\s+Diff\.", standings) and "5 players" in standings
    assert "lexicon TWL06" in standings and "English tiles" in standings and "FISF competition rules" in standings
    assert "2 rounds" in record and "Final board (blanks circled)" in record and "game over" in record
    assert "Classement" not in standings and "Grille" not in record


# --------------------------------------------------------------------------------------------------
# The phone's first language is its tournament's


def test_the_phone_starts_in_its_tournament_language_and_can_switch(client, make_game):
    french = make_game(language="fr")
    english = make_game(language="en")
    page = client.get(f"/games/{french.pk}/play", HTTP_ACCEPT_LANGUAGE="en")
    assert page["Content-Language"] == "fr"
    html = page.content.decode()
    assert '<html lang="fr">' in html and "Votre bulletin" in html
    page = client.get(f"/games/{english.pk}/play", HTTP_ACCEPT_LANGUAGE="fr")
    assert '<html lang="en">' in page.content.decode() and "Your slip" in page.content.decode()
    # The phone switches with the language buttons: its choice wins over the tournament's.
    client.post("/i18n/setlang/", {"language": "en", "next": f"/games/{french.pk}/play"})
    html = client.get(f"/games/{french.pk}/play").content.decode()
    assert '<html lang="en">' in html and "Your slip" in html
