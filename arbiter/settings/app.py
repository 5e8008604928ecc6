"""The safe settings, the default (arbiter/settings/__init__.py): the installed `arbiter` command, and any
entry point without DJANGO_SETTINGS_MODULE. DEBUG off, the data in the user's data folder (var/ in a
checkout) unless DATA_DIR is set (arbiter/places.py), a secret key made once there, and the static files
served from the package by WhiteNoise (no collectstatic)."""

from arbiter.settings import keep_secret_key

keep_secret_key()

from arbiter.settings.base import *  # noqa: E402,F401,F403

WHITENOISE_USE_FINDERS = True
STATIC_ROOT = None
