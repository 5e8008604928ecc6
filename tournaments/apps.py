from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tournaments import security  # revokes API tokens on user changes (its receivers)

        security.connect_login_limits()
