"""Test settings: the same as production but fast hashing, and loud about missing services.

With REQUIRE_SERVICES=1 (set by CI), the suite refuses to run unless DATABASE_URL points at PostgreSQL
and REDIS_URL at Redis, so a silent fallback to the embedded default cannot hide.
"""

import os

from arbiter import env
from arbiter.settings import keep_secret_key

os.environ.setdefault("DEBUG", "1")
# DEBUG off (a launcher's server beyond loopback, arbiter/settings/__init__.py): the key kept in DATA_DIR.
if not env.get_bool("DEBUG"):
    keep_secret_key()

from arbiter.settings.base import *  # noqa: E402,F401,F403
from arbiter.settings.base import BROKER, DATABASES  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests draw the next rack right after a close; the pause between rounds has its own tests.
ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
REQUIRE_SERVICES = env.get_bool("REQUIRE_SERVICES", default=False)
if REQUIRE_SERVICES:
    if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        raise env.SettingError("DATABASE_URL", os.environ.get("DATABASE_URL", ""), "a postgres:// URL in CI")
    if not BROKER.redis_url:
        raise env.SettingError("REDIS_URL", os.environ.get("REDIS_URL", ""), "a redis:// URL in CI")

# Tests run in parallel (pytest -n) share one Redis: each test process, and the workers it starts (they
# inherit PYTEST_XDIST_WORKER), queue and consume tasks on a queue of their own, so that a worker started
# for one process's database never takes another's tasks.
if os.environ.get("PYTEST_XDIST_WORKER"):
    CELERY_TASK_DEFAULT_QUEUE = f"celery-{os.environ['PYTEST_XDIST_WORKER']}"

# The embedded default's test database is a file, not SQLite's shared in-memory database: there a page's
# reads and a write at the same moment (the paper-slip page refreshes its list while the next slip is sent)
# fail at once with "database table is locked", where a file waits its turn as `make run`'s database does.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    import tempfile

    DATABASES["default"].setdefault("TEST", {})["NAME"] = os.path.join(
        tempfile.gettempdir(), f"arbiter-test-{os.getpid()}.sqlite3")
