"""GET /api/games/{id}/sheets/solutions.pdf: the solutions sheet, like the other sheets (arbitrators only)."""

from __future__ import annotations

from .solutions import render_solutions
from .solutions_source import solutions_sheet
from .views import ArbitratorFileView, _file_schema, _game, _pdf


class GameSolutionsPdfView(ArbitratorFileView):
    @_file_schema(
        "game_solutions_pdf",
        "application/pdf",
        "The solutions of the closed rounds: per round the rack, the master, the other tops and the next best "
        "plays, how many players found the top and the solo (a game in play: provisional)",
    )
    def get(self, request, game_id: int):
        game = _game(game_id)
        return _pdf(render_solutions(solutions_sheet(game)), f"solutions-game-{game.pk}.pdf")
