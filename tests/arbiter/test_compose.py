"""The compose file: every variable it sets is one the settings read; every needed service is there."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
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


def test_every_long_running_service_is_started_again_and_migrate_runs_once():
    """A service that exits (a crash, the OOM killer, the machine restarted) comes back by itself, in every
    profile; the migrations run once and are not run again in a loop (docs/operations.md, "The worker and
    Redis")."""
    for name, service in COMPOSE["services"].items():
        if name == "migrate":
            assert service.get("restart", "no") == "no", name
        else:
            assert service.get("restart") in ("unless-stopped", "always"), f"{name} is not started again"
    # The worker is compose's plain command, no launcher around it: its reconnection is its own.
    assert COMPOSE["services"]["worker"]["command"][:4] == ["celery", "-A", "arbiter", "worker"]


def test_dockerfile_runs_as_non_root_and_collects_static_files():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "-slim" in dockerfile.splitlines()[1]
    assert "\nUSER arbiter" in dockerfile
    assert "collectstatic --noinput" in dockerfile


# ---- profile hosts: several web hosts behind HAProxy (docker/haproxy-hosts.cfg) ------------------------------

HOSTS_PROXY_CONFIG = ROOT / "docker" / "haproxy-hosts.cfg"
DEFAULT_SHAPE = ("postgres", "redis", "migrate", "web", "worker", "beat")


def hosts_profile() -> dict[str, dict]:
    return {name: service for name, service in COMPOSE["services"].items() if "hosts" in service.get("profiles", [])}


def default_of(value: str) -> str:
    """The default of a ``${NAME:-default}`` compose value."""
    found = re.fullmatch(r"\$\{\w+:-([^}]*)\}", value)
    assert found, value
    return found.group(1)


def test_the_default_shape_starts_without_a_profile():
    for name in DEFAULT_SHAPE:
        assert not COMPOSE["services"][name].get("profiles"), f"{name} would no longer start by default"
    assert COMPOSE["services"]["web"]["ports"] == ["8000:8000"]


def test_profile_hosts_is_two_web_hosts_like_web_behind_the_proxy_and_nothing_else():
    profile = hosts_profile()
    webs = sorted(name for name in profile if name != "hosts-proxy")
    assert webs == ["web1", "web2"] and "hosts-proxy" in profile
    web = COMPOSE["services"]["web"]
    for name in webs:
        host = profile[name]
        assert host["build"] == web["build"] and host["healthcheck"] == web["healthcheck"]
        assert "command" not in host and "ports" not in host  # the image's uvicorn; reached through the proxy only
        assert host["environment"] == {**web["environment"], "TRUSTED_PROXIES": "1"}
        assert host["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    proxy = profile["hosts-proxy"]
    assert "./haproxy-hosts.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    named = {key: value for key, value in proxy["environment"].items() if key.startswith("ARBITER_WEB")}
    assert named == {f"ARBITER_WEB{n}": f"{name}:8000" for n, name in enumerate(webs, 1)}
    assert set(proxy["depends_on"]) == set(webs)
    config = HOSTS_PROXY_CONFIG.read_text()
    for key in named:  # a server line for each host the profile names
        assert re.search(rf'^\s*server host\d+ "\$\{{{key}\}}"', config, re.M), key


def test_the_proxy_checks_health_and_keeps_no_stickiness():
    lines = [line.split("#")[0].strip() for line in HOSTS_PROXY_CONFIG.read_text().splitlines()]
    lines = [line for line in lines if line]
    assert "balance roundrobin" in lines and "option httpchk" in lines
    assert any(line.startswith("http-check send meth GET uri /healthz ") for line in lines)
    assert any(line.startswith("default-server check ") for line in lines)
    for sticky in ("cookie", "stick", "stick-table", "option prefer-last-server", "balance source", "hash-type"):
        assert not any(line.split()[0] == sticky or line.startswith(sticky + " ") for line in lines), sticky
    assert "option redispatch 1" in lines and "option http-buffer-request" in lines


def test_postgresql_takes_every_pool_of_the_hosts_profile_at_its_largest():
    """max_connections >= (web processes + worker processes) x DB_POOL_MAX_SIZE + 5 (docker/README.md)."""
    services = COMPOSE["services"]
    command = services["postgres"]["command"]
    limit = int(default_of(command[command.index("-c") + 1].split("=", 1)[1]))
    pool = int(default_of(services["web"]["environment"]["DB_POOL_MAX_SIZE"]))
    web_processes = int(re.search(r'"--workers", "(\d+)"', (ROOT / "docker" / "Dockerfile").read_text()).group(1))
    worker = services["worker"]["command"]
    worker_processes = int(worker[worker.index("--concurrency") + 1])
    for webs in (1, len(hosts_profile()) - 1):  # the default shape, profile hosts
        assert limit >= (webs * web_processes + worker_processes) * pool + 5, (webs, limit)


@pytest.mark.skipif(shutil.which("haproxy", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"])) is None,
                    reason="needs the haproxy program to read its configuration")
def test_haproxy_reads_the_hosts_configuration_with_the_profiles_environment():
    haproxy = shutil.which("haproxy", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"]))
    environment = {key: default_of(value) if value.startswith("${") else value
                   for key, value in hosts_profile()["hosts-proxy"]["environment"].items()}
    # The hosts' names resolve only in Docker's network: loopback addresses instead (no DNS query from here).
    environment |= {key: f"127.0.0.1:{8000 + n}" for n, key in enumerate(environment) if key.startswith("ARBITER_WEB")}
    checked = subprocess.run([haproxy, "-c", "-q", "-f", str(HOSTS_PROXY_CONFIG)], capture_output=True, text=True,
                             env={"PATH": os.environ.get("PATH", ""), **environment}, timeout=30)
    assert checked.returncode == 0, checked.stderr
    bare = subprocess.run([haproxy, "-c", "-q", "-f", str(HOSTS_PROXY_CONFIG)], capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", "")}, timeout=30)
    assert bare.returncode != 0  # ARBITER_WEB1 is required: no host, no proxy
