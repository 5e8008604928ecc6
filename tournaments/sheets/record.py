"""The game record (the master's sheet): each round's rack with its rejected draws, the master move and the
running top, then the final board."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import CondPageBreak, KeepTogether, Paragraph, Spacer, Table

from tournaments.typography import typeset

from .data import GameRecord, RecordRound
from .diagram import BoardDiagram
from .incidents import incidents_story
from .page import SheetDocument, grid_style, pdf_bytes
from .typefaces import MONO, MONO_BOLD, SANS, SANS_BOLD, fit

_COLUMNS = (
    (pgettext_lazy("sheet column: round number", "Rd"), 22),
    (pgettext_lazy("sheet column", "Rack"), 70),
    (pgettext_lazy("sheet column", "Rejected draws"), 120),
    (pgettext_lazy("sheet column", "Master"), 110),
    (pgettext_lazy("sheet column", "Ref."), 34),
    (pgettext_lazy("sheet column", "Score"), 40),
    (pgettext_lazy("sheet column", "Ties"), 46),
    (pgettext_lazy("sheet column", "Cumulative"), 60),
)
# Topping's times: rank, player, a column per round (as many as fit, the rest in the next table), total.
_TIMES_ROUNDS = 15
_TIMES_ROUND_WIDTH = 23
_TIMES_NAME_WIDTH = 100
_HEADING = ParagraphStyle("heading", fontName=SANS_BOLD, fontSize=11, leading=14, spaceAfter=4)
_NOTE = ParagraphStyle("note", fontName=SANS, fontSize=7.5, leading=9)


def _cells(line: RecordRound) -> list:
    return [
        str(line.number),
        line.rack,
        fit(" ".join(line.rejected), 116, MONO, 7.5),
        _master(line),
        line.master_ref,
        str(line.master_score),
        str(line.tops) if line.tops > 1 else "",
        str(line.top_total),
    ]


def _master(line: RecordRound) -> str:
    if line.cancelled:
        return _("(cancelled)")
    return fit(line.master_word, 106, MONO, 8.5) if line.master_word else _("(no play)")


def _rounds_table(record: GameRecord) -> Table:
    rows = [[str(title) for title, _width in _COLUMNS]] + [_cells(line) for line in record.rounds]
    style = grid_style(numeric_from=5)
    style += [
        ("ALIGN", (0, 0), (0, -1), "RIGHT"),
        ("FONT", (1, 1), (1, -1), MONO, 8.5),
        ("FONT", (2, 1), (2, -1), MONO, 7.5),
        ("FONT", (3, 1), (3, -1), MONO_BOLD, 8.5),
        ("FONT", (4, 1), (4, -1), MONO, 8.5),
        ("FONT", (7, 1), (7, -1), SANS_BOLD, 8),
        ("TEXTCOLOR", (2, 1), (2, -1), colors.Color(0.45, 0.1, 0.1)),
    ]
    return Table(rows, colWidths=[width for _title, width in _COLUMNS], repeatRows=1, style=style, hAlign="LEFT")


def _times_story(record: GameRecord) -> list:
    """Topping: each player's seconds in each round and their total, the lowest total first, in tables of
    ``_TIMES_ROUNDS`` rounds (the total in each)."""
    if not record.times:
        return []
    story = [Spacer(0, 8), Paragraph(typeset(_("Times (s)")), _HEADING)]
    numbers = record.time_rounds
    for start in range(0, max(len(numbers), 1), _TIMES_ROUNDS):
        chunk = numbers[start:start + _TIMES_ROUNDS]
        rows = [[pgettext("sheet column", "Rank"), pgettext("sheet column", "Name"),
                 *[pgettext("sheet column: round number", "R%(number)s") % {"number": n} for n in chunk],
                 pgettext("sheet column", "Total (s)")]]
        for line in record.times:
            rows.append([str(line.rank), fit(line.name, _TIMES_NAME_WIDTH - 6, SANS, 8),
                         *[str(seconds) for seconds in line.seconds[start:start + _TIMES_ROUNDS]], str(line.total)])
        style = grid_style(numeric_from=2) + [("ALIGN", (0, 0), (0, -1), "RIGHT"),
                                              ("FONT", (-1, 1), (-1, -1), SANS_BOLD, 8)]
        widths = [26, _TIMES_NAME_WIDTH, *[_TIMES_ROUND_WIDTH] * len(chunk), 44]
        story += [Table(rows, colWidths=widths, repeatRows=1, style=style, hAlign="LEFT"), Spacer(0, 4)]
    note = _("Topping: each round's time is the seconds taken to hand in the top (with the cost of wrong tries), "
             "or the round's time plus the penalty when the top was not found; the lowest total ranks first.")
    return [*story, Paragraph(typeset(note), _NOTE)]


def _log_chain_story(record: GameRecord) -> list:
    """The log's chain heads: each round's last entry and the game's, by place and SHA-256, in full (a copy
    outside the database is only a proof if every digit of the hash is printed)."""
    if not record.log_heads:
        return []
    rows = [[pgettext("sheet column: round number", "Rd"), pgettext("sheet column", "Entry"), "SHA-256"]]
    for number, seq, digest in record.log_heads:
        rows.append([str(number) if number else _("last"), str(seq), digest])
    style = grid_style(numeric_from=0, numeric_to=1) + [("FONT", (2, 1), (2, -1), MONO, 7)]
    table = Table(rows, colWidths=[30, 40, 300], repeatRows=1, style=style, hAlign="LEFT")
    note = _("Each line is the hash of the arbitration log's last entry about the round (last: the game's last "
             "entry). Each entry holds the hash of the one before, so the log as it stands must still pass "
             "through these hashes: manage.py verifylog --record checks it.")
    return [Spacer(0, 8), KeepTogether([Paragraph(typeset(_("Arbitration log chain")), _HEADING), table,
                                        Spacer(0, 3), Paragraph(typeset(note), _NOTE)])]


def render_record(record: GameRecord) -> bytes:
    """The game record as a PDF: the rounds, then the final board on a page of its own if need be. A game
    still in play (a provisional header) shows the board as it stands, never called final."""

    def build(buffer):
        doc = SheetDocument(buffer, header=record.header, title=_("Game record"))
        total = record.rounds[-1].top_total if record.rounds else 0
        # The rounds that count (Round.objects.counting()): a cancelled round is listed, replayed under its
        # number, and counts for nothing.
        count = sum(1 for line in record.rounds if not line.cancelled)
        facts = [ngettext("%(n)s round", "%(n)s rounds", count) % {"n": count},
                 _("sum of the tops %(total)s") % {"total": total}]
        if record.status == "over":
            facts.append(_("game over"))
        elif record.header.provisional:
            facts.append(_("game in play: provisional"))
        if record.header.provisional:
            heading = (_("Board after round %(number)s (provisional, blanks circled)") % {"number": count}
                       if count else _("Board (provisional, blanks circled)"))
        else:
            heading = _("Final board (blanks circled)")
        square = min(26.0, (doc.width - 20) / 15.8)
        board = BoardDiagram(
            record.board, labelling=record.header.coordinates, tileset=record.tileset, square=square
        )
        story = [
            Paragraph(typeset(" · ".join(facts)), _NOTE),
            Spacer(0, 6),
            _rounds_table(record),
            Spacer(0, 4),
            Paragraph(
                typeset(_(
                    "A lowercase letter is a blank. Rack: kept letters, then the new ones after the +. "
                    "A rejected draw is shown as drawn (- before it) and went back into the bag. "
                    "Ties: how many plays scored the top."
                )),
                _NOTE,
            ),
            *_times_story(record),
            *incidents_story(record.rounds),
            *_log_chain_story(record),
            Spacer(0, 10),
            CondPageBreak(board.height + 30),
            KeepTogether([Paragraph(typeset(heading), _HEADING), board]),
        ]
        doc.render(story)

    return pdf_bytes(build, record.header)
