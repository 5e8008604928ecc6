"""An installed arbiter (`arbiter run` outside a checkout): production settings (DEBUG off), the data in the
user's data folder unless DATA_DIR is set (arbiter/places.py), a secret key made once there, and the static
files served from the package by WhiteNoise (no collectstatic)."""

import os
import secrets
from pathlib import Path

from arbiter import places


def _secret_key(folder: Path) -> str:
    """DATA_DIR/secret.key, made on the first run (readable by its owner only on POSIX; on Windows the
    data folder's access list protects it: docs/operations.md, "Windows")."""
    path = folder / "secret.key"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / ".secret.key.partial"
        with open(partial, "w", encoding="ascii") as f:
            f.write(secrets.token_urlsafe(48))
        os.chmod(partial, 0o600)
        os.replace(partial, path)
    return path.read_text(encoding="ascii").strip()


if not os.environ.get("SECRET_KEY"):
    os.environ["SECRET_KEY"] = _secret_key(Path(os.environ.get("DATA_DIR") or places.default_data_dir()))

from arbiter.settings.base import *  # noqa: E402,F401,F403

WHITENOISE_USE_FINDERS = True
STATIC_ROOT = None
