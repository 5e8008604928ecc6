"""The standings sheet: one line per player, ranked, paginated with the column titles on every page.

A multi-game tournament gets one column per game before the tournament total, and a landscape page once
the games no longer fit a portrait one.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import LongTable, Paragraph, Spacer

from tournaments.typography import typeset

from .data import StandingRow, Standings
from .page import SheetDocument, grid_style, pdf_bytes, percent, signed_diff
from .typefaces import SANS, SANS_BOLD, fit

STRIPE = colors.Color(0.97, 0.97, 0.97)
PORTRAIT_GAMES = 4

# (title, width in points) of the columns around the name and the per-game totals.
_LEFT = (
    (pgettext_lazy("sheet column", "Rank"), 30),
    (pgettext_lazy("sheet column", "Name"), None),
    (pgettext_lazy("sheet column", "Table"), 32),
    (pgettext_lazy("sheet column", "Series"), 46),
)
_RIGHT = (
    (pgettext_lazy("sheet column", "Total"), 40),
    (pgettext_lazy("sheet column", "Diff."), 38),
    (pgettext_lazy("sheet column", "% top"), 36),
    (pgettext_lazy("sheet column", "Tops"), 28),
    (pgettext_lazy("sheet column", "Solos"), 30),
    (pgettext_lazy("sheet column", "Warn."), 30),
    (pgettext_lazy("sheet column", "Pen."), 28),
)
_GAME_WIDTH = 36
# Topping's time column, after the total (points): the rows are ranked by it, the lowest first.
_TIME = (pgettext_lazy("sheet column", "Time (s)"), 44)


def _right(timed: bool) -> tuple:
    return (_RIGHT[0], _TIME, *_RIGHT[1:]) if timed else _RIGHT


def _series(row: StandingRow) -> str:
    """The series with the player's rank within it in brackets: "2 (1)"."""
    if not row.series:
        return ""
    label = fit(row.series, 24, SANS, 8)
    return f"{label} ({row.series_rank})" if row.series_rank else label


def _cells(row: StandingRow, name_width: float, games: int, timed: bool = False) -> list:
    game_cells = []
    if games:
        # Topping: each game's time in seconds, as the ranking; any other game: its points.
        per_game = row.game_seconds if timed and row.game_seconds else row.game_totals
        totals = list(per_game) + [None] * (games - len(per_game))
        game_cells = ["" if total is None else str(total) for total in totals[:games]]
    return [
        str(row.rank),
        fit(row.name, name_width, SANS, 8),
        "" if row.table is None else str(row.table),
        _series(row),
        *game_cells,
        str(row.total),
        *([("" if row.seconds is None else str(row.seconds))] if timed else []),
        signed_diff(row.diff),
        percent(row.percent),
        str(row.tops),
        str(row.solos),
        str(row.warnings),
        str(row.penalties),
    ]


def render_standings(standings: Standings) -> bytes:
    """The standings as a PDF (A4, paginated, the column titles repeated on each page)."""
    games = len(standings.game_labels)
    timed = standings.timed
    right = _right(timed)

    def build(buffer):
        title = _("Tournament standings") if games else _("Standings")
        doc = SheetDocument(buffer, header=standings.header, title=title, wide=games > PORTRAIT_GAMES)
        fixed = sum(width for _, width in _LEFT + right if width) + games * _GAME_WIDTH
        name_width = max(doc.width - fixed, 90)
        titles = [str(t) for t, _w in _LEFT] + list(standings.game_labels) + [str(t) for t, _w in right]
        widths = [w or name_width for _t, w in _LEFT] + [_GAME_WIDTH] * games + [w for _t, w in right]

        def table_of(players: tuple[StandingRow, ...]) -> LongTable:
            rows = [titles] + [_cells(row, name_width - 6, games, timed) for row in players]
            return LongTable(rows, colWidths=widths, repeatRows=1, style=style)

        first_number = len(_LEFT)
        style = grid_style(numeric_from=first_number)
        style += [
            ("ALIGN", (0, 0), (0, -1), "RIGHT"),
            ("ALIGN", (2, 0), (2, -1), "RIGHT"),
            ("ALIGN", (3, 0), (3, -1), "CENTER"),
            ("FONT", (first_number + games + timed, 1), (first_number + games + timed, -1), SANS_BOLD, 8),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, STRIPE]),
        ]
        if games:
            style.append(("LINEBEFORE", (first_number, 0), (first_number, -1), 0.5, colors.grey))
            style.append(
                ("LINEBEFORE", (first_number + games, 0), (first_number + games, -1), 0.5, colors.grey)
            )
        note = ParagraphStyle("note", fontName=SANS, fontSize=7.5, leading=9)
        heading = ParagraphStyle("group", fontName=SANS_BOLD, fontSize=10, leading=13, spaceBefore=8, spaceAfter=3)
        if standings.groups:
            story = []
            for group, players in standings.groups:
                story += [Paragraph(typeset(group), heading), table_of(players)]
            players = sum(len(rows) for _group, rows in standings.groups)
        else:
            story = [table_of(standings.rows)]
            players = len(standings.rows)
        parts = [
            ngettext("%(n)s player", "%(n)s players", players) % {"n": players},
            _("sum of the tops %(total)s") % {"total": standings.top_total},
            *([_("Topping: ranked by the total time in seconds, the lowest first; Total: the points")]
              if timed else []),
            *([_("the game columns: each game's time in seconds")] if timed and games else []),
            _("Diff.: the player's total minus the sum of the tops"),
            _("Series: in brackets the rank within the series"),
            _("ties share a rank and are broken by the last game, then its last round, the round before...")
            if games else _("ties share a rank"),
        ]
        story += [Spacer(0, 6), Paragraph(typeset(" · ".join(parts)), note)]
        if standings.header.provisional:
            story.append(Paragraph(typeset(_(
                "Provisional: the game is still in play or paper slips are still being entered; the figures may "
                "change.")), note))
        doc.render(story)

    return pdf_bytes(build, standings.header)
