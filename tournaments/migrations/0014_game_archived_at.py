from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0013_record_import_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="archived_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
