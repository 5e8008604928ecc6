"""Sheets and exports, mounted under /api/ by tournaments/urls.py."""

from django.urls import path

from . import solutions_view, views

urlpatterns = [
    path("games/<int:game_id>/sheets/solutions.pdf", solutions_view.GameSolutionsPdfView.as_view(),
         name="sheet-game-solutions"),
    path(
        "games/<int:game_id>/sheets/standings.pdf",
        views.GameStandingsPdfView.as_view(),
        name="sheet-game-standings",
    ),
    path(
        "games/<int:game_id>/sheets/record.pdf", views.GameRecordPdfView.as_view(), name="sheet-game-record"
    ),
    path(
        "games/<int:game_id>/sheets/scoresheets.pdf",
        views.GameScoresheetsPdfView.as_view(),
        name="sheet-game-scoresheets",
    ),
    path(
        "games/<int:game_id>/players/<int:player_id>/scoresheet.pdf",
        views.PlayerScoresheetPdfView.as_view(),
        name="sheet-player-scoresheet",
    ),
    path(
        "tournaments/<int:tournament_id>/sheets/standings.pdf",
        views.TournamentStandingsPdfView.as_view(),
        name="sheet-tournament-standings",
    ),
    path(
        "games/<int:game_id>/exports/standings.csv",
        views.StandingsCsvView.as_view(),
        name="export-standings-csv",
    ),
    path("games/<int:game_id>/exports/results.txt", views.ResultsFileView.as_view(), name="export-results"),
    path("games/<int:game_id>/exports/record.json", views.RecordJsonView.as_view(), name="export-record"),
    path(
        "tournaments/<int:tournament_id>/imports/record",
        views.RecordImportView.as_view(),
        name="import-record",
    ),
    path("imports/<uuid:job_id>", views.RecordImportJobView.as_view(), name="import-record-job"),
]
