"""Reading settings from the environment, refusing bad values with a clear message.

Every setting the service reads from the environment goes through this module, so that the list of
variables (``ENV_VARIABLES``) is the single place a deployment file can be checked against.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

ENV_VARIABLES = (
    "DATABASE_URL",
    "REDIS_URL",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "TIME_ZONE",
    "DATA_DIR",
    "LEXICON_CACHE_DIR",
    "REQUIRE_SERVICES",
    "DB_POOL_MIN_SIZE",
    "DB_POOL_MAX_SIZE",
    "DB_POOL_TIMEOUT",
    "PUBLIC_URL",
    "TRUSTED_PROXIES",
    "REQUESTS_IN_FLIGHT",
    "HTTPS",
    "API_TOKEN_HOURS",
    "LOGIN_FAILURE_LIMIT",
    "LOGIN_COOLOFF_MINUTES",
    "LOGIN_LOCKOUT_BY",
    "DJANGO_SETTINGS_MODULE",
)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class SettingError(Exception):
    """A setting in the environment has a value the service cannot use."""

    def __init__(self, name: str, value: str, expected: str):
        super().__init__(f"Environment variable {name}={value!r} is not valid: expected {expected}.")


def get_str(name: str, default: str = "", environ=os.environ) -> str:
    return environ.get(name, default)


def get_bool(name: str, default: bool = False, environ=os.environ) -> bool:
    raw = environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingError(name, raw, "one of 1/0, true/false, yes/no, on/off")


def get_sqlite_synchronous(name: str, environ=os.environ) -> str:
    """SQLite's ``synchronous`` for the embedded database: FULL (the default: a commit is on the disk before
    its answer, so a power cut loses no receipt) or NORMAL (faster; a crashed process loses nothing, a power
    cut may lose the last commits)."""
    raw = environ.get(name, "FULL")
    value = raw.strip().upper()
    if value not in ("FULL", "NORMAL"):
        raise SettingError(name, raw, "FULL or NORMAL")
    return value


def get_list(name: str, default: list[str], environ=os.environ) -> list[str]:
    raw = environ.get(name)
    if raw is None:
        return list(default)
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not items:
        raise SettingError(name, raw, "a comma-separated list with at least one item")
    return items


def get_int(name: str, default: int, minimum: int = 0, environ=os.environ) -> int:
    raw = environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingError(name, raw, f"a whole number of at least {minimum}") from None
    if value < minimum:
        raise SettingError(name, raw, f"a whole number of at least {minimum}")
    return value


def get_seconds(name: str, default: float, environ=os.environ, zero: bool = False) -> float:
    """A number of seconds above 0 (``zero``: or 0, which turns what it times off)."""
    raw = environ.get(name)
    if raw is None or not raw.strip():
        return default
    expected = "a number of seconds, 0 or more" if zero else "a number of seconds above 0"
    try:
        value = float(raw.strip())
    except ValueError:
        raise SettingError(name, raw, expected) from None
    if not (value >= 0 if zero else value > 0) or value == float("inf"):
        raise SettingError(name, raw, expected)
    return value


def get_public_url(name: str, environ=os.environ) -> str:
    """The address phones use to reach this server (``http://192.168.1.20:8000``), '' when not set."""
    raw = (environ.get(name) or "").strip().rstrip("/")
    if not raw:
        return ""
    url = urlparse(raw)
    if url.scheme not in ("http", "https") or not url.hostname or url.path or url.query:
        raise SettingError(name, raw, "a base address such as http://192.168.1.20:8000")
    try:
        _ = url.port
    except ValueError:
        raise SettingError(name, raw, "a numeric port") from None
    return raw


def get_time_zone(name: str, default: str, environ=os.environ) -> str:
    import zoneinfo

    value = environ.get(name, default)
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise SettingError(name, value, "an IANA time zone such as Europe/Paris or UTC") from None
    return value


LOCKOUT_KEYS = {"account": "username", "address": "ip_address"}


def get_lockout_parameters(name: str, default: str, environ=os.environ) -> list:
    """What failed logins are counted against (django-axes' ``AXES_LOCKOUT_PARAMETERS``), from a
    comma-separated list of ``account``, ``address`` and ``account+address``: ``account,address`` locks an
    account after too many failures from anywhere, and an address after too many failures on any accounts;
    ``account+address`` counts each pair on its own."""
    raw = environ.get(name)
    text = default if raw is None or not raw.strip() else raw
    expected = "a comma-separated list of account, address, account+address (e.g. account,address)"
    parameters: list = []
    for item in (part.strip() for part in text.split(",")):
        keys = [key.strip() for key in item.split("+")]
        if not item or any(key not in LOCKOUT_KEYS for key in keys) or len(set(keys)) != len(keys):
            raise SettingError(name, text, expected)
        fields = [LOCKOUT_KEYS[key] for key in keys]
        parameter = fields[0] if len(fields) == 1 else fields
        if parameter not in parameters:
            parameters.append(parameter)
    return parameters


def get_secret_key(name: str, debug: bool, environ=os.environ) -> str:
    value = environ.get(name)
    if value is None:
        if debug:
            return "insecure-development-key-only-for-local-use"
        raise SettingError(name, "", "a secret key (required when DEBUG is off)")
    if len(value) < 32:
        raise SettingError(name, "<hidden>", "at least 32 characters")
    return value


def database_from_url(name: str, default_sqlite: Path, environ=os.environ, pool: dict | None = None) -> dict:
    """A Django DATABASES entry from ``postgres://user:pass@host:port/db`` or ``sqlite:///path``.

    PostgreSQL connections come from a bounded pool per process (psycopg's, through Django), returned at
    the end of each request (CONN_MAX_AGE 0, as Django asks under ASGI): DB_POOL_MIN_SIZE (default 2)
    kept open, at most DB_POOL_MAX_SIZE (default 10); a request finding every connection busy waits up
    to DB_POOL_TIMEOUT seconds (default 10), then gets 503 with Retry-After, never a 500.
    """
    raw = environ.get(name)
    if not raw:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(default_sqlite)}
    url = urlparse(raw)
    if url.scheme in ("postgres", "postgresql"):
        db_name = unquote(url.path.lstrip("/"))
        if not db_name:
            raise SettingError(name, raw, "a database name, e.g. postgres://user@host:5432/arbiter")
        try:
            port = url.port
        except ValueError:
            raise SettingError(name, raw, "a numeric port") from None
        options = {key: values[-1] for key, values in parse_qs(url.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": db_name,
            "USER": unquote(url.username or ""),
            "PASSWORD": unquote(url.password or ""),
            "HOST": url.hostname or "",
            "PORT": str(port or ""),
            "CONN_MAX_AGE": 0,
            "OPTIONS": {**options, "pool": pool or pool_options(2, 10, 10.0)},
        }
    if url.scheme == "sqlite":
        # sqlite:///relative/path or sqlite:////absolute/path, as SQLAlchemy spells them.
        path = raw[len("sqlite:///"):] if raw.startswith("sqlite:///") else ""
        if not path.strip("/"):
            raise SettingError(name, raw, "a file path, e.g. sqlite:////var/lib/arbiter/db.sqlite3")
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": path}
    raise SettingError(name, raw, "a postgres:// or sqlite:/// URL")


def pool_options(min_size: int, max_size: int, timeout: float) -> dict:
    """psycopg pool options (DB_POOL_MIN_SIZE, DB_POOL_MAX_SIZE, DB_POOL_TIMEOUT), checked together."""
    if min_size > max_size:
        raise SettingError("DB_POOL_MIN_SIZE", str(min_size), f"at most DB_POOL_MAX_SIZE ({max_size})")
    return {"min_size": min_size, "max_size": max_size, "timeout": timeout}


@dataclass(frozen=True)
class Broker:
    """Where Celery messages go: Redis when REDIS_URL is set, else a folder on disk."""

    url: str
    transport_options: dict
    redis_url: str | None


def broker_from_env(name: str, data_dir: Path, environ=os.environ) -> Broker:
    raw = environ.get(name)
    if not raw:
        queue = data_dir / "broker"
        return Broker(
            url="arbiterfs://",  # kombu's filesystem transport, messages written whole (arbiter.broker)
            transport_options={
                "data_folder_in": str(queue / "out"),
                "data_folder_out": str(queue / "out"),
                "processed_folder": str(queue / "processed"),
                "control_folder": str(queue / "control"),
                "store_processed": False,
            },
            redis_url=None,
        )
    url = urlparse(raw)
    if url.scheme not in ("redis", "rediss") or not url.hostname:
        raise SettingError(name, raw, "a redis://host:port/db URL")
    try:
        _ = url.port
    except ValueError:
        raise SettingError(name, raw, "a numeric port") from None
    return Broker(url=raw, transport_options={"visibility_timeout": 3600, "socket_connect_timeout": 1.0,
                                              "socket_timeout": 5.0}, redis_url=raw)
