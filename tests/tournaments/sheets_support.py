"""Fixtures shared by the sheets and exports tests (imported by test_sheets*.py and test_exports*.py).

``played_game`` plays a short game through the services with players whose names need more than ASCII:
a typed first rack, random racks after it, tops, a master the arbitrator picks among the tied tops, a wrong score, a reversed reference, a missing slip, a
late arrival, a correction with its reason, and the end of the game.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from django.utils import timezone

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from tournaments import services
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, LateSlip, LogEntry, Player, Result, Round, Slip

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

ZOE, LUKASZ, JEAN, ANNA, PAUL = "Zoé Lefèvre", "Łukasz Żmuda", 'Jean "Le Roi" Dupont', "Анна Петрова", "Paul Martin"
FIRST_RACK = "AEINRST"
ROUNDS = 4


# PDFs are read with pypdfium2 (PDFium, the PDF engine of Chromium, as a wheel with no other dependency),
# so that `make test` needs no system program such as poppler's pdftotext. It is picked over pypdf and
# pdfminer.six because one library both reads the text and draws pages to PNG (the screenshots), and fast
# (in C), where pypdf draws nothing and pdfminer.six neither draws nor keeps a table's rows as lines.
# PDFium gives the text in the order it was drawn, not as it reads on the page (the footer before the table,
# a board's labels before its squares), so pdf_text lays the characters out again from their positions, as
# ``pdftotext -layout`` does: lines top to bottom, characters left to right, and spaces where a gap
# separates two runs of text (the columns of a table). The tests' patterns rest on that.


def pdf_text(pdf: bytes, tmp_path: Path | None = None, name: str = "sheet") -> str:
    """The text of a PDF line by line as it reads on the page, each page ended by a form feed (as
    ``pdftotext -layout`` gives it). With ``tmp_path``, the PDF is also written there as ``name``.pdf, to
    open when a test fails."""
    if tmp_path is not None:
        (tmp_path / f"{name}.pdf").write_bytes(pdf)
    document = pdfium.PdfDocument(pdf)
    try:
        return "".join(_page_text(document[index]) + "\f" for index in range(len(document)))
    finally:
        document.close()


def _page_text(page) -> str:
    textpage = page.get_textpage()
    chars = []  # (baseline, left, right, size, character)
    for index in range(textpage.count_chars()):
        if pdfium_c.FPDFText_IsGenerated(textpage.raw, index):  # PDFium's guessed spaces and line ends
            continue
        char = chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, index))
        if char in "\r\n":
            continue
        left, _bottom, right, _top = textpage.get_charbox(index, loose=True)
        x, y = ctypes.c_double(), ctypes.c_double()
        pdfium_c.FPDFText_GetCharOrigin(textpage.raw, index, ctypes.byref(x), ctypes.byref(y))
        chars.append((y.value, left, right, pdfium_c.FPDFText_GetFontSize(textpage.raw, index) or 1.0, char))
    textpage.close()
    page.close()
    # Lines: a character joins the line whose height (from below the baseline to the top of a capital, of
    # the line's characters so far) holds its middle, so that a letter's small value printed low beside it
    # on the board stays on the letter's line, as pdftotext puts it.
    lines: list[list] = []
    for char in sorted(chars, key=lambda c: (-c[0], c[1])):
        baseline, size = char[0], char[3]
        middle = baseline + 0.3 * size
        if lines and lines[-1][0] <= middle <= lines[-1][1]:
            line = lines[-1]
            line[0], line[1] = min(line[0], baseline - 0.3 * size), max(line[1], baseline + 0.8 * size)
            line[2].append(char)
        else:
            lines.append([baseline - 0.3 * size, baseline + 0.8 * size, [char]])
    margin = min((c[1] for c in chars), default=0.0)
    widths = sorted(c[2] - c[1] for c in chars if c[4] != " ")
    column = widths[len(widths) // 2] if widths else 1.0  # the median width of a character
    return "\n".join(_line_text(sorted(chars, key=lambda c: c[1]), margin, column) for _bottom, _top, chars in lines)


def _line_text(chars: list, margin: float, column: float) -> str:
    """A line's characters on a grid of ``column``-wide columns from the page's left ``margin``, as in
    ``pdftotext -layout``: a run of text after a wide gap starts at its column, so that the columns of a
    table line up and a number aligned right is indented; after a narrow gap (a rank and its word, a score
    and its mark) it starts one space after the run before it."""
    out = ""
    previous = None
    for _y, left, right, size, char in chars:
        gap = left - previous if previous is not None else None
        if char != " " and (gap is None or gap > 0.15 * size) and not out.endswith(" "):
            # A new run of text (not the next letter of a word).
            at = round((left - margin) / column)
            out += " " * (max(1, at - len(out)) if gap is None or gap > 2 * column else 1) if out else " " * at
        out += char
        previous = right
    return out.rstrip()


def pdf_stream_text(pdf: bytes) -> str:
    """The pages' text in the order it was drawn, pages joined by form feeds: a table cell's wrapped lines
    come one after the other (pdf_text lays the text out by position, which puts a wrapped cell's lines
    above and below the rest of its row)."""
    document = pdfium.PdfDocument(pdf)
    try:
        return "\f".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def squeezed(text: str) -> str:
    """``text`` without any white space: a wrapped phrase compares whole."""
    return re.sub(r"\s+", "", text)


def pdf_pages(pdf: bytes, tmp_path: Path | None = None, name: str = "sheet") -> int:
    """How many pages the PDF has (written to ``tmp_path`` as pdf_text does)."""
    if tmp_path is not None:
        (tmp_path / f"{name}.pdf").write_bytes(pdf)
    document = pdfium.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def pdf_fonts(pdf: bytes) -> set[tuple[str, bool]]:
    """The fonts the PDF's text is drawn with, on every page: (base font name, embedded)."""
    fonts = set()
    document = pdfium.PdfDocument(pdf)
    try:
        for index in range(len(document)):
            page = document[index]
            for item in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_TEXT]):
                font = pdfium_c.FPDFTextObj_GetFont(item.raw)
                size = pdfium_c.FPDFFont_GetBaseFontName(font, None, 0)
                name = ctypes.create_string_buffer(size)
                pdfium_c.FPDFFont_GetBaseFontName(font, name, size)
                fonts.add((name.value.decode(), bool(pdfium_c.FPDFFont_GetIsEmbedded(font))))
            page.close()
    finally:
        document.close()
    return fonts


def pdf_page_png(pdf: bytes, path: Path, page: int = 1, dpi: int = 60) -> Path:
    """Page ``page`` (from 1) drawn at ``dpi`` into the PNG file ``path``."""
    document = pdfium.PdfDocument(pdf)
    try:
        drawn = document[page - 1]
        drawn.render(scale=dpi / 72).to_pil().save(path)
        drawn.close()
    finally:
        document.close()
    return path


def screenshot(pdf: bytes, name: str, page: int = 1) -> Path:
    """A PNG of one page at 60 dpi in test-artifacts/, to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"{name}.pdf").write_bytes(pdf)
    return pdf_page_png(pdf, ARTIFACTS / f"{name}.png", page)


@dataclass
class PlayedGame:
    game: Game
    players: dict[str, Player]
    tokens: dict[str, str]
    masters: list[dict] = field(default_factory=list)  # per round: the master as stored (word, ref, score)


def _plays(round: Round) -> list:
    tournament = round.game.tournament
    plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon),
                           tournament.tiles, tournament.rules)
    return sorted(plays, key=lambda play: (-play.score, play.word, play.row, play.col, play.horizontal))


def _ref(play, labelling: str, reversed_: bool = False) -> str:
    return format_ref(play.row, play.col, play.horizontal != reversed_, labelling)


def play_game(tournament, arbitrator, *, seed: int = 7, rounds: int = ROUNDS, end: bool = True,
              change_master: bool = True) -> PlayedGame:
    game = services.game_create(tournament=tournament, seed=seed)
    labelling = tournament.coordinates
    # Players of the tournament's earlier games take part in this one too.
    players = {p.name: p for p in Player.objects.filter(tournament=tournament)}
    tokens = {}
    for name, table in ((ZOE, 1), (LUKASZ, 2), (JEAN, 3), (ANNA, None)):
        if name not in players:
            players[name], tokens[name] = services.player_register(game=game, name=name, table=table,
                                                                   series="2" if table == 2 else "")
    played = PlayedGame(game, players, tokens)
    start = timezone.now() - timedelta(hours=2)
    for number in range(1, rounds + 1):
        if number == 2 and PAUL not in players:
            players[PAUL], tokens[PAUL] = services.player_register(game=game, name=PAUL, table=5)
        round = services.round_draw(game=game, rack=FIRST_RACK if number == 1 else None, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        plays = _plays(round)
        top, other = plays[0], next(p for p in plays if p.score < plays[0].score)
        received = opened + timedelta(seconds=30)

        def hand_in(name, word, ref, score, key, round=round, received=received):
            services.slip_submit(round=round, player=players[name], word=word, ref=ref, score=score, key=key,
                                 now=received)

        master = round.master
        hand_in(ZOE, master["word"], master["ref"], master["score"], f"z{number}")
        hand_in(LUKASZ, other.word, _ref(other, labelling), other.score + (3 if number == 2 else 0), f"l{number}")
        if number == 3:
            hand_in(JEAN, top.word, _ref(top, labelling, reversed_=True), top.score, f"j{number}")
        else:
            hand_in(JEAN, other.word, _ref(other, labelling), other.score, f"j{number}")
        if number != 2:
            hand_in(ANNA, other.word, _ref(other, labelling), other.score, f"a{number}")
        if number >= 2:
            hand_in(PAUL, other.word, _ref(other, labelling), other.score, f"p{number}")
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=200))
        round.refresh_from_db()
        if number == 1 and change_master:
            other_top = next(t for t in round.tops if (t["word"], t["ref"]) != (master["word"], master["ref"]))
            round = services.round_choose_master(round=round, word=other_top["word"], ref=other_top["ref"],
                                                 actor=arbitrator)
        played.masters.append(round.master)
        if number == 2:
            slip = Slip.objects.get(round=round, player=players[LUKASZ], current=True)
            services.slip_correct(slip=slip, reason="score misread from the paper slip", actor=arbitrator,
                                  score=other.score)
    if end:
        services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    return played


# The models of a played game, parents first, and the fields that name the tournament or the arbitrator.
_SAVED_MODELS = (Game, Player, Round, Slip, LateSlip, Result, LogEntry)
_TOURNAMENT_FIELDS = ("tournament_id",)
_ARBITRATOR_FIELDS = ("created_by_id", "entered_by_id", "actor_id")


def save_played_game(played: PlayedGame, tournament, arbitrator) -> dict:
    """Copies of a played game's rows (every field, primary keys included), to load into a later test."""
    game = played.game
    rows = {}
    for model in _SAVED_MODELS:
        rows[model] = [
            {f.attname: getattr(obj, f.attname) for f in model._meta.concrete_fields}
            for obj in (model.objects.filter(pk=game.pk) if model is Game else _of_game(model, game)).order_by("pk")
        ]
    return {
        "rows": rows, "tournament": tournament.pk, "arbitrator": arbitrator.pk, "game": game.pk,
        "players": {name: player.pk for name, player in played.players.items()},
        "tokens": dict(played.tokens), "masters": [dict(master) for master in played.masters],
    }


def _of_game(model, game):
    if model is Player:
        return Player.objects.filter(first_game=game)
    if model is Round or model is LogEntry:
        return model.objects.filter(game=game)
    return model.objects.filter(round__game=game)


def load_played_game(saved: dict, tournament, arbitrator) -> PlayedGame:
    """The saved rows inserted again, their tournament and arbitrator those of the present test."""
    for model, rows in saved["rows"].items():
        objects = []
        for row in rows:
            row = dict(row)
            for name in _TOURNAMENT_FIELDS:
                if row.get(name) == saved["tournament"]:
                    row[name] = tournament.pk
            for name in _ARBITRATOR_FIELDS:
                if name in row and row[name] == saved["arbitrator"]:
                    row[name] = arbitrator.pk
            objects.append(model(**row))
        model.objects.bulk_create(objects)
    game = Game.objects.get(pk=saved["game"])
    players = {name: Player.objects.get(pk=pk) for name, pk in saved["players"].items()}
    return PlayedGame(game, players, dict(saved["tokens"]), [dict(master) for master in saved["masters"]])
