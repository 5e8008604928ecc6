"""`make run` says what an arbitrator needs and stops at once on Ctrl-C, phones' streams open or not.

The launcher runs as `make run` runs it, less the warm-up (`python -m arbiter run --no-warm`), on the embedded default (SQLite
and the filesystem broker in a fresh DATA_DIR). Ctrl-C in a terminal reaches the launcher's whole process
group, the worker too: the test sends SIGINT to the group. The stop time itself is measured by bench/stop.py;
the bound here only guards against a hang.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tournaments.stack import free_port

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_SECONDS = 15

# What the terminal showed besides the arbitrator's lines: celery's banner, its warning about the superuser,
# kombu's "No hostname was supplied" for the filesystem broker, the worker's shutdown messages, tracebacks of
# the streams the stop ended.
NOISE = [r"celery@", r"-------------- ", r"SecurityWarning", r"superuser privileges", r"No hostname was supplied",
         r"Warm shutdown", r"Hitting Ctrl\+C", r"Traceback", r"CancelledError", r"ERROR"]


def _open_stream(port: int, game_id: int) -> socket.socket:
    stream = socket.create_connection(("127.0.0.1", port), timeout=10)
    stream.sendall(f"GET /games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   "Accept: text/event-stream\r\n\r\n".encode())
    received = b""
    deadline = time.monotonic() + 10
    while b"event:" not in received and time.monotonic() < deadline:
        chunk = stream.recv(65536)
        if not chunk:
            break
        received += chunk
    assert received.startswith(b"HTTP/1.1 200"), received[:300]
    return stream


@pytest.mark.worker
def test_make_run_prints_the_address_and_login_only_and_ctrl_c_stops_it_with_two_open_streams(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")}
    env.update(DATA_DIR=str(tmp_path / "data"), DJANGO_SETTINGS_MODULE="arbiter.settings.dev",
               PYTHONUNBUFFERED="1",
               LEXICON_CACHE_DIR=os.environ.get("LEXICON_CACHE_DIR", str(Path.home() / ".cache/arbiter/lexicons")))
    port = free_port()
    launcher = subprocess.Popen([sys.executable, "-m", "arbiter", "run", "--no-warm", "--port", str(port)],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
    lines: list[str] = []
    streams: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 120
        while not any("running at" in line for line in lines) and time.monotonic() < deadline:
            line = launcher.stdout.readline()
            if not line:
                break
            lines.append(line)
        assert any("running at" in line for line in lines), "".join(lines)
        game_id = int(re.search(r"Demo game: id (\d+)", "".join(lines)).group(1))
        # The worker is up (its banner, if any, printed by now), and two phones hold their streams.
        time.sleep(4)
        streams = [_open_stream(port, game_id) for _ in range(2)]
        os.killpg(launcher.pid, signal.SIGINT)
        launcher.wait(timeout=HANG_GUARD_SECONDS)
        rest = launcher.stdout.read()  # after the lines readline() took (communicate() would skip its buffer)
    finally:
        for stream in streams:
            stream.close()
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
    output = "".join(lines) + rest
    assert launcher.returncode == 0, output
    assert f"http://127.0.0.1:{port}/" in output
    assert f"http://127.0.0.1:{port}/console/" in output
    assert "username 'arbitre', password 'duplicate'" in output
    assert output.rstrip().endswith("Stopped."), output
    noise = [line for line in output.splitlines() if any(re.search(pattern, line) for pattern in NOISE)]
    assert noise == [], output


@pytest.mark.django_db
def test_a_restart_names_the_games_in_play_with_their_console_pages():
    from tournaments.management.commands.rundemo import games_in_play
    from tournaments.models import Game
    from tournaments.services import game_create, tournament_create

    tournament = tournament_create(name="Club evening")
    playing, ready, archived = (game_create(tournament=tournament, seed=n) for n in (1, 2, 3))
    Game.objects.filter(pk__in=[playing.pk, archived.pk]).update(status=Game.Status.PLAYING)
    Game.objects.filter(pk=archived.pk).update(archived_at="2026-01-01T00:00:00Z")

    lines = games_in_play("http://127.0.0.1:8000/console/")
    assert lines == [f"Game in play: 'Club evening' game 1, no round yet: "
                     f"http://127.0.0.1:8000/console/games/{playing.pk}/"]


def _closed_round(game):
    """The game's first round drawn, opened and closed (its rack has plays: the round counts)."""
    from tournaments import services
    from tournaments.models import Round

    round_ = services.round_start(round=services.round_draw(game=game))
    services.round_compute_tops(round=round_)
    services.round_close(round=Round.objects.get(pk=round_.pk))
    round_.refresh_from_db()
    assert round_.status == Round.Status.CLOSED
    return round_


@pytest.mark.django_db
def test_after_a_restart_a_closed_round_or_an_ended_game_is_never_said_to_be_in_play(make_game):
    """Games played through the services: one with its round open, one whose last round is closed (between
    rounds), one ended by the arbitrator after its round closed. Only the first is in play, the second is
    between rounds, the third is not listed."""
    from tournaments import services
    from tournaments.management.commands.rundemo import games_in_play

    opened = make_game(seed=1)
    services.round_start(round=services.round_draw(game=opened))
    between = make_game(seed=2)
    closed = _closed_round(between)
    ended = make_game(seed=3)
    _closed_round(ended)
    services.game_end(game=ended)

    lines = games_in_play("http://127.0.0.1:8000/console/")
    console = "http://127.0.0.1:8000/console/games"
    assert lines == [
        f"Game between rounds: {between.tournament.name!r} game 1, round {closed.number} closed, next rack not drawn: "
        f"{console}/{between.pk}/",
        f"Game in play: {opened.tournament.name!r} game 1, round 1 open: {console}/{opened.pk}/",
    ], lines
