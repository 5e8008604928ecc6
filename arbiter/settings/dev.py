"""Local development: DEBUG on unless the environment says otherwise."""

import os

os.environ.setdefault("DEBUG", "1")

from arbiter.settings.base import *  # noqa: E402,F401,F403
