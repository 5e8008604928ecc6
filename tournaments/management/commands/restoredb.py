"""Bring back a copy of the embedded database (one of DATA_DIR/backups/, or any file ``backupdb`` made).

The file is checked first (SQLite's integrity_check, this project's migrations, none newer than this code)
and nothing is changed when it fails. The arbiter must be stopped: the command refuses while a web server
or a worker runs on the data folder (arbiter/running.py). The database it replaces is backed up first, so a
restore loses nothing either; the migrations made since the copy are then applied and the cache cleared. The
signing key the copy carries is brought back with it (the receipts sealed before read this_server).
On PostgreSQL: pg_restore (docker/README.md)."""

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = ("Restore the embedded database from FILE (a backupdb copy) after checking it; the arbiter must be "
            "stopped. The database replaced is backed up first.")

    def add_arguments(self, parser):
        parser.add_argument("file", help="the copy to bring back, e.g. DATA_DIR/backups/arbiter-....sqlite3")

    def handle(self, *args, file, **options):
        from django.core.cache import cache
        from django.core.management import call_command

        from arbiter.backups import BackupError, restore

        try:
            before, key = restore(file)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        call_command("migrate", interactive=False, verbosity=0)
        cache.clear()
        if key is not None:
            self.stdout.write(key)
        if before is not None:
            self.stdout.write(f"the database replaced is kept in {before}")
        self.stdout.write(self.style.SUCCESS(f"restored from {file}"))
