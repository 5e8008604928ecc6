"""The creator of a tournament is its head: a tournament with no role recorded in any of its games, whose
creator is still an active staff arbitrator, gets them recorded as head of each of its games (what creating a
game does from now on). A tournament with no creator known keeps every staff arbitrator as head until a role
is recorded (tournaments/services/roles.py)."""

from django.conf import settings
from django.db import migrations


def creator_is_head(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Game = apps.get_model("tournaments", "Game")
    GameArbitrator = apps.get_model("tournaments", "GameArbitrator")
    headless = (Tournament.objects.filter(created_by__isnull=False, created_by__is_staff=True,
                                          created_by__is_active=True)
                .exclude(pk__in=GameArbitrator.objects.values("game__tournament_id")))
    for tournament in headless.iterator():
        GameArbitrator.objects.bulk_create([
            GameArbitrator(game_id=game_id, user_id=tournament.created_by_id, role="head")
            for game_id in Game.objects.filter(tournament_id=tournament.pk).values_list("pk", flat=True)
        ])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0027_chain_rows_and_heads"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(creator_is_head, migrations.RunPython.noop)]
