"""The demo set-up printed by ``manage.py rundemo``: an arbitrator login and a game ready to play."""

from django.contrib.auth import get_user_model

DEMO_USERNAME = "arbitre"
DEMO_PASSWORD = "duplicate"


def create_demo() -> list[str]:
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    return [f"Demo arbitrator: username {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r}"]
