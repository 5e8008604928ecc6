"""The page every sheet shares: A4, a header naming the event, the lexicon and its checksum, a numbered footer."""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import partial

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate

from tournaments import typography, wording

from .data import Header
from .typefaces import MONO, SANS, SANS_BOLD, fit, register_fonts

MARGIN = 12 * mm
HEADER_HEIGHT = 22 * mm
FOOTER_HEIGHT = 8 * mm
PRODUCT = gettext_lazy("Duplicate Scrabble arbiter")
MINUS = "\u2212"

LIGHT = colors.Color(0.93, 0.93, 0.93)
RULE = colors.Color(0.55, 0.55, 0.55)

LABELLINGS = {
    "rows-letters": gettext_lazy("references: rows A-O, columns 1-15, letter first = horizontal"),
    "rows-numbers": gettext_lazy("references: rows 1-15, columns A-O, number first = horizontal"),
}


class _CountingCanvas(Canvas):
    """Writes "of N" through a form drawn on every page and defined once the last page is known."""

    PAGE_COUNT = "pageCount"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.pages = 0

    def showPage(self):
        self.pages += 1
        super().showPage()

    def save(self):
        self.beginForm(self.PAGE_COUNT)
        self.setFont(SANS, 7)
        self.drawString(0, 0, str(self.pages))
        self.endForm()
        super().save()


def signed_diff(diff: int) -> str:
    """The difference from the top as the federation prints it: -N below the top, 0 on it (+N with bonuses)."""
    if diff < 0:
        return f"{MINUS}{-diff}"
    return f"+{diff}" if diff else "0"


def percent(value: float) -> str:
    """A percentage of the top with two decimals, in the sheet's language (``87.50``, ``87,50``)."""
    return typography.decimal(value, 2)


class SheetDocument(BaseDocTemplate):
    """An A4 document (portrait unless ``wide``) whose pages carry the sheet's header and footer."""

    def __init__(self, buffer: io.BytesIO, *, header: Header, title: str, wide: bool = False):
        register_fonts()
        if header.provisional:
            title = _("%(title)s (provisional)") % {"title": title}
        product = str(PRODUCT)
        pagesize = landscape(A4) if wide else A4
        super().__init__(
            buffer,
            pagesize=pagesize,
            leftMargin=MARGIN,
            rightMargin=MARGIN,
            topMargin=MARGIN + HEADER_HEIGHT,
            bottomMargin=MARGIN + FOOTER_HEIGHT,
            title=f"{title} - {header.tournament}" + (f" - {header.game}" if header.game else ""),
            author=product,
            creator=product,
            subject=title,
            keywords=header.chain,  # read back by manage.py verifylog --held
            initialFontName=SANS,  # else the canvas names Helvetica, a font the PDF would not embed
        )
        self.header = header
        self.sheet_title = title
        frame = Frame(
            self.leftMargin,
            self.bottomMargin,
            self.width,
            self.height,
            id="body",
            leftPadding=0,
            rightPadding=0,
            topPadding=0,
            bottomPadding=0,
        )
        self.addPageTemplates([PageTemplate(id="sheet", frames=[frame], onPage=self._decorate)])

    def render(self, story: Sequence[Flowable]) -> None:
        self.build(list(story), canvasmaker=partial(_CountingCanvas))

    def _decorate(self, canv: Canvas, doc) -> None:
        width, height = doc.pagesize
        left, right = MARGIN, width - MARGIN
        top = height - MARGIN
        header = self.header
        canv.saveState()
        canv.setFont(SANS_BOLD, 13)
        title_width = canv.stringWidth(self.sheet_title, SANS_BOLD, 13)
        canv.drawRightString(right, top - 12, self.sheet_title)
        canv.drawString(
            left, top - 12, fit(header.tournament, right - left - title_width - 20, SANS_BOLD, 13)
        )
        canv.setFont(SANS, 9)
        facts = [part for part in (header.game, header.date) if part]
        if header.lexicon:
            facts.append(_("lexicon %(name)s") % {"name": header.lexicon})
        if header.tileset:
            facts.append(wording.tileset_short(header.tileset))
        if header.ruleset:
            facts.append(wording.ruleset_label(header.ruleset))
        if (header.variant and header.variant != "duplicate") or header.timing not in ("", "normal"):
            facts.append(wording.variant_label(header.variant or "duplicate", header.timing))
        canv.drawString(left, top - 26, fit("  ·  ".join(facts), right - left, SANS, 9))
        canv.setFont(MONO, 7)
        if header.lexicon_sha256:
            canv.drawString(left, top - 38, f"{header.lexicon} sha256 {header.lexicon_sha256}")
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.6)
        canv.line(left, top - HEADER_HEIGHT + 14, right, top - HEADER_HEIGHT + 14)
        canv.line(left, MARGIN + FOOTER_HEIGHT - 8, right, MARGIN + FOOTER_HEIGHT - 8)
        canv.setFont(SANS, 7)
        canv.drawString(left, MARGIN, str(PRODUCT))
        # How the references read, in the footer's middle (the header's facts take its whole width).
        labelling = typography.typeset(str(LABELLINGS.get(header.coordinates, header.coordinates)))
        canv.drawCentredString((left + right) / 2, MARGIN, labelling)
        label = _("page %(number)s of ") % {"number": canv.getPageNumber()}
        canv.drawString(right - 50, MARGIN, label)
        canv.translate(right - 50 + canv.stringWidth(label, SANS, 7), MARGIN)
        canv.doForm(_CountingCanvas.PAGE_COUNT)
        canv.restoreState()
        if header.chain:  # the log chain's head of each game, at printing: below the footer, small
            canv.saveState()
            canv.setFont(MONO, 5.5)
            canv.drawString(left, MARGIN - 9, fit(header.chain, right - left, MONO, 5.5))
            canv.restoreState()


def grid_style(header_rows: int = 1, numeric_from: int | None = None, numeric_to: int = -1) -> list:
    """Commands shared by the sheets' tables: a shaded bold header, striped rows, thin rules."""
    commands = [
        ("FONT", (0, 0), (-1, -1), SANS, 8),
        ("FONT", (0, 0), (-1, header_rows - 1), SANS_BOLD, 7.5),
        ("BACKGROUND", (0, 0), (-1, header_rows - 1), LIGHT),
        ("LINEBELOW", (0, header_rows - 1), (-1, header_rows - 1), 0.8, colors.black),
        ("LINEBELOW", (0, header_rows), (-1, -1), 0.25, RULE),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.6),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.2),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    if numeric_from is not None:
        commands.append(("ALIGN", (numeric_from, 0), (numeric_to, -1), "RIGHT"))
    return commands


def pdf_bytes(build, header: Header | None = None) -> bytes:
    """Run ``build(buffer)`` (in the language of ``header``'s tournament) and return what it wrote."""
    buffer = io.BytesIO()
    with translation.override(header.language if header is not None else "en"):
        build(buffer)
    return buffer.getvalue()
