from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0014_game_archived_at'),
    ]

    operations = [
        migrations.AddField(
            model_name='lateslip',
            name='sent_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
