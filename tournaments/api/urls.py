from django.urls import path

from tournaments.api import views

urlpatterns = [
    path("auth/token", views.AuthTokenView.as_view(), name="api-auth-token"),
    path("tournaments", views.TournamentsView.as_view(), name="api-tournaments"),
    path("tournaments/<int:tournament_id>/games", views.TournamentGamesView.as_view(), name="api-tournament-games"),
    path(
        "tournaments/<int:tournament_id>/standings",
        views.TournamentStandingsView.as_view(),
        name="api-tournament-standings",
    ),
    path("join", views.JoinView.as_view(), name="api-join"),
    path("games/<int:game_id>", views.GameView.as_view(), name="api-game"),
    path("games/<int:game_id>/players", views.GamePlayersView.as_view(), name="api-game-players"),
    path("games/<int:game_id>/standings", views.GameStandingsView.as_view(), name="api-game-standings"),
    path("games/<int:game_id>/progress", views.GameProgressView.as_view(), name="api-game-progress"),
    path("games/<int:game_id>/live", views.GameLiveView.as_view(), name="api-game-live"),
    path("games/<int:game_id>/me", views.GameMeView.as_view(), name="api-game-me"),
    path("games/<int:game_id>/end", views.GameEndView.as_view(), name="api-game-end"),
    path("games/<int:game_id>/rounds", views.RoundsView.as_view(), name="api-rounds"),
    path("games/<int:game_id>/rejections", views.RackRejectView.as_view(), name="api-rack-reject"),
    path("games/<int:game_id>/rounds/<int:number>", views.RoundView.as_view(), name="api-round"),
    path("games/<int:game_id>/rounds/<int:number>/start", views.RoundStartView.as_view(), name="api-round-start"),
    path("games/<int:game_id>/rounds/<int:number>/close", views.RoundCloseView.as_view(), name="api-round-close"),
    path("games/<int:game_id>/rounds/<int:number>/master", views.RoundMasterView.as_view(), name="api-round-master"),
    path("games/<int:game_id>/rounds/<int:number>/slips", views.SlipsView.as_view(), name="api-round-slips"),
    path(
        "games/<int:game_id>/rounds/<int:number>/slips/<int:slip_id>/correct",
        views.SlipCorrectView.as_view(),
        name="api-slip-correct",
    ),
    path(
        "games/<int:game_id>/rounds/<int:number>/late/<int:late_id>/admit",
        views.LateAdmitView.as_view(),
        name="api-late-admit",
    ),
]
