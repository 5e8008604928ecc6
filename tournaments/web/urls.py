from django.urls import include, path

urlpatterns = [
    path("console/", include("tournaments.web.console_urls")),
]
