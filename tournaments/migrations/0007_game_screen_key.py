import secrets

from django.db import migrations, models

import tournaments.models


def give_keys(apps, schema_editor):
    Game = apps.get_model("tournaments", "Game")
    for game in Game.objects.filter(screen_key__isnull=True).only("pk"):
        Game.objects.filter(pk=game.pk).update(screen_key=secrets.token_urlsafe(16))


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0006_slip_several")]

    operations = [
        migrations.AddField(
            model_name="game", name="screen_key", field=models.CharField(max_length=32, null=True, editable=False)
        ),
        migrations.RunPython(give_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="game",
            name="screen_key",
            field=models.CharField(
                max_length=32, unique=True, default=tournaments.models.new_screen_key, editable=False
            ),
        ),
    ]
