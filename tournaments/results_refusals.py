"""The texts of the results files' refusals (tournaments/results_files.py), merged into tournaments/refusals.py's
TEXTS."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

TEXTS = {
    "bad_results": _("this file is not a centre's results file"),
    ("bad_results", "json"): _("this file is not a centre's results file: it is not JSON"),
    ("bad_results", "format"): _("this file is not a centre's results file, or a part of it is missing"),
    ("bad_results", "version"): _("this results file was made by another version: this installation reads "
                                  "version %(version)s"),
    ("bad_results", "rounds"): _("the results of %(name)s name a round twice or a round the game does not have"),
    "results_altered": _("the results file was changed after the centre signed it: ask the centre for the file "
                         "again"),
    "results_forged": _("the results file of centre %(centre)s is signed by another key than the centre's "
                        "(fingerprint %(fingerprint)s): it is refused"),
    "results_unknown_centre": _("no centre %(centre)s is registered for this event: register its key first"),
    "results_wrong_event": _("this results file is of another event (%(event)s)"),
    ("results_wrong_event", "pack"): _("this results file is of another pack than the event's game %(game)s"),
    ("results_wrong_event", "game"): _("this event has no game %(game)s"),
    "results_replayed": _("this results file was already accepted (%(sha256)s…)"),
    "results_outdated": _("this results file is version %(sequence)s: version %(held)s is already held"),
    "results_totals": _("the results of %(name)s do not add up: the file says %(total)s, its rounds %(sum)s"),
}
