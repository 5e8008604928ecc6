"""The settings modules, and the one place that chooses among them (``choose``).

- ``arbiter.settings.app``: the safe settings, the default everywhere (the installed ``arbiter`` command,
  ``arbiter.asgi``/``arbiter.wsgi`` served without DJANGO_SETTINGS_MODULE, a worker started by hand): DEBUG
  off, the secret key made once in DATA_DIR/secret.key (readable by its owner only);
- ``arbiter.settings.dev``: a checkout's development settings (DEBUG on), opted in by naming them:
  ``manage.py`` and ``make run`` do;
- ``arbiter.settings.test``: the test suite's (pytest's configuration names them);
- ``arbiter.settings.base``: production behind a proxy (docker/Dockerfile names them; SECRET_KEY required).

Importing a module of the project chooses nothing: the entry points call ``choose`` (arbiter/app.py,
arbiter/asgi.py, arbiter/wsgi.py, manage.py, and the Celery app when its configuration is first read).
A server that listens beyond loopback never runs with DEBUG on (``choose(host=...)``, the launcher).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path

SAFE = "arbiter.settings.app"
DEVELOPMENT = "arbiter.settings.dev"
ENV_NAME = "DJANGO_SETTINGS_MODULE"


def loopback(host: str) -> bool:
    """True when ``host`` (an address to listen on) lets this computer alone connect."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def choose(*, development: bool = False, host: str | None = None, environ=os.environ) -> str:
    """The settings module of this process, set in its environment (the processes it starts inherit it) and
    returned: DJANGO_SETTINGS_MODULE when the environment names one, else the development settings when the
    caller opts in (``development``: manage.py), else the safe settings.

    ``host``: the address a server of this process will listen on. Beyond loopback DEBUG is set off in the
    environment, whatever the settings' default or the environment said: the development settings then run
    as the safe ones do (arbiter/settings/dev.py). Returns the module's name."""
    module = environ.setdefault(ENV_NAME, DEVELOPMENT if development else SAFE)
    if host is not None and not loopback(host):
        environ["DEBUG"] = "0"
    return module


def keep_secret_key(environ=os.environ) -> None:
    """SECRET_KEY as the environment gives it, else the key made once in the data folder (DATA_DIR/secret.key,
    readable by its owner only on POSIX; on Windows the data folder's access list protects it: docs/operations.md, "Windows"; kept from one run to the next) put in the environment, where the settings read
    it and the processes this one starts (the launcher's worker) find it. Never a constant."""
    if environ.get("SECRET_KEY"):
        return
    from arbiter import places

    folder = Path(environ.get("DATA_DIR") or places.default_data_dir())
    path = folder / "secret.key"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / ".secret.key.partial"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as f:
            f.write(secrets.token_urlsafe(48))
        os.chmod(partial, 0o600)
        os.replace(partial, path)
    environ["SECRET_KEY"] = path.read_text(encoding="ascii").strip()
