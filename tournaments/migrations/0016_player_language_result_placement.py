from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0015_lateslip_sent_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="language",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
        migrations.AddField(
            model_name="result",
            name="placement",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
    ]
