"""The solutions sheet, for the club's notice board: per round the rack, the master, the other tied tops and
the next best plays, how many players found the top, and the solo.

The data is plain (``Solutions``), built by ``solutions_source`` from the game's closed rounds; the renderer
never touches the database. Rounds go two to a row of the page, in round order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from xml.sax.saxutils import escape

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, Spacer, Table

from tournaments.typography import colon, typeset
from tournaments.wording import found_top_text

from .data import Header
from .page import LIGHT, SheetDocument, grid_style, pdf_bytes
from .typefaces import MONO, MONO_BOLD, SANS, SANS_BOLD, fit, printable


@dataclass(frozen=True)
class SolutionPlay:
    rank: int  # tied plays share a rank: 1, 1, 3...
    word: str  # lowercase letter: a blank
    ref: str  # in the event's labelling
    score: int
    top: bool = False
    master: bool = False


@dataclass(frozen=True)
class SolutionRound:
    number: int
    rack: str  # as announced: kept letters, + , the new ones
    plays: tuple[SolutionPlay, ...] = ()  # the master first, the other tops, then the next best
    top_score: int | None = None
    tops: int = 0  # how many plays score the top
    players: int = 0  # the round's players: every player of the game at that round, with or without a slip
    found_top: int = 0  # of them, how many were paid the top (both: tournaments.selectors.found_top)
    solo: str = ""  # the player whose score beat every other's (rules §3.5), if any
    solo_score: int = 0


@dataclass(frozen=True)
class Solutions:
    header: Header
    rounds: tuple[SolutionRound, ...] = ()
    status: str = ""  # "over" once the game has ended


_COLUMNS = (
    (pgettext_lazy("sheet column: rank of a play", "#"), 18),
    (pgettext_lazy("sheet column", "Word"), 104),
    (pgettext_lazy("sheet column", "Ref."), 34),
    (pgettext_lazy("sheet column", "Score"), 38),
    ("", 56),
)
_GAP = 12
_HEADING = ParagraphStyle("solutions-round", fontName=SANS_BOLD, fontSize=10, leading=13, spaceAfter=1)
_FACT = ParagraphStyle("solutions-fact", fontName=SANS, fontSize=7.5, leading=9.5)
_NOTE = ParagraphStyle("solutions-note", fontName=SANS, fontSize=7.5, leading=9)
_MORE = ParagraphStyle("solutions-more", fontName=SANS, fontSize=7.5, leading=9.5, leftIndent=3)


def _label(play: SolutionPlay) -> str:
    if play.master:
        return pgettext("solutions sheet: the master move", "master")
    return pgettext("solutions sheet: a tied top", "top") if play.top else ""


def _heading(line: SolutionRound) -> Paragraph:
    round_label = escape(_("Round %(number)s") % {"number": line.number})
    rack = escape(line.rack)
    label = escape(pgettext("sheet column", "Rack"))
    return Paragraph(
        f'{round_label} <font name="{SANS}" size="9">· {label}{escape(colon())}</font> '
        f'<font name="{MONO_BOLD}" size="10">{rack}</font>',
        _HEADING,
    )


def _facts(line: SolutionRound) -> list[str]:
    facts = []
    if line.tops > 1:
        facts.append(ngettext("%(n)s play scores the top", "%(n)s plays score the top", line.tops)
                     % {"n": line.tops})
    if line.players:
        facts.append(found_top_text(line.found_top, line.players))
    return facts


def _solo(line: SolutionRound) -> str:
    if not line.solo:
        return ""
    text = _("solo: %(name)s (top)") if line.solo_score == line.top_score else _("solo: %(name)s (%(score)s)")
    return text % {"name": printable(line.solo), "score": line.solo_score}


def _shown(line: SolutionRound) -> tuple[tuple[SolutionPlay, ...], list[str]]:
    """The plays printed (at most ARBITER_SOLUTIONS_MAX_LINES), and a sentence for each score left out."""
    limit = settings.ARBITER_SOLUTIONS_MAX_LINES
    shown, rest = line.plays[:limit], line.plays[limit:]
    more = []
    for score, plays in groupby(rest, key=lambda play: play.score):
        count = len(list(plays))
        more.append(ngettext("and %(n)s more play scoring %(score)s", "and %(n)s more plays scoring %(score)s",
                             count) % {"n": count, "score": score})
    return shown, more


def _table(plays: tuple[SolutionPlay, ...]) -> Table:
    rows = [[str(title) for title, _width in _COLUMNS]]
    word_width = _COLUMNS[1][1] - 6
    for play in plays:
        rows.append([str(play.rank), fit(play.word, word_width, MONO, 8.5), play.ref, str(play.score), _label(play)])
    style = grid_style(numeric_from=3, numeric_to=3)
    style += [
        ("ALIGN", (0, 0), (0, -1), "RIGHT"),
        ("FONT", (1, 1), (2, -1), MONO, 8.5),
        ("FONT", (4, 1), (4, -1), SANS, 7),
        ("TEXTCOLOR", (4, 1), (4, -1), colors.Color(0.3, 0.3, 0.3)),
    ]
    for index, play in enumerate(plays, start=1):
        if play.top:
            style.append(("FONT", (1, index), (3, index), MONO_BOLD, 8.5))
        if play.master:
            style.append(("BACKGROUND", (0, index), (-1, index), LIGHT))
            style.append(("FONT", (4, index), (4, index), SANS_BOLD, 7))
    return Table(rows, colWidths=[width for _title, width in _COLUMNS], style=style, hAlign="LEFT")


def _round_block(line: SolutionRound) -> list:
    block = [_heading(line)]
    if not line.plays:
        return [*block, Paragraph(typeset(_("(no play)")), _FACT)]
    facts = _facts(line)
    if facts:
        block.append(Paragraph(escape(typeset(" · ".join(facts))), _FACT))
    solo = _solo(line)
    if solo:  # a line of its own: a long name never pushes the counts apart
        block.append(Paragraph(escape(typeset(solo)), _FACT))
    block.append(Spacer(0, 2))
    shown, more = _shown(line)
    block.append(_table(shown))
    block += [Paragraph(escape(typeset(sentence)), _MORE) for sentence in more]
    return block


def _rounds_grid(rounds: tuple[SolutionRound, ...], width: float) -> Table | None:
    """The rounds two to a row: a row never splits across pages, and each cell holds one round."""
    if not rounds:
        return None
    column = (width - _GAP) / 2
    cells = [_round_block(line) for line in rounds]
    if len(cells) % 2:
        cells.append("")
    rows = [cells[index:index + 2] for index in range(0, len(cells), 2)]
    style = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 0),
        ("RIGHTPADDING", (0, 0), (-1, -1), 0),
        ("TOPPADDING", (0, 0), (-1, -1), 0),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 10),
    ]
    return Table(rows, colWidths=[column + _GAP, column], style=style, hAlign="LEFT")


def render_solutions(solutions: Solutions) -> bytes:
    """The solutions sheet as a PDF (A4 portrait, paginated between rows of rounds)."""

    def build(buffer):
        doc = SheetDocument(buffer, header=solutions.header, title=_("Solutions"))
        closed = len(solutions.rounds)
        facts = [ngettext("%(n)s round", "%(n)s rounds", closed) % {"n": closed}]
        if solutions.status == "over":
            facts.append(_("game over"))
        elif solutions.header.provisional:
            facts.append(_("game in play: provisional"))
        story = [Paragraph(escape(typeset(" · ".join(facts))), _NOTE), Spacer(0, 6)]
        grid = _rounds_grid(solutions.rounds, doc.width)
        if grid is not None:
            story.append(grid)
        story.append(Paragraph(escape(typeset(" ".join((_(
            "A lowercase letter is a blank. Rack: kept letters, then the new ones after the +. "
            "Plays are ranked by score; tied plays share a rank. The master is the top placed on the board. "
            "A solo: a player whose score beat every other player's in the round."
        ), _("Found the top: how many of the round's players were paid the top; a round's players are every "
             "player of the game at that round, with a slip or without one."))))), _NOTE))
        doc.render(story)

    return pdf_bytes(build, solutions.header)
