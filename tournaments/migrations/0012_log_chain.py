"""The arbitration log chained by hash (tournaments/logchain.py), and closed to TRUNCATE on PostgreSQL.

Entries already written get their place in their game's chain here, in the order they were written (by
id). The append-only trigger refuses UPDATE, so on PostgreSQL it is disabled for that one fill, inside this
migration's transaction, and enabled again before the transaction ends: no other session ever sees the
table without it. Then a second trigger refuses TRUNCATE, and any role other than the table's owner loses
UPDATE, DELETE and TRUNCATE on the log (the application's role of docker/README.md keeps SELECT and
INSERT).
"""

import django.utils.timezone
from django.db import migrations, models

from tournaments import logchain

TRUNCATE_TRIGGER = """
CREATE TRIGGER tournaments_logentry_no_truncate
    BEFORE TRUNCATE ON tournaments_logentry
    FOR EACH STATEMENT EXECUTE FUNCTION tournaments_logentry_append_only();
"""

REVOKE_FROM_OTHERS = """
DO $$
DECLARE grantee_name text;
BEGIN
    REVOKE UPDATE, DELETE, TRUNCATE ON tournaments_logentry FROM PUBLIC;
    FOR grantee_name IN
        SELECT DISTINCT a.grantee::regrole::text
        FROM pg_class c, aclexplode(c.relacl) a
        WHERE c.oid = 'tournaments_logentry'::regclass AND a.grantee <> 0 AND a.grantee <> c.relowner
          AND a.privilege_type IN ('UPDATE', 'DELETE', 'TRUNCATE')
    LOOP
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON tournaments_logentry FROM %s', grantee_name);
    END LOOP;
END
$$;
"""


def chain_existing(apps, schema_editor):
    LogEntry = apps.get_model("tournaments", "LogEntry")
    postgres = schema_editor.connection.vendor == "postgresql"
    if postgres:  # deferred foreign key checks still queued would stop ALTER TABLE: run them now
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        schema_editor.execute(
            "ALTER TABLE tournaments_logentry DISABLE TRIGGER tournaments_logentry_append_only"
        )
    last: dict[int, tuple[int, str]] = {}
    for entry in LogEntry.objects.order_by("id").iterator(chunk_size=2000):
        seq, prev = last.get(entry.game_id, (0, logchain.GENESIS))
        entry.seq, entry.prev_hash = seq + 1, prev
        entry.hash = logchain.hash_of(entry)
        LogEntry.objects.filter(pk=entry.pk).update(seq=entry.seq, prev_hash=entry.prev_hash, hash=entry.hash)
        last[entry.game_id] = (entry.seq, entry.hash)
    if postgres:
        schema_editor.execute(
            "ALTER TABLE tournaments_logentry ENABLE TRIGGER tournaments_logentry_append_only"
        )


def close_truncate(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRUNCATE_TRIGGER)
        schema_editor.execute(REVOKE_FROM_OTHERS, params=None)  # its %s is format()'s


def open_truncate(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP TRIGGER IF EXISTS tournaments_logentry_no_truncate ON tournaments_logentry")


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0011_record_seal_origin_imports"),
    ]

    operations = [
        migrations.AddField(
            model_name="logentry",
            name="hash",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="logentry",
            name="prev_hash",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="logentry",
            name="seq",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AlterField(
            model_name="logentry",
            name="at",
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False),
        ),
        migrations.RunPython(chain_existing, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="logentry",
            constraint=models.UniqueConstraint(fields=("game", "seq"), name="logentry_one_per_seq"),
        ),
        migrations.RunPython(close_truncate, open_truncate),
    ]
