"""Every refusal in the reader's language, from its code and parameters.

The services and the engine refuse with a machine ``code`` and ``params`` (the letters, numbers or names at
fault; ``why`` where one code covers several cases). The pages and the API say the refusal from those,
never by reading the English ``message``: that stays the text of record, for the log and API clients that
do not ask for a language.
"""

from __future__ import annotations

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from engine.refusals import TEXTS as ENGINE_TEXTS
from engine.refusals import text_key
from tournaments.pack_refusals import TEXTS as PACK_TEXTS
# (code, why) first, then (code, "+param") for a refusal that carries that param, then code alone. A text names only params that every refusal of its key carries.
TEXTS = {
    # The state of the game and its round.
    "round_open": _("A round is still in play: close it first."),
    "round_closed": _("The round is closed: no slip can be handed in or changed."),
    "round_not_open": _("The round has not started yet: start the clock first."),
    "round_not_closed": _("The master move is chosen once the round is closed."),
    ("round_not_closed", "late"): _("A late slip is entered or admitted once the round is closed."),
    ("round_not_closed", "open"): _("While the round is open the slip is handed in as usual."),
    "round_not_drawn": _("This is done before the clock starts."),
    "round_changed": _("The round on this page is no longer the current one: reload."),
    "master_locked": _("The next round has been drawn: the master move can no longer change."),
    "not_a_top": _("%(word)s %(ref)s is not one of the tied tops."),
    "game_over": _("The game is over."),
    "too_soon": _("Players are still reading the results: the next rack can be drawn in %(seconds)s s."),
    "paused": _("The clock is paused: no slip can be handed in until it restarts."),
    "not_paused": _("The clock is not paused."),
    "deadline_passed": _("The round's deadline has passed."),
    "bad_seconds": _("Give a number of seconds."),
    "same_rack": _("This is already the round's rack."),
    # The engine's refusals (engine/refusals.py: racks, grid references, words), its English translated.
    **{key: _(text) for key, text in ENGINE_TEXTS.items()},
    # Pre-drawn games and sealed packs (tournaments/packs.py).
    **PACK_TEXTS,
    # Racks.
    "bad_letters": _("A rack is letters A-Z and ? (a blank) only."),
    ("wrong_size", "too_long"): _("The rack is too long."),
    "rack_valid": _("This rack obeys the vowel/consonant rule: draw it as the round's rack."),
    # Slips.
    "bad_received_at": _("The time the slip was handed in must be a time of day (20:15) on the console, an ISO 8601 "
                         "time with its zone in the API."),
    ("bad_received_at", "shape"): _("The time the slip was handed in must be a time of day (20:15) on the console, "
                                    "an ISO 8601 time with its zone in the API."),
    ("bad_received_at", "future"): _("The slip cannot have been handed in at %(time)s: that is in the future."),
    ("bad_received_at", "before_start"): _("The slip cannot have been handed in at %(time)s: the round started at "
                                           "%(started)s."),
    "bad_word": _("The word must be letters."),
    "bad_ref": _("A reference is one letter and one number, e.g. H4 or 4H."),
    "off_board": _("This reference is off the board."),
    "bad_score": _("A score is a whole number from 0 to %(max)s."),
    "bad_key": _("A slip needs a key of 1 to %(max)s characters."),
    "bad_seq": _("The slip's order number is a whole number from 0 to %(max)s."),
    "bad_sent_ms": _("The slip's send time is a whole number of milliseconds from 0 to %(max)s."),
    "key_reused": _("This entry was already sent with other content: type it again."),
    "stale_slip": _("A newer slip of this player is already held."),
    "slip_replaced": _("This slip was replaced: correct the one that counts."),
    "slip_exists": _("The player has a slip in this round: correct it instead."),
    "already_admitted": _("This late slip was already admitted."),
    "not_your_slip": _("This slip is not yours."),
    "player_required": _("Name the player of the paper slip by table or by name."),
    "unknown_table": _("No player sits at table %(table)s."),
    "shared_table": _("Several players sit at table %(table)s: correct the tables."),
    "second_slip": _("Table %(table)s already holds %(slip)s. Is this a typing correction that replaces it, "
                     "or a second slip, paid 0?"),
    "reason_required": _("A correction needs a reason."),
    "reason_too_long": _("The reason is too long."),
    "bad_outcome": _("The outcome is OK, warning, penalty or zero (a zero pays nothing)."),
    # Players and tables.
    "unknown_player": _("This player does not play this game."),
    "unknown_join_code": _("No game has this join code."),
    "name_required": _("A name is needed."),
    ("name_required", "invisible"): _("A name needs at least one visible character."),
    "name_too_long": _("A name has at most %(max)s characters."),
    "series_too_long": _("A series has at most %(max)s characters."),
    "bad_table": _("A table number is a whole number from 1 to %(max)s."),
    "table_taken": _("Table %(table)s is taken: choose another table."),
    ("table_taken", "+name"): _("%(name)s already sits at table %(table)s: choose another table."),
    "no_free_table": _("No table is free."),
    # Tournaments, games, lexicons.
    "unknown_lexicon": _("The lexicon %(lexicon)s is not available."),
    "unknown_tileset": _("Unknown tile set %(tileset)s."),
    "bad_rules": _("These rules cannot be used: %(detail)s"),
    "bad_coordinates": _("The grid coordinates must be one of %(choices)s."),
    "bad_round_seconds": _("A round lasts 1 to %(max)s seconds."),
    "bad_language": _("The language must be English or French."),
    "bad_seed": _("The seed must be a 64-bit integer."),
    "join_code_exhausted": _("No free join code could be found: try again."),
    "bad_lexicon_name": _("A lexicon name has 1 to %(max)s characters."),
    "lexicon_builtin": _("This name belongs to a built-in lexicon: choose another."),
    "lexicon_in_use": _("A tournament plays with the word list %(name)s: import the new list under another name."),
    "bad_lexicon": _("This word list cannot be imported: %(detail)s"),
    "no_players": _("This game has no players yet."),
    "bad_record": _("This game record cannot be restored."),
    "bad_seal": _("This game record was changed after it was sealed: it cannot be restored."),
    ("bad_seed", "record"): _("A game record's seed is a whole number from 0 to %(max)s."),
    "import_not_found": _("No such record import."),
    "settings_mismatch": _("The tournament's settings differ from the record's: %(settings)s."),
    "not_found": _("Not found."),
    # Training on a past game.
    "training_not_open": _("This game is not open for training."),
    "training_no_round": _("This game has no round %(round)s to train on."),
    "training_bad_proof": _("A verdict was not given by this server."),
    "training_unfinished": _("Every round must be played first (rounds %(rounds)s)."),
    "training_bad_link": _("This result link is not valid."),
    "training_not_counted": _("Only the first verdict of a round counts: round(s) %(rounds)s hold only "
                              "practice tries."),
    "training_other_trainee": _("These verdicts are of different trainings: the first verdicts of one "
                                "training count."),
    "invalid_training": _("Training is one of %(choices)s."),
    # A player's review of a game (tournaments/review_selectors.py).
    "review_not_authenticated": _("Open this page on the phone you played with, or from the arbitrator's "
                                  "console."),
    "not_a_player": _("This phone's player does not play this game."),
    "review_other_player": _("A player can read only their own review."),
    "review_player_needed": _("Choose the player whose review is shown."),
    "review_bad_player": _("%(player)s is not a player's number."),
    "review_unknown_player": _("Player %(player)s does not play this game."),
    "review_nothing_yet": _("Nothing to review yet: a round can be reviewed once the next rack is drawn, or at the "
                            "end of the game."),
    "review_bad_round": _("%(round)s is not a round number."),
    "review_no_round": _("This game has no round %(round)s."),
    "review_round_not_over": _("Round %(round)s can be reviewed once the next rack is drawn, or at the end of the "
                               "game."),
    # Arbitrators.
    "not_arbitrator": _("Only an arbitrator may do this."),
    "not_game_arbitrator": _("Only this game's head or assistant arbitrator may do this."),
    "head_only": _("Only the game's head arbitrator may do this."),
    ("head_only", "tournament"): _("Only a head arbitrator of this tournament may do this."),
    ("not_game_arbitrator", "tournament"): _("Only an arbitrator of this tournament may do this."),
    "last_head": _("A game keeps at least one head arbitrator."),
    "unknown_arbitrator": _("No such arbitrator."),
    "bad_role": _("The role is head or assistant."),
    "bad_credentials": _("Unknown username or wrong password."),
    "locked_out": _("Too many failed attempts: try again later."),
    # Requests.
    "invalid": _("The request is not valid."),
    "malformed": _("The body is not valid JSON."),
    "too_large": _("The request is too large."),
    "too_deep": _("The request is nested too deeply."),
}


def refusal_text(code: str, params: dict | None = None, default: str = "") -> str:
    """The refusal ``code`` with its ``params`` in the active language; ``default`` (the service's own
    message) when the code has no text here or its text names a parameter the refusal does not carry."""
    params = params or {}
    key = text_key(TEXTS, code, params)
    if key is None:
        return default or code
    template = TEXTS[key]
    shown = {key: ("—" if value in ("", None) and key == "rack" else value) for key, value in params.items()}
    try:
        return str(template) % shown
    except (KeyError, TypeError, ValueError):
        return default or str(template).split("%(")[0].rstrip(" :") or code


def error_text(error, default: str | None = None) -> str:
    """A ServiceError (or an engine error with ``code`` and ``params``) in the active language."""
    return refusal_text(error.code, getattr(error, "params", None),
                        error.message if default is None else default)


def api_message(error) -> str:
    """The API's ``message``: the service's own English text, or the refusal in the language the request
    asked for (Accept-Language) when that is not English."""
    language = (get_language() or "en").split("-")[0]
    if language == "en":
        return error.message
    return error_text(error)
