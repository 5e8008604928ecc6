"""Every refusal in the reader's language, from its code and parameters.

The services and the engine refuse with a machine ``code`` and ``params`` (the letters, numbers or names at
fault; ``why`` where one code covers several cases). The pages and the API say the refusal from those,
never by reading the English ``message``: that stays the text of record, for the log and API clients that
do not ask for a language.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from engine.refusals import TEXTS as ENGINE_TEXTS
from engine.refusals import text_key
from tournaments.event_refusals import TEXTS as EVENT_TEXTS
from tournaments.licensee_refusals import TEXTS as LICENSEE_TEXTS
from tournaments.pack_refusals import TEXTS as PACK_TEXTS
from tournaments.results_refusals import TEXTS as RESULTS_TEXTS

# (code, why) first, then (code, "+param") for a refusal that carries that param, then code alone. A text names only params that every refusal of its key carries.
TEXTS = {
    # The state of the game and its round.
    "round_open": _("a round is still in play: close it first"),
    ("round_open", "already_open"): _("the round is already open"),
    ("round_open", "end"): _("a round is still open: close it first"),
    "round_closed": _("the round is closed"),
    ("round_closed", "slip"): _("the round is closed: no slip can be handed in or changed"),
    ("round_closed", "cancel"): _("only a drawn or open round can be cancelled"),
    "round_not_open": _("the round has not started yet"),
    "top_found": _("you found the top in %(seconds)s s: no more tries in this round"),
    "round_not_closed": _("the master is chosen once the round is closed"),
    ("round_not_closed", "complete"): _("a round's slips are marked complete once it is closed"),
    ("round_not_closed", "late"): _("a late slip is admitted once the round is closed"),
    ("round_not_closed", "late_paper"): _("a late paper slip is entered once the round is closed"),
    ("round_not_closed", "open"): _("while the round is open the slip is handed in as usual"),
    "round_not_drawn": _("the rack can be replaced only before the clock starts"),
    "round_changed": _("The round on this page is no longer the current one: reload."),
    "master_locked": _("the next round has been drawn: the master can no longer change"),
    "not_a_top": _("%(word)s %(ref)s is not one of the tied tops"),
    "game_over": _("the game is over"),
    "too_soon": _("the next rack can be drawn in %(seconds)s s: at least %(pause)s s after a round closes"),
    "paused": _("the clock is paused: hand the slip in once it runs again"),
    ("paused", "resume"): _("the clock is paused: resume it first"),
    ("paused", "already"): _("the clock is already paused"),
    "not_paused": _("the clock is not paused"),
    "deadline_passed": _("the deadline has passed: the round closes"),
    "bad_seconds": _("a round is extended by a whole number of seconds from 1 to %(max)s"),
    "same_rack": _("%(rack)s is the rack already drawn"),
    # The engine's refusals (engine/refusals.py: racks, grid references, words), its English translated.
    **{key: _(text) for key, text in ENGINE_TEXTS.items()},
    # Pre-drawn games and sealed packs (tournaments/packs.py).
    **PACK_TEXTS,
    # A player's federation identity and a centre's file of licensees (tournaments/federation.py).
    **LICENSEE_TEXTS,
    # Results files of a simultaneous event (tournaments/results_files.py).
    **RESULTS_TEXTS,
    # The organiser of a simultaneous event (tournaments/events.py).
    **EVENT_TEXTS,
    # Racks.
    "bad_letters": _("the rack must be letters"),
    ("bad_letters", "rejected"): _("type the rejected rack's letters"),
    ("bad_letters", "required"): _("type the rack's letters"),
    ("wrong_size", "too_long"): _("the rack is too long"),
    "rack_valid": _("%(rack)s obeys the vowel/consonant rule: draw it as the round's rack"),
    # Slips.
    "bad_received_at": _("The time the slip was handed in must be a time of day (20:15) on the console, an ISO 8601 "
                         "time with its zone in the API."),
    ("bad_received_at", "shape"): _("the time the slip was handed in must be a time with its zone"),
    ("bad_received_at", "time_of_day"): _("%(text)s is not a time of day (20:15 or 20:15:30)"),
    ("bad_received_at", "future"): _("the slip cannot have been handed in at %(time)s: that is in the "
                                     "future"),
    ("bad_received_at", "before_start"): _("the slip cannot have been handed in at %(time)s: the round "
                                           "started at %(started)s"),
    "bad_word": _("the word must be text"),
    "bad_ref": _("the reference must be text"),
    "off_board": _("This reference is off the board."),
    "bad_score": _("a score is a whole number from 0 to %(max)s"),
    "bad_key": _("a slip needs a key of 1 to %(max)s characters"),
    "bad_seq": _("seq is a whole number from 0 to %(max)s"),
    "bad_sent_ms": _("sent_ms is a whole number of milliseconds from 0 to %(max)s"),
    "key_reused": _("this key was used for another slip"),
    "stale_slip": _("a newer slip is already held (%(slip)s): this older one does not replace it"),
    "slip_replaced": _("this slip was replaced: correct the one that counts"),
    "slip_exists": _("the player has a slip in this round: correct it instead"),
    "already_admitted": _("this late slip was already admitted"),
    "not_your_slip": _("A player hands in their own slip only."),
    "player_required": _("Name the player of the paper slip by \"player\" or \"table\"."),
    "unknown_table": _("no player at table %(table)s in this game"),
    "shared_table": _("several players sit at table %(table)s: correct the tables"),
    "second_slip": _("Table %(table)s already holds %(slip)s. Is this a typing correction that replaces it, "
                     "or a second slip, paid 0?"),
    "reason_required": _("a correction needs a reason"),
    ("reason_required", "incident"): _("say why: the reason is kept in the log and the game record"),
    ("reason_required", "admit"): _("admitting a late slip needs a reason"),
    ("reason_required", "added"): _("an added slip needs a reason"),
    ("reason_required", "ruling"): _("a ruling needs a reason"),
    "reason_too_long": _("a reason has at most %(max)s characters"),
    "bad_outcome": _("the outcome is one of %(choices)s"),
    ("bad_outcome", "zero"): _("an outcome zero pays nothing"),
    # Players and tables.
    "unknown_player": _("this player does not play this game"),
    ("unknown_player", "in_game"): _("no such player in this game"),
    ("unknown_player", "none"): _("no such player"),
    ("unknown_player", "player_game"): _("%(name)s is playing game %(number)s: their phone link, table and "
                                         "details are changed on that game's pages"),
    ("unknown_player", "+player"): _("no player %(player)s in this game"),
    "unknown_join_code": _("no game has this join code"),
    "game_archived": _("this game is archived: it takes no new player"),
    "name_required": _("a name is needed"),
    ("name_required", "invisible"): _("a name needs at least one visible character (invisible and control "
                                      "characters are removed)"),
    "name_too_long": _("a name has at most %(max)s characters"),
    "series_too_long": _("a series has at most %(max)s characters"),
    "bad_table": _("a table number is a whole number from 1 to %(max)s"),
    ("bad_table", "below_one"): _("a table number is 1 or more"),
    ("bad_table", "not_a_number"): _("a table number is a whole number"),
    "table_taken": _("table %(table)s is taken: choose another, or none to get the next free one"),
    ("table_taken", "+name"): _("%(name)s already sits at table %(table)s"),
    "no_free_table": _("every table up to %(max)s is taken: ask the arbitrator for one"),
    # Tournaments, games, lexicons.
    "unknown_setting": _("a tournament has no setting %(setting)s"),
    "tournament_started": _("a game of this tournament has started: only its name can change now, not "
                            "%(settings)s"),
    "game_has_log": _("game %(game)s has entries in its log (players, rounds or roles): it cannot be deleted, "
                      "archive it instead"),
    ("game_has_log", "tournament"): _("game %(game)s of this tournament has entries in its log (players, rounds "
                                      "or roles): the tournament cannot be deleted, archive its games instead"),
    ("round_open", "archive"): _("a round is still in play: close it before archiving the game"),
    ("invalid", "archived"): _("archived is true or false"),
    "unknown_lexicon": _("the lexicon %(lexicon)r is not available"),
    ("unknown_lexicon", "unnamed"): _("the lexicon must be named"),
    ("unknown_lexicon", "unknown"): _("unknown lexicon %(lexicon)r"),
    "unknown_tileset": _("unknown tile set %(tileset)r"),
    "tileset_mismatch": _("%(share)s of the words of %(lexicon)s (%(unwritable)s of %(words)s, e.g. %(example)s) cannot be written "
                          "with the %(tileset)s tiles; at most %(allowed)s may be: choose the tile set the list was made for (%(own)s)"),
    "bad_rules": _("These rules cannot be used: %(detail)s"),
    "bad_coordinates": _("coordinates must be one of %(choices)s"),
    "bad_round_seconds": _("a round lasts 1 to %(max)s seconds"),
    "bad_language": _("language must be one of %(choices)s"),
    "bad_variant": _("%(variant)r is not a variant; the variants: %(choices)s"),
    "bad_timing": _("%(timing)r is not a timing; the timings: %(choices)s"),
    "bad_seed": _("the seed must be a 64-bit integer"),
    "join_code_exhausted": _("no free join code could be found"),
    "bad_lexicon_name": _("a lexicon name has 1 to %(max)s characters"),
    "lexicon_builtin": _("%(name)r is a built-in lexicon"),
    "lexicon_in_use": _("a tournament plays with the word list %(name)r: import the new list under another "
                        "name"),
    "bad_lexicon": _("This word list cannot be imported: %(detail)s"),
    "no_players": _("this game has no players yet"),
    "bad_record": _("This game record cannot be restored."),
    "bad_seal": _("the record's seal does not match its content: it was changed after it was sealed, or the "
                  "seal is damaged (%(detail)s)"),
    ("bad_seed", "record"): _("a game record's seed is a whole number from 0 to %(max)s"),
    "import_not_found": _("no record import %(job)s"),
    "settings_mismatch": _("the tournament's settings differ from the record's: %(settings)s"),
    "not_found": _("Not found."),
    ("not_found", "game"): _("no game %(game)s"),
    ("not_found", "no_round"): _("no such round"),
    ("not_found", "round"): _("no round %(round)s in game %(game)s"),
    ("not_found", "tournament"): _("no tournament %(tournament)s"),
    ("not_found", "late_slip"): _("no late slip %(late)s in round %(round)s"),
    ("not_found", "slip"): _("no slip %(slip)s in round %(round)s"),
    ("not_found", "player"): _("no player %(player)s in game %(game)s"),
    # Training on a past game.
    "training_not_open": _("no game %(game)s open for training"),
    "training_no_round": _("no round %(round)s in this game"),
    "training_bad_proof": _("a verdict was not given by this server"),
    ("training_bad_proof", "other_game"): _("a verdict is of another game"),
    "training_unfinished": _("every round must be played before the result"),
    "training_bad_link": _("this result link was not given by this server"),
    ("training_bad_link", "other_game"): _("this result link is of another game"),
    "training_not_counted": _("only the first verdict of a round counts"),
    "training_other_trainee": _("these verdicts are of different trainings"),
    "training_not_started": _("topping: start round %(round)s before handing in a try"),
    "invalid_training": _("training is one of %(choices)s"),
    # A player's review of a game (tournaments/review_selectors.py).
    "review_not_authenticated": _("a player token of this game, or an arbitrator of it, is needed"),
    ("review_not_authenticated", "bad_token"): _("this player token is not valid"),
    "not_a_player": _("this token's player does not play this game"),
    "review_other_player": _("a player reads only their own review"),
    "review_player_needed": _("name the player whose review is shown (?player=<id>)"),
    "review_bad_player": _("%(player)r is not a player's number"),
    "review_unknown_player": _("player %(player)s does not play this game"),
    "review_nothing_yet": _("no round of this game can be reviewed yet: a round is open to review once the "
                            "next rack is drawn, or the game is over"),
    "review_bad_round": _("%(round)r is not a round number"),
    "review_no_round": _("this game has no round %(round)s"),
    "review_round_not_over": _("round %(round)s can be reviewed once the next rack is drawn or the game is "
                               "over"),
    # Arbitrators.
    "not_arbitrator": _("Only an arbitrator may do this."),
    ("not_arbitrator", "api_token"): _("Only arbitrators (staff users) get an API token."),
    "not_game_arbitrator": _("you have no arbitrator's role in this game"),
    "head_only": _("only the game's head arbitrator may do this"),
    ("head_only", "tournament"): _("only a head arbitrator of this tournament may do this"),
    ("head_only", "trusted_keys"): _("only a head arbitrator or an event's organiser may stop trusting an organiser"),
    ("not_game_arbitrator", "tournament"): _("you have no arbitrator's role in this tournament"),
    "last_head": _("a game needs a head arbitrator: name another head first"),
    "unknown_arbitrator": _("no arbitrator %(user)r"),
    "bad_role": _("the role is one of %(choices)s"),
    "bad_credentials": _("Unknown username or wrong password."),
    "locked_out": _("Too many failed attempts: try again later."),
    # Requests.
    "invalid": _("The request is not valid."),
    ("invalid", "not_object"): _("The body must be a JSON object."),
    ("invalid", "receipt"): _("This is not a slip's receipt."),
    ("invalid", "no_key"): _("A slip needs a key."),
    ("invalid", "received_at"): _("received_at is given only with late: true, by an arbitrator (a paper "
                                  "slip handed in after the end call)."),
    "malformed": _("The body is not valid JSON."),
    ("malformed", "body"): _("the body is not valid JSON: %(detail)s"),
    ("malformed", "file"): _("the file is not valid JSON: %(detail)s"),
    "too_large": _("The request is too large."),
    ("too_large", "record"): _("a game record is at most %(max)s bytes"),
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


def english_text(code: str, params: dict | None = None) -> str:
    """The refusal ``code`` with its ``params`` in English: a ServiceError's ``message``, the API's words."""
    with translation.override("en"):
        return refusal_text(code, params)


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
