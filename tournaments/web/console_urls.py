from django.contrib.auth import views as auth_views
from django.urls import path

from tournaments.web.console import game, pages, players, results, slips, tokens
from tournaments.web.forms import ArbitratorLoginForm

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="registration/login.html", authentication_form=ArbitratorLoginForm),
        name="console-login",
    ),
    path("logout/", auth_views.LogoutView.as_view(next_page="console-login"), name="console-logout"),
    path("", pages.home, name="console-home"),
    path("tournaments/new/", pages.tournament_create, name="console-tournament-create"),
    path("tournaments/<int:tournament_id>/", pages.tournament_page, name="console-tournament"),
    path("tournaments/<int:tournament_id>/games/new/", pages.game_create, name="console-game-create"),
    path("lexicons/import/", pages.lexicon_import, name="console-lexicon-import"),
    path("tokens/", tokens.api_tokens_page, name="console-api-tokens"),
    path("tokens/revoke-all/", tokens.api_tokens_revoke_all, name="console-api-tokens-revoke-all"),
    path("tokens/<str:token_id>/revoke/", tokens.api_token_revoke, name="console-api-token-revoke"),
    path("games/<int:game_id>/", game.game_page, name="console-game"),
    path("games/<int:game_id>/live/", game.game_panel, name="console-game-live"),
    path("games/<int:game_id>/draw/", game.round_draw, name="console-draw"),
    path("games/<int:game_id>/reject/", game.rack_reject, name="console-rack-reject"),
    path("games/<int:game_id>/end/", game.game_end, name="console-game-end"),
    path("games/<int:game_id>/rounds/<int:number>/start/", game.round_start, name="console-round-start"),
    path("games/<int:game_id>/rounds/<int:number>/close/", game.round_close, name="console-round-close"),
    path("games/<int:game_id>/rounds/<int:number>/master/", game.round_master, name="console-round-master"),
    path("games/<int:game_id>/rounds/", results.rounds_page, name="console-rounds"),
    path("games/<int:game_id>/rounds/<int:number>/", results.round_page, name="console-round"),
    path("games/<int:game_id>/standings/", results.standings_page, name="console-standings"),
    path("games/<int:game_id>/players/", players.players_page, name="console-players"),
    path("games/<int:game_id>/projector-link/", players.projector_link_renew, name="console-projector-link-renew"),
    path("games/<int:game_id>/players/new/", players.player_register, name="console-player-register"),
    path("games/<int:game_id>/players/list/", players.player_register_list, name="console-player-register-list"),
    path("games/<int:game_id>/players/<int:player_id>/", players.player_sheet, name="console-player"),
    path("games/<int:game_id>/players/<int:player_id>/phone/", players.player_phone_link,
         name="console-player-phone-link"),
    path("games/<int:game_id>/slips/", slips.slips_page, name="console-slips"),
    path("games/<int:game_id>/slips/enter/", slips.slip_enter, name="console-slip-enter"),
    path("games/<int:game_id>/slips/<int:slip_id>/correct/", slips.slip_correct, name="console-slip-correct"),
    path("games/<int:game_id>/rounds/<int:number>/players/<int:player_id>/slip/", slips.slip_add,
         name="console-slip-add"),
    path("games/<int:game_id>/rounds/<int:number>/late/<int:late_id>/admit/", slips.late_admit,
         name="console-late-admit"),
]
