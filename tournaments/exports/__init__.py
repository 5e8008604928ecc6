"""Files a game leaves behind: the standings as CSV, the federation's results file, and the complete game
record as JSON (which ``restore`` plays back into a tournament)."""

from .federation import results_file, to_latin1
from .record import RECORD_FORMAT, RECORD_VERSION, export_record
from .restore import restore_record
from .standings import standings_csv

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "export_record",
    "restore_record",
    "results_file",
    "standings_csv",
    "to_latin1",
]
