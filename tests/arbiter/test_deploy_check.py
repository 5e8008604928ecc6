"""`manage.py check --deploy` with the production settings of docker/compose.yml (the image's settings module,
DEBUG off, a real secret key): no warning beyond the ones the README explains."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
DOCKERFILE = (ROOT / "docker" / "Dockerfile").read_text()

# README, "Deploying with Docker": served over HTTPS (HTTPS=1), only the HSTS preload list is left to the
# deployer; over plain HTTP (HTTPS=0, a club's own network) the four HTTPS settings cannot apply.
EXPLAINED = {
    "1": {"security.W021"},
    "0": {"security.W004", "security.W008", "security.W012", "security.W016"},
}


def _resolved(value: str, chosen: dict[str, str]) -> str:
    """A compose value with its ${NAME:-default} and ${NAME:?message} read as compose would."""

    def one(match: re.Match) -> str:
        name, operator, rest = match.group(1), match.group(2), match.group(3)
        if name in chosen:
            return chosen[name]
        if operator == ":?":
            raise AssertionError(f"{name} must be given ({rest})")
        return rest

    return re.sub(r"\$\{(\w+)(:-|:\?)([^}]*)\}", one, str(value))


def production_environment(https: str) -> dict[str, str]:
    chosen = {"SECRET_KEY": secrets.token_urlsafe(48), "ALLOWED_HOSTS": "arbiter.example.org", "HTTPS": https}
    environment = COMPOSE["services"]["web"]["environment"]
    env = {name: _resolved(value, chosen) for name, value in environment.items()}
    settings_module = re.search(r"DJANGO_SETTINGS_MODULE=(\S+)", DOCKERFILE).group(1)
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "SYSTEMROOT") if name in os.environ}
    return {**keep, **env, "DJANGO_SETTINGS_MODULE": settings_module, "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.parametrize("https", ["1", "0"])
def test_check_deploy_warns_of_nothing_but_the_explained(https, tmp_path):
    env = production_environment(https)
    assert env["DEBUG"] == "0" and env["HTTPS"] == https
    env["DATA_DIR"] = str(tmp_path)  # the image's folder does not exist here
    answer = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    output = answer.stdout + answer.stderr
    assert answer.returncode == 0, output
    found = set(re.findall(r"\((\w+\.[WE]\d+)\)", output))
    assert found == EXPLAINED[https], output
    assert "0 silenced" in output or "no issues" in output, output
