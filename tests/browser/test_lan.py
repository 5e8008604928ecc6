"""A club evening on one laptop, in real Chromium: `make run HOST=0.0.0.0` on the embedded default.

The arbitrator works on the laptop itself (http://127.0.0.1:PORT); the phones reach the laptop at its
address on the club's network, stood in for by 127.0.0.2 (a second loopback address, given as PUBLIC_URL
as a club would give its address by hand). Nothing is sent outside 127.0.0.0/8.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tournaments.demo import DEMO_PASSWORD, DEMO_USERNAME

from .conftest import SIZES
from .support import wait_for

pytestmark = [pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def club_server(tmp_path):
    """``python -m arbiter run --host 0.0.0.0 --port P`` with the development settings named (what
    `make run HOST=0.0.0.0 PORT=P` runs, DEBUG then off) on SQLite and the filesystem broker in a fresh
    DATA_DIR, PUBLIC_URL=http://127.0.0.2:P. Yields (port, output lines)."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "DEBUG", "SECRET_KEY")}
    env.update(DATA_DIR=str(tmp_path / "data"), DJANGO_SETTINGS_MODULE="arbiter.settings.dev",
               PUBLIC_URL=f"http://127.0.0.2:{port}",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    process = subprocess.Popen(
        [sys.executable, "-m", "arbiter", "run", "--no-warm", "--host", "0.0.0.0", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    lines: list[str] = []
    # The server's output is read all along, so that its pipe never fills up and holds it.
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("If phones cannot open it" in line for line in lines) or process.poll() is not None, timeout=120,
                 step=0.2)
        assert process.poll() is None, "".join(lines)
        yield port, lines
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        reader.join(timeout=5)


def test_phones_join_through_the_address_printed_for_the_club(chromium, club_server, screenshot):
    port, lines = club_server
    output = "".join(lines)
    local, public = f"http://127.0.0.1:{port}", f"http://127.0.0.2:{port}"
    assert f"Arbiter running at {local}/" in output
    assert f"Phones join at {public}/join" in output
    assert re.search(r"[█▀▄]{20}", output), "a QR code of the join page is printed"
    game_id, code = re.search(r"Demo game: id (\d+) .*join code (\w+)", output).groups()
    # A server the network can reach never keeps the demo's fixed password: the one printed is its own.
    password = re.search(r"password '([^']+)'", output).group(1)
    assert password != DEMO_PASSWORD
    with urllib.request.urlopen(f"{local}/healthz", timeout=10) as health:
        assert health.status == 200

    # The arbitrator, on the laptop: the home page, then the console's players page of the demo game.
    laptop = chromium.new_context(viewport=SIZES["laptop"], locale="en-GB")
    phone = chromium.new_context(viewport=SIZES["phone"], locale="en-GB")
    try:
        console = laptop.new_page()
        console.goto(f"{local}/")
        # Anonymous: the games in play are listed, with no projector link and no join code.
        assert console.locator("#home-games").get_by_role("link", name="Projector").count() == 0
        assert code not in console.content()
        screenshot(console, "lan-home")
        console.locator("#home-console").click()
        console.wait_for_url("**/console/login/**")
        console.get_by_label("Username").fill(DEMO_USERNAME)
        console.get_by_label("Password").fill(password)
        console.get_by_role("button", name="Log in").click()
        console.wait_for_url(f"{local}/console/")
        console.goto(f"{local}/console/games/{game_id}/players/")
        link = console.locator(".join-url a")
        join_url = f"{public}/join/{code}"
        assert link.inner_text() == join_url
        assert link.get_attribute("href") == join_url
        assert console.locator("#join-url-local").count() == 0
        assert console.locator(".qr-code svg").count() == 1
        screenshot(console, "lan-console-players")

        # The projector, opened on the laptop too through the console's link, shows the same address to the hall.
        projector_url = console.locator("#projector-url").get_attribute("href")
        assert projector_url.startswith(f"{public}/projector/")
        projector = laptop.new_page()
        projector.goto(projector_url)
        assert projector.locator(".pj-url").inner_text() == join_url

        # A phone on the club's network opens the link, joins and lands on the game's page.
        player = phone.new_page()
        player.errors = []
        player.on("pageerror", lambda exc: player.errors.append(str(exc)))
        player.goto(join_url)
        assert player.locator("#join-code").input_value() == code
        player.locator("#join-name").fill("Zoé")
        player.get_by_role("button", name="Join").click()
        player.wait_for_url(f"{public}/games/{game_id}/play", timeout=20_000)
        player.wait_for_function("document.querySelector('#who')?.textContent.includes('Zoé')", timeout=20_000)
        assert player.locator("#need-join").is_hidden()
        screenshot(player, "lan-phone-joined")
        assert not player.errors

        # The arbitrator sees the new player on the console.
        console.reload()
        assert console.get_by_role("cell", name="Zoé", exact=True).count() == 1
    finally:
        laptop.close()
        phone.close()
    assert not any("Traceback" in line for line in lines), "".join(lines[-80:])
