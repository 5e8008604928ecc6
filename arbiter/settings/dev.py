"""A checkout's development settings, named to opt in (manage.py, `make run`): DEBUG on unless the
environment turns it off, as the launcher does for a server that listens beyond loopback
(arbiter/settings/__init__.py). DEBUG off, they run as the safe settings do: the secret key made once in
DATA_DIR/secret.key, never the development key."""

import os

from arbiter import env
from arbiter.settings import keep_secret_key

os.environ.setdefault("DEBUG", "1")
if not env.get_bool("DEBUG"):
    keep_secret_key()

from arbiter.settings.base import *  # noqa: E402,F401,F403

if not DEBUG:  # noqa: F405
    # As the safe settings: the static files found where they are (no collectstatic).
    WHITENOISE_USE_FINDERS = True
    STATIC_ROOT = None
