"""The compose file: every variable it sets is one the settings read; every needed service is there."""

from pathlib import Path

import yaml

from arbiter.env import ENV_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
APP_SERVICES = ("web", "worker", "beat", "migrate")


def test_every_service_the_product_needs_is_present():
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(COMPOSE["services"])


def test_environment_variables_set_for_the_app_are_all_read_by_the_settings():
    for name in APP_SERVICES:
        environment = COMPOSE["services"][name]["environment"]
        unknown = set(environment) - set(ENV_VARIABLES)
        assert not unknown, f"{name} sets variables the settings never read: {sorted(unknown)}"
        assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"} <= set(environment)


def test_env_variables_listed_are_really_read_by_the_settings_module():
    source = (ROOT / "arbiter" / "settings" / "base.py").read_text() + (ROOT / "arbiter" / "settings" / "test.py").read_text()
    for name in ENV_VARIABLES:
        if name != "DJANGO_SETTINGS_MODULE":
            assert f'"{name}"' in source, f"{name} is listed but no settings module reads it"


def test_app_services_point_at_the_compose_database_and_redis():
    for name in APP_SERVICES:
        environment = COMPOSE["services"][name]["environment"]
        assert "@postgres:5432/" in environment["DATABASE_URL"]
        assert environment["REDIS_URL"].startswith("redis://redis:6379/")


def test_healthchecks_and_persistent_volumes():
    services = COMPOSE["services"]
    for name in ("postgres", "redis", "web", "worker"):
        assert "healthcheck" in services[name], f"{name} has no healthcheck"
    assert any(v.startswith("pgdata:") for v in services["postgres"]["volumes"])
    assert "pgdata" in COMPOSE["volumes"]


def test_web_and_worker_wait_for_healthy_database_and_redis():
    for name in ("web", "worker", "beat"):
        depends = COMPOSE["services"][name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
    migrate_depends = COMPOSE["services"]["migrate"]["depends_on"]
    assert migrate_depends["postgres"]["condition"] == "service_healthy"
    assert migrate_depends["redis"]["condition"] == "service_healthy"


def test_dockerfile_runs_as_non_root_and_collects_static_files():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "-slim" in dockerfile.splitlines()[1]
    assert "\nUSER arbiter" in dockerfile
    assert "collectstatic --noinput" in dockerfile
