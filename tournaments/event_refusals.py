"""The texts of the organiser's refusals in a simultaneous event (tournaments/events.py), merged into
tournaments/refusals.py's TEXTS."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

TEXTS = {
    ("head_only", "event"): _("only an organiser of this event may do this"),
    ("not_found", "event"): _("no event %(event)s"),
    ("not_found", "centre"): _("no centre %(centre)s in this event"),
    ("not_found", "event_game"): _("no game %(game)s in this event"),
    "bad_event_name": _("an event's name has 1 to %(max)s characters"),
    "bad_centre_code": _("a centre's id has 1 to %(max)s characters: letters, digits, dashes, dots or underscores"),
    "bad_centre_name": _("a centre's name has at most %(max)s characters"),
    "centre_twice": _("the event already has a centre %(centre)s"),
    "bad_centre_key": _("this is not a centre's public key: the 43 characters its installation shows"),
    "event_pack_other": _("this pack is of another event (%(event)s)"),
    "event_game_twice": _("the event already has a game %(game)s"),
    "event_game_locked": _("game %(game)s of the event is still locked: give its key first"),
    "event_game_unlocked": _("game %(game)s of the event is already unlocked"),
    "centre_key_unconfirmed": _("the key of centre %(centre)s (fingerprint %(fingerprint)s) is not accepted yet: "
                                "the organiser checks it with the centre by phone and accepts it, then the file is "
                                "sent again"),
    "centre_fingerprint": _("this is not the fingerprint of the key centre %(centre)s signed with"),
    ("centre_fingerprint", "none"): _("centre %(centre)s has sent no file yet: there is no key to accept"),
    ("centre_fingerprint", "known"): _("the key of centre %(centre)s is already registered"),
    "results_other_centre": _("this results file is of centre %(centre)s: send it with that centre's token"),
    "results_too_large": _("the file is too large for a results file (at most %(max)s bytes)"),
    "bad_standings_scope": _("standings are split by centre, series or category (not %(scope)s)"),
    "multiplex_none": _("no game of this event is opened to its centres yet"),
    "multiplex_game_over": _("game %(game)s is over: a multiplex is opened before or during the game"),
    "bad_relay_query": _("the relay's %(name)s is a number (after: the last item applied; wait: seconds)"),
    "relay_none": _("no organiser is set for this centre (ORGANISER_URL, ORGANISER_EVENT, ORGANISER_TOKEN)"),
    "relay_unreachable": _("the organiser did not answer: %(detail)s"),
    "relay_refused": _("the organiser refused: %(detail)s"),
}
