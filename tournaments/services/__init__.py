"""Functions that change the state of an event (keyword-only, typed), raising tournaments.errors.ServiceError.

Views, pages and tasks call these and nothing else to change a tournament, a game or a round; what the
callers outside need besides (the roles and their checks, a game's setting, the log, a slip as read) is
named here too, so that no caller reaches into the package's modules.
"""

from .clock import game_close_if_due, round_close_if_due, round_start, rounds_close_overdue
from .close import game_end, judge, round_choose_master, round_close
from .draw import rack_reject, round_compute_tops, round_draw
from .incidents import (
    max_extend_seconds,
    refuse_if_paused,
    round_cancel,
    round_extend,
    round_fix_rack,
    round_pause,
    round_resume,
)
from .licensees import LicenseesImported, LicenseesRefused, licensees_import, read_licensees
from .lifecycle import (
    CHANGEABLE_AFTER_START,
    game_archive,
    game_deletable,
    game_delete,
    tournament_delete,
    tournament_started,
    tournament_update,
)
from .logbook import log
from .paper import player_table_change, round_slips_complete
from .roles import (
    ASSISTANT,
    HEAD,
    NO_ROLE,
    ROLES,
    act_as,
    arbitrator_set,
    arbitrators,
    require_arbitrator,
    require_head,
    require_tournament_arbitrator,
    require_tournament_head,
    role_of,
    tournament_role,
)
from .schedule import schedule_import
from .setting import Setting, setting_of
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
    StaleSlip,
    late_slip_admit,
    paper_player,
    result_override,
    slip_add,
    slip_correct,
    slip_enter_late,
    slip_enter_paper,
    slip_submit,
    slip_text,
)
from .training import (
    TRAINING_CHOICES,
    training_judge,
    training_result,
    training_set,
    training_start,
    training_trainee,
)

__all__ = [
    "CHANGEABLE_AFTER_START",
    "game_archive",
    "game_delete",
    "game_deletable",
    "tournament_delete",
    "tournament_started",
    "tournament_update",
    "act_as",
    "arbitrator_set",
    "arbitrators",
    "ASSISTANT",
    "game_close_if_due",
    "game_create",
    "game_end",
    "game_screen_key_renew",
    "hash_token",
    "HEAD",
    "judge",
    "late_slip_admit",
    "lexicon_import",
    "log",
    "max_extend_seconds",
    "NO_ROLE",
    "paper_player",
    "player_join",
    "player_register",
    "licensees_import",
    "read_licensees",
    "LicenseesImported",
    "LicenseesRefused",
    "player_table_change",
    "player_token_reissue",
    "rack_reject",
    "refuse_if_paused",
    "require_arbitrator",
    "require_head",
    "require_tournament_arbitrator",
    "require_tournament_head",
    "result_override",
    "role_of",
    "ROLES",
    "round_cancel",
    "round_choose_master",
    "round_close",
    "round_close_if_due",
    "round_compute_tops",
    "round_draw",
    "round_extend",
    "round_fix_rack",
    "round_pause",
    "round_resume",
    "round_slips_complete",
    "round_start",
    "rounds_close_overdue",
    "schedule_import",
    "Setting",
    "setting_of",
    "slip_add",
    "slip_correct",
    "slip_enter_late",
    "slip_enter_paper",
    "slip_submit",
    "slip_text",
    "StaleSlip",
    "tournament_create",
    "training_judge",
    "training_result",
    "training_set",
    "training_start",
    "training_trainee",
    "TRAINING_CHOICES",
    "tournament_role",
]
