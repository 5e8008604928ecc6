"""Arbitrators' API tokens moved from DRF's authtoken (the token itself in the table) to django-rest-knox
(a digest, with an expiry). The old table, whose rows are usable keys, goes: arbitrators ask for new tokens."""

from django.db import migrations
from django.db.migrations.recorder import MigrationRecorder


def forget_plain_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if "authtoken_token" in connection.introspection.table_names():
        schema_editor.execute("DROP TABLE authtoken_token")
    MigrationRecorder(connection).migration_qs.filter(app="authtoken").delete()
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Permission.objects.filter(content_type__app_label="authtoken").delete()
    ContentType.objects.filter(app_label="authtoken").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0007_game_screen_key"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(forget_plain_tokens, migrations.RunPython.noop)]
