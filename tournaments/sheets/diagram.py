"""The board as a printed diagram: premium squares shaded, tiles with their values, blanks circled.

Rows and columns are labelled in the event's labelling, so the diagram reads like the references beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import pgettext_lazy
from reportlab.lib import colors
from reportlab.platypus import Flowable

from engine.layout import SIZE, STANDARD
from engine.notation import labels
from engine.tiles import load_tileset

from .typefaces import SANS, SANS_BOLD

PREMIUM_FILL = {
    "W": colors.Color(0.95, 0.62, 0.58),  # triple word
    "w": colors.Color(0.99, 0.83, 0.80),  # double word
    "L": colors.Color(0.50, 0.70, 0.92),  # triple letter
    "l": colors.Color(0.78, 0.88, 0.97),  # double letter
}
PREMIUM_TEXT = {
    "W": pgettext_lazy("premium square", "TW"),
    "w": pgettext_lazy("premium square", "DW"),
    "L": pgettext_lazy("premium square", "TL"),
    "l": pgettext_lazy("premium square", "DL"),
}
TILE_FILL = colors.Color(0.98, 0.91, 0.72)
BLANK_FILL = colors.white


class BoardDiagram(Flowable):
    """A 15x15 board; ``rows`` use the API's format (``.`` empty, uppercase tile, lowercase blank)."""

    def __init__(
        self,
        rows: Sequence[str],
        *,
        labelling: str = "rows-letters",
        tileset: str = "english",
        square: float = 22.0,
    ):
        super().__init__()
        self.rows = [row.ljust(SIZE, ".")[:SIZE] for row in rows] + ["." * SIZE] * (SIZE - len(rows))
        self.labelling = labelling
        self.tiles = load_tileset(tileset)
        self.square = square
        self.margin = square * 0.8
        self.width = self.height = self.margin + SIZE * square

    def wrap(self, available_width, available_height):
        return self.width, self.height

    def draw(self):
        canv, size, margin = self.canv, self.square, self.margin
        row_labels, col_labels = labels(self.labelling)
        top = self.height - margin
        canv.setFont(SANS_BOLD, size * 0.38)
        canv.setFillColor(colors.black)
        for index, label in enumerate(col_labels):
            canv.drawCentredString(margin + (index + 0.5) * size, top + size * 0.25, label)
        for index, label in enumerate(row_labels):
            canv.drawCentredString(margin * 0.45, top - (index + 0.5) * size - size * 0.13, label)
        canv.setLineWidth(0.4)
        for row in range(SIZE):
            for col in range(SIZE):
                self._square(
                    margin + col * size, top - (row + 1) * size, STANDARD[row][col], self.rows[row][col]
                )
        canv.setLineWidth(1.2)
        canv.setStrokeColor(colors.black)
        canv.rect(margin, top - SIZE * size, SIZE * size, SIZE * size, fill=0, stroke=1)

    def _square(self, x: float, y: float, premium: str, tile: str) -> None:
        canv, size = self.canv, self.square
        canv.setStrokeColor(colors.Color(0.6, 0.6, 0.6))
        if tile == ".":
            canv.setFillColor(PREMIUM_FILL.get(premium, colors.white))
            canv.rect(x, y, size, size, fill=1, stroke=1)
            if premium in PREMIUM_TEXT:
                canv.setFillColor(colors.Color(0.3, 0.3, 0.3))
                canv.setFont(SANS, size * 0.26)
                canv.drawCentredString(x + size / 2, y + size * 0.38, str(PREMIUM_TEXT[premium]))
            return
        blank = tile.islower()
        canv.setFillColor(BLANK_FILL if blank else TILE_FILL)
        canv.rect(x, y, size, size, fill=1, stroke=1)
        canv.setFillColor(colors.black)
        label = self.tiles.label(tile.upper())  # the tile's label: CH in one square, never its storage character
        canv.setFont(SANS_BOLD, size * (0.55 if len(label) == 1 else 0.55 * 1.6 / (len(label) + 0.6)))
        canv.drawCentredString(x + size * 0.46, y + size * 0.27, label)
        if blank:
            # A blank is circled, as on a paper slip.
            canv.setStrokeColor(colors.black)
            canv.setLineWidth(0.7)
            canv.circle(x + size * 0.47, y + size * 0.47, size * 0.38, fill=0, stroke=1)
            canv.setLineWidth(0.4)
            return
        canv.setFont(SANS, size * 0.24)
        canv.drawRightString(x + size * 0.95, y + size * 0.08, str(self.tiles.value(tile)))
