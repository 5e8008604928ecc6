"""A player's scoresheet: every round as the player played it beside the top, and a summary at the bottom.

``render_scoresheets`` puts every player of a game into one PDF, one player per page, for printing in one go.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import KeepTogether, PageBreak, Paragraph, Spacer, Table

from tournaments.typography import percent, typeset

from .data import Scoresheet, ScoresheetRound
from .labels import outcome_label, reason_label
from .page import LIGHT, SheetDocument, grid_style, pdf_bytes, signed_diff
from .typefaces import MONO, SANS, SANS_BOLD, fit, printable

WARNING_TINT = colors.Color(1.0, 0.96, 0.80)
ZERO_TINT = colors.Color(1.0, 0.89, 0.89)
TOP_TINT = colors.Color(0.89, 0.96, 0.89)

_COLUMNS = (
    (pgettext_lazy("sheet column: round number", "Rd"), 18),
    (pgettext_lazy("sheet column", "Rack"), 50),
    (pgettext_lazy("sheet column", "Word"), 72),
    (pgettext_lazy("sheet column", "Ref."), 26),
    (pgettext_lazy("sheet column", "Claim"), 28),
    (pgettext_lazy("sheet column", "Paid"), 26),
    (pgettext_lazy("sheet column", "Outcome"), 44),
    (pgettext_lazy("sheet column", "Reason"), 73),
    (pgettext_lazy("sheet column", "Top word"), 72),
    (pgettext_lazy("sheet column", "Ref."), 26),
    (pgettext_lazy("sheet column: top score", "Top"), 24),
    (pgettext_lazy("sheet column: running total", "Total"), 34),
    (pgettext_lazy("sheet column: running sum of the tops", "Tops"), 34),
)
# Topping: the round's time and the running total of times instead of the running points and tops.
# The reason gives up 16 points for the times' titles ("Temps (s)"): the page's width (527) holds the columns.
_TIMED_COLUMNS = (*_COLUMNS[:7], (_COLUMNS[7][0], 57), *_COLUMNS[8:11],
    (pgettext_lazy("sheet column", "Time (s)"), 42),
    (pgettext_lazy("sheet column: running total of times", "Total (s)"), 42),
)
_WORD_CHARS = 15

_TITLE = ParagraphStyle("player", fontName=SANS_BOLD, fontSize=15, leading=18)
_SUBTITLE = ParagraphStyle("player-facts", fontName=SANS, fontSize=9, leading=12)
_NOTE = ParagraphStyle("note", fontName=SANS, fontSize=7, leading=9)
# The reason, whole: wrapped within its column, never cut.
_REASON = ParagraphStyle("reason", fontName=SANS, fontSize=7, leading=8)
# A slip's mark beside its reason, and the legend under the rounds.
MARKS = {"corrected": "*", "late": "\u2020"}


def _reason_cell(line: ScoresheetRound) -> Paragraph:
    text = escape(printable(reason_label(line.reason), SANS))
    mark = MARKS.get(line.mark)
    if mark:
        text = f"{text}\u00a0{mark}" if text else mark  # the mark stays with the last word
    return Paragraph(typeset(text), _REASON)


def _legend(sheet: Scoresheet) -> str:
    """What the marks of this sheet mean (only those it carries)."""
    used = {line.mark for line in sheet.rounds}
    parts = []
    if "corrected" in used:
        parts.append(_("%(mark)s corrected by the arbitrator") % {"mark": MARKS["corrected"]})
    if "late" in used:
        parts.append(_("%(mark)s late slip admitted (the venue's fault)") % {"mark": MARKS["late"]})
    return " · ".join(parts)


def _round_cells(line: ScoresheetRound, timed: bool = False) -> list:
    running = (["" if line.seconds is None else str(line.seconds),
                "" if line.total_seconds is None else str(line.total_seconds)] if timed
               else [str(line.total), str(line.top_total)])
    return [
        str(line.number),
        line.rack,
        fit(line.word, 70, MONO, 8),
        line.ref,
        "" if line.claimed is None else str(line.claimed),
        str(line.paid),
        outcome_label(line.outcome),
        _reason_cell(line),
        fit(line.top_word, 70, MONO, 8),
        line.top_ref,
        str(line.top_score),
        *running,
    ]


def _rounds_table(sheet: Scoresheet) -> Table:
    columns = _TIMED_COLUMNS if sheet.timed else _COLUMNS
    rows = [[str(title) for title, _width in columns]] + [_round_cells(line, sheet.timed) for line in sheet.rounds]
    style = grid_style(numeric_from=4, numeric_to=5)
    style += [
        ("ALIGN", (0, 0), (0, -1), "RIGHT"),
        ("ALIGN", (10, 0), (12, -1), "RIGHT"),
        ("FONT", (1, 1), (3, -1), MONO, 8),
        ("FONT", (8, 1), (9, -1), MONO, 8),
        ("FONT", (7, 1), (7, -1), SANS, 7),
        ("FONT", (5, 1), (5, -1), SANS_BOLD, 8),
        ("FONT", (11, 1), (11, -1), SANS_BOLD, 8),
        ("LINEBEFORE", (8, 0), (8, -1), 0.6, colors.grey),
        ("LINEBEFORE", (11, 0), (11, -1), 0.6, colors.grey),
    ]
    for index, line in enumerate(sheet.rounds, start=1):
        if line.outcome in ("warning", "penalty"):
            style.append(("BACKGROUND", (4, index), (7, index), WARNING_TINT))
        elif line.outcome == "zero":
            style.append(("BACKGROUND", (4, index), (7, index), ZERO_TINT))
        if line.paid and line.paid == line.top_score:
            style.append(("BACKGROUND", (2, index), (2, index), TOP_TINT))
    return Table(rows, colWidths=[width for _title, width in columns], repeatRows=1, style=style)


def _summary_table(sheet: Scoresheet) -> Table:
    summary = sheet.summary
    rounds_total = sheet.rounds[-1].total if sheet.rounds else 0
    top_total = sheet.top_total or (sheet.rounds[-1].top_total if sheet.rounds else 0)
    rows = [[_("Paid over the rounds"), str(rounds_total)]]
    bold = []
    if sheet.solo_points:
        rows.append([_("Solos (%(n)s)") % {"n": summary.solos if summary else ""}, f"+{sheet.solo_points}"])
    if sheet.warning_points:
        rows.append(
            [
                _("Warnings beyond the free ones (%(n)s)") % {"n": summary.warnings if summary else ""},
                f"\u2212{sheet.warning_points}",
            ]
        )
    if summary is not None and sheet.timed:
        # Topping: the time decides; the points stay above.
        bold.append(len(rows))
        total_seconds = summary.seconds if summary.seconds is not None else (
            sheet.rounds[-1].total_seconds if sheet.rounds else 0)
        rows.append([_("Total time (s)"), str(total_seconds)])
        rows.append([_("Tops found"), _("%(found)s of %(rounds)s") % {"found": summary.tops,
                                                                        "rounds": len(sheet.rounds)}])
        rank = (_("%(rank)s of %(players)s") % {"rank": summary.rank, "players": sheet.players}
                if sheet.players else str(summary.rank))
        bold.append(len(rows))
        rows.append([pgettext("scoresheet summary", "Rank"), rank])
    elif summary is not None:
        bold.append(len(rows))
        rows.append([pgettext("scoresheet summary", "Total"), str(summary.total)])
        rows.append([_("Sum of the tops"), str(top_total)])
        rows.append([_("Difference from the top"), signed_diff(summary.diff)])
        rows.append([_("Percentage of the top"), percent(summary.percent, 2)])
        rank = (_("%(rank)s of %(players)s") % {"rank": summary.rank, "players": sheet.players}
                if sheet.players else str(summary.rank))
        bold.append(len(rows))
        rows.append([pgettext("scoresheet summary", "Rank"), rank])
        rows.append(
            [
                _("Tops · solos · warnings · penalties"),
                f"{summary.tops} · {summary.solos} · {summary.warnings} · {summary.penalties}",
            ]
        )
    style = [
        ("FONT", (0, 0), (-1, -1), SANS, 9),
        ("ALIGN", (1, 0), (1, -1), "RIGHT"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.grey),
        ("BOX", (0, 0), (-1, -1), 0.8, colors.black),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]
    for index in bold:
        style.append(("FONT", (0, index), (-1, index), SANS_BOLD, 10))
        style.append(("BACKGROUND", (0, index), (-1, index), LIGHT))
    return Table(rows, colWidths=[200, 90], style=style, hAlign="RIGHT")


def _player_story(sheet: Scoresheet) -> list:
    facts = []
    if sheet.table is not None:
        facts.append(_("table %(table)s") % {"table": sheet.table})
    if sheet.series:
        facts.append(_("series %(series)s") % {"series": escape(printable(sheet.series, SANS))})
    rounds = len(sheet.rounds)
    facts.append(ngettext("%(n)s round", "%(n)s rounds", rounds) % {"n": rounds})
    if sheet.timed:
        note = _("A lowercase letter is a blank. Rack: the letters kept from the round before, then the new "
                 "ones. Topping: Time is the seconds taken to hand in the top (with the cost of wrong tries), or "
                 "the round's time plus the penalty when the top was not found; Total (s) is cumulative and ranks "
                 "the players, the lowest first.")
    else:
        note = _("A lowercase letter is a blank. Rack: the letters kept from the round before, then the new "
                 "ones. Total and Tops are cumulative; solos and warning costs are settled at the end of the game.")
    legend = _legend(sheet)
    if legend:
        note += " " + legend + "."
    if sheet.header.provisional:
        note += " " + _("Provisional: the game is still in play or paper slips are still being entered; the "
                        "figures may change.")
    return [
        Paragraph(escape(printable(sheet.name, SANS_BOLD)), _TITLE),
        Paragraph(" · ".join(facts), _SUBTITLE),
        Spacer(0, 6),
        _rounds_table(sheet),
        Spacer(0, 4),
        Paragraph(typeset(note), _NOTE),
        Spacer(0, 10),
        KeepTogether([_summary_table(sheet)]),
    ]


def render_scoresheets(sheets: Iterable[Scoresheet], *, single: bool = False) -> bytes:
    """Every sheet in one PDF, each player starting on a new page (``single``: one player's sheet)."""
    sheets = list(sheets)
    if not sheets:
        raise ValueError("no scoresheet to print")

    def build(buffer):
        title = _("Scoresheet") if single else _("Scoresheets")
        doc = SheetDocument(buffer, header=sheets[0].header, title=title)
        story: list = []
        for index, sheet in enumerate(sheets):
            if index:
                story.append(PageBreak())
            story.extend(_player_story(sheet))
        doc.render(story)

    return pdf_bytes(build, sheets[0].header)


def render_scoresheet(sheet: Scoresheet) -> bytes:
    """One player's scoresheet as a PDF."""
    return render_scoresheets([sheet], single=True)
