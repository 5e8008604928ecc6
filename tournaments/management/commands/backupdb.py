"""Copy the embedded database (SQLite) to DATA_DIR/backups/ now, with SQLite's online backup API: safe while
the arbiter runs. The newest ARBITER_BACKUPS_KEPT copies are kept (arbiter/backups.py). The worker makes
one after every closed round too. On PostgreSQL: pg_dump (docker/README.md)."""

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Copy the embedded database to DATA_DIR/backups/ (safe while the arbiter runs); prints the copy's path."

    def handle(self, *args, **options):
        from arbiter.backups import BackupError, backup, backups

        try:
            path = backup()
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"backed up to {path} ({path.stat().st_size:,} bytes; {len(backups())} kept)")
