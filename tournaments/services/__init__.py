"""Functions that change the state of an event (keyword-only, typed), raising tournaments.errors.ServiceError.

Views, pages and tasks call these and nothing else to change a tournament, a game or a round.
"""

from .clock import game_close_if_due, round_close_if_due, round_start, rounds_close_overdue
from .close import game_end, judge, round_choose_master, round_close
from .draw import rack_reject, round_compute_tops, round_draw
from .incidents import round_cancel, round_extend, round_fix_rack, round_pause, round_resume
from .paper import player_table_change, round_slips_complete
from .roles import arbitrator_set
from .schedule import schedule_import
from .setup import (
    game_create,
    game_screen_key_renew,
    hash_token,
    lexicon_import,
    player_join,
    player_register,
    player_token_reissue,
    tournament_create,
)
from .slips import (
    late_slip_admit,
    paper_player,
    result_override,
    slip_add,
    slip_correct,
    slip_enter_late,
    slip_enter_paper,
    slip_submit,
)

__all__ = [
    "arbitrator_set",
    "round_cancel",
    "round_extend",
    "round_fix_rack",
    "round_pause",
    "round_resume",
    "game_close_if_due",
    "game_create",
    "game_end",
    "game_screen_key_renew",
    "hash_token",
    "judge",
    "late_slip_admit",
    "lexicon_import",
    "player_join",
    "player_register",
    "player_table_change",
    "player_token_reissue",
    "result_override",
    "round_choose_master",
    "round_close",
    "round_close_if_due",
    "round_compute_tops",
    "rack_reject",
    "round_draw",
    "round_slips_complete",
    "round_start",
    "rounds_close_overdue",
    "schedule_import",
    "slip_add",
    "slip_correct",
    "slip_enter_late",
    "slip_enter_paper",
    "paper_player",
    "slip_submit",
    "tournament_create",
]
