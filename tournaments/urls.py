from django.urls import include, path

urlpatterns = [
    path("api/", include("tournaments.api.urls")),
    path("api/", include("tournaments.sheets.urls")),
    path("", include("tournaments.web.urls")),
]
