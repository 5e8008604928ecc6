from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from arbiter.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("tournaments.urls")),
]

handler400 = "tournaments.api.exceptions.handler400"
handler404 = "tournaments.api.exceptions.handler404"
handler500 = "tournaments.api.exceptions.handler500"
