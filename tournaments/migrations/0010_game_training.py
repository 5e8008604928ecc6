from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0009_incidents_language_roles"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="training",
            field=models.CharField(
                choices=[
                    ("closed", "Closed to training"),
                    ("everyone", "Open to everyone"),
                    ("members", "Open to club members"),
                ],
                default="closed",
                max_length=10,
            ),
        ),
    ]
