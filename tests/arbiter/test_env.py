"""Settings read from the environment: embedded defaults, URLs parsed, bad values refused loudly."""

from pathlib import Path

import pytest

from arbiter import env


def test_unset_database_url_gives_the_embedded_sqlite_file(tmp_path):
    db = env.database_from_url("DATABASE_URL", default_sqlite=tmp_path / "a.sqlite3", environ={})
    assert db == {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "a.sqlite3")}


def test_postgres_url_is_split_into_django_fields():
    db = env.database_from_url(
        "DATABASE_URL",
        default_sqlite=Path("unused"),
        environ={"DATABASE_URL": "postgres://arb:s%40cret@db.example:6543/club?sslmode=require"},
    )
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "club", "arb", "s@cret", "db.example", "6543"
    )
    assert db["OPTIONS"] == {"sslmode": "require", "pool": {"min_size": 2, "max_size": 10, "timeout": 10.0}}
    assert db["CONN_MAX_AGE"] == 0  # connections go back to the pool after each request (ASGI)


def _pool(environ: dict) -> dict:
    return env.pool_options(
        min_size=env.get_int("DB_POOL_MIN_SIZE", 2, environ=environ),
        max_size=env.get_int("DB_POOL_MAX_SIZE", 10, minimum=1, environ=environ),
        timeout=env.get_seconds("DB_POOL_TIMEOUT", 10.0, environ=environ),
    )


def test_pool_size_and_wait_come_from_the_environment():
    pool = _pool({"DB_POOL_MIN_SIZE": "4", "DB_POOL_MAX_SIZE": "20", "DB_POOL_TIMEOUT": "2.5"})
    assert pool == {"min_size": 4, "max_size": 20, "timeout": 2.5}
    db = env.database_from_url("DATABASE_URL", Path("x"), environ={"DATABASE_URL": "postgres://h/db"}, pool=pool)
    assert db["OPTIONS"]["pool"] == pool


@pytest.mark.parametrize(
    "environ",
    [{"DB_POOL_MAX_SIZE": "0"}, {"DB_POOL_MAX_SIZE": "ten"}, {"DB_POOL_MIN_SIZE": "30", "DB_POOL_MAX_SIZE": "20"},
     {"DB_POOL_TIMEOUT": "0"}, {"DB_POOL_TIMEOUT": "soon"}],
)
def test_bad_pool_settings_are_refused_with_their_name(environ):
    with pytest.raises(env.SettingError, match="DB_POOL_"):
        _pool(environ)


@pytest.mark.parametrize("value", ["http://192.168.1.20:8000", "https://arbiter.club.example/"])
def test_public_url_is_a_base_address(value):
    assert env.get_public_url("PUBLIC_URL", environ={"PUBLIC_URL": value}) == value.rstrip("/")


@pytest.mark.parametrize("value", ["192.168.1.20:8000", "ftp://x", "http://host/path", "http://host:port"])
def test_bad_public_url_is_refused(value):
    with pytest.raises(env.SettingError, match="PUBLIC_URL"):
        env.get_public_url("PUBLIC_URL", environ={"PUBLIC_URL": value})


def test_sqlite_url_with_absolute_path():
    db = env.database_from_url("DATABASE_URL", Path("x"), environ={"DATABASE_URL": "sqlite:////srv/a.db"})
    assert db["NAME"] == "/srv/a.db"


@pytest.mark.parametrize(
    "value",
    ["mysql://root@localhost/x", "postgres://host:notaport/db", "postgres://host:5432/", "sqlite:///", "nonsense"],
)
def test_bad_database_url_is_refused_with_its_name(value):
    with pytest.raises(env.SettingError, match="DATABASE_URL"):
        env.database_from_url("DATABASE_URL", Path("x"), environ={"DATABASE_URL": value})


def test_unset_redis_url_uses_the_filesystem_broker(tmp_path):
    broker = env.broker_from_env("REDIS_URL", data_dir=tmp_path, environ={})
    assert broker.url == "arbiterfs://"
    assert broker.redis_url is None
    assert broker.transport_options["data_folder_in"].startswith(str(tmp_path))


@pytest.mark.parametrize("value", ["http://localhost:6379", "redis://", "redis://host:port/0"])
def test_bad_redis_url_is_refused(value, tmp_path):
    with pytest.raises(env.SettingError, match="REDIS_URL"):
        env.broker_from_env("REDIS_URL", data_dir=tmp_path, environ={"REDIS_URL": value})


@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("TRUE", True), ("off", False), ("0", False)])
def test_booleans(raw, expected):
    assert env.get_bool("DEBUG", environ={"DEBUG": raw}) is expected


def test_bad_boolean_is_refused():
    with pytest.raises(env.SettingError, match="DEBUG='maybe'"):
        env.get_bool("DEBUG", environ={"DEBUG": "maybe"})


def test_secret_key_required_without_debug_and_long_enough():
    with pytest.raises(env.SettingError, match="SECRET_KEY"):
        env.get_secret_key("SECRET_KEY", debug=False, environ={})
    with pytest.raises(env.SettingError, match="32 characters"):
        env.get_secret_key("SECRET_KEY", debug=False, environ={"SECRET_KEY": "short"})
    assert env.get_secret_key("SECRET_KEY", debug=False, environ={"SECRET_KEY": "k" * 40}) == "k" * 40


def test_time_zone_must_exist():
    assert env.get_time_zone("TIME_ZONE", "UTC", environ={"TIME_ZONE": "Europe/Paris"}) == "Europe/Paris"
    with pytest.raises(env.SettingError, match="TIME_ZONE"):
        env.get_time_zone("TIME_ZONE", "UTC", environ={"TIME_ZONE": "Mars/Olympus"})


def test_allowed_hosts_list():
    assert env.get_list("ALLOWED_HOSTS", [], environ={"ALLOWED_HOSTS": "a.club, b.club"}) == ["a.club", "b.club"]
    with pytest.raises(env.SettingError):
        env.get_list("ALLOWED_HOSTS", [], environ={"ALLOWED_HOSTS": " , "})
