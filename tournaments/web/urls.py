from django.urls import include, path

from tournaments.web import guide, public, review, training, views

urlpatterns = [
    path("", views.home, name="home"),
    path("console/", include("tournaments.web.console_urls")),
    # The club arbitrator's guide (docs/club-evening.md) and its pictures.
    path("help/", guide.guide_page, name="help"),
    path("help/img/club-evening/<str:name>", guide.guide_picture, name="help-picture"),
    path("join", views.join_page, name="join"),
    path("join/<str:code>", views.join_page, name="join-code"),
    path("games/<int:game_id>/play", views.phone_page, name="phone"),
    # The projector shows the join code: it is reached only through the key the console gives out.
    path("projector/<str:key>", views.projector_page, name="projector"),
    path("projector/<str:key>/standings", views.projector_standings, name="projector-standings"),
    # Public results: reached only through the key the console gives out once a head turns the link on.
    path("results/<str:key>/", public.results_page, name="public-results"),
    path("results/<str:key>/games/<int:number>/", public.game_page, name="public-results-game"),
    path("games/<int:game_id>/live", views.game_live, name="game-live"),
    path("games/<int:game_id>/events", views.game_events, name="game-events"),
    path("games/<int:game_id>/mine", views.player_feed, name="game-mine"),
    path("games/<int:game_id>/review", review.review_page, name="game-review"),
    path("games/<int:game_id>/review.json", review.review_data, name="game-review-data"),
    path("games/<int:game_id>/train", training.training_page, name="training"),
    path("games/<int:game_id>/train/rounds", training.TrainingRoundsView.as_view(), name="training-rounds"),
    path("games/<int:game_id>/train/judge", training.TrainingJudgeView.as_view(), name="training-judge"),
    path("games/<int:game_id>/train/start", training.TrainingStartView.as_view(), name="training-start"),
    path("games/<int:game_id>/train/result", training.TrainingResultView.as_view(), name="training-result"),
    path("games/<int:game_id>/train/result/<str:token>", training.training_result_page, name="training-result-page"),
]
