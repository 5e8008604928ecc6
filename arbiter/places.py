"""Where the service's files are, in a checkout or installed as a package (``pipx install .``, a wheel).

A checkout (``manage.py`` beside the packages) keeps its templates, static files and catalogues at the
top (``templates/``, ``static/``, ``locale/``) and its data in ``var/``. An installed arbiter finds the same
files inside the package, ``arbiter/bundle/`` (pyproject.toml maps them there when the wheel is built), and
keeps its data in the user's data folder: ``%LOCALAPPDATA%\\duplicate-arbiter`` on Windows,
``~/Library/Application Support/duplicate-arbiter`` on macOS, ``~/.local/share/duplicate-arbiter`` on Linux.
``DATA_DIR`` in the environment overrides either.
"""

from __future__ import annotations

from pathlib import Path

APP_NAME = "duplicate-arbiter"
PACKAGE_DIR = Path(__file__).resolve().parent
CHECKOUT_DIR = PACKAGE_DIR.parent


def in_checkout() -> bool:
    """True when this code runs from a checkout of the repository (not from an installed package)."""
    return (CHECKOUT_DIR / "manage.py").is_file() and (CHECKOUT_DIR / "templates").is_dir()


def assets_dir() -> Path:
    """The folder holding ``templates/``, ``static/`` and ``locale/``."""
    return CHECKOUT_DIR if in_checkout() else PACKAGE_DIR / "bundle"


def default_data_dir() -> Path:
    """Where the data goes when DATA_DIR is not set."""
    if in_checkout():
        return CHECKOUT_DIR / "var"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def lan_command(public_url: str = "") -> str:
    """The command that serves the club's phones, as this arbiter's user types it: ``make run HOST=0.0.0.0``
    in a checkout, ``arbiter run --lan`` installed; ``public_url``: with the address phones open."""
    if in_checkout():
        return "make run HOST=0.0.0.0" + (f" PUBLIC_URL={public_url}" if public_url else "")
    return "arbiter run --lan" + (f" --public-url {public_url}" if public_url else "")
