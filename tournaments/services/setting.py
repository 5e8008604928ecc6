"""What a game plays with, as the services see it: tournaments/setting.py (below the services and the readers,
which both import it) holds the setting, the plays as stored rows and the judgement of a slip."""

from tournaments.setting import (
    Setting,
    judge,
    placement,
    play_from_dict,
    play_to_dict,
    setting_of,
    sorted_letters,
    tiles_left,
)

__all__ = ["judge", "placement", "play_from_dict", "play_to_dict", "Setting", "setting_of", "sorted_letters", "tiles_left"]
