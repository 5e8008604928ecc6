"""On PostgreSQL, the database itself refuses UPDATE and DELETE on the arbitration log."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION tournaments_logentry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the arbitration log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER tournaments_logentry_append_only
    BEFORE UPDATE OR DELETE ON tournaments_logentry
    FOR EACH ROW EXECUTE FUNCTION tournaments_logentry_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS tournaments_logentry_append_only ON tournaments_logentry;
DROP FUNCTION IF EXISTS tournaments_logentry_append_only();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
