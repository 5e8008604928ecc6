"""A simultaneous game in three installations (issue 25, part 6; README "A simultaneous game in many clubs").

- The organiser: a web server on PostgreSQL (this test's database) and a Redis of its own, at 127.0.0.1. It
  draws a 10-round game (``manage.py pack draw --max-rounds 10``) and seals it (``pack seal``), creates the
  event at its console, adds the pack, registers the two centres with their public keys (each centre's own key,
  made at its install and printed by ``arbiter manage pack key``) and gives each its push token, and unlocks the
  game with the key.
- Two centres on the embedded default (SQLite and the filesystem broker in a data folder of their own), each the
  club's one command ``arbiter run`` (web server and worker) at 127.0.0.2 and 127.0.0.3. Centre 1 has internet:
  it trusts the organiser's key (TRUSTED_ORGANISER_KEYS), imports the pack through the API, and its worker pushes
  its results to the organiser's URL. Centre 2 has none: it imports the pack's file at the console (refused with
  the organiser's fingerprint, trusted once it is typed), unlocks with the key's QR text, and its results file is
  downloaded from its console and imported at the organiser's console (then replayed: it lands once).
- Both play the 10 rounds with phones (API slips) and paper slips typed by the arbitrator: tops, other legal
  plays, wrong scores, wrong references, invalid words, a missing slip, a paper slip typed after the close.
- While the organiser is stopped, centre 1's last round closes: its push is tried again and lands once when the
  organiser is back (on the same port).
- The organiser's merged standings equal a computation made here from the raw slips: each slip judged with the
  engine (engine.judging.judge_slip) on the pack's board of its round, then totals, warnings' cost, event-wide
  solos and ranks by the rules, overall and within each centre, series and category.

Only loopback addresses; every wait is bounded; every process is killed at the end. When 127.0.0.2 and
127.0.0.3 cannot be bound, the centres listen on 127.0.0.1 (other ports) and the test says so on its output.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.db import connection

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip
from engine.notation import format_ref
from engine.search import generate_plays
from engine.tiles import load_tileset
from tournaments import packs
from tournaments.event_models import EventGame, ResultsFile
from tournaments.lexicons import get_lexicon

from .stack import ROOT, Answer, RedisServer, WebServer, child_env, wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.BROKER.redis_url,
        reason="the organiser runs on PostgreSQL: needs DATABASE_URL (PostgreSQL) and REDIS_URL",
    ),
    pytest.mark.skipif(
        shutil.which("redis-server") is None and not settings.REQUIRE_SERVICES,
        reason="needs the redis-server program (the organiser's private Redis)",
    ),
]

EVENT = "Simultané de la Toussaint 2026"
GAME = "G1"
ROUNDS = 10
SEED = 20261125
SOLO_MIN = 6  # ten players in all, five a centre: solos count over the event only
START = 180.0  # seconds: migrating a fresh SQLite database and starting a worker on a loaded machine
WAIT = 60.0  # seconds: a bound, not a timing
NOT_A_WORD = "QXZVJ"


# ---- addresses ------------------------------------------------------------------------------------------------


def bindable(host: str) -> bool:
    try:
        with socket.socket() as sock:
            sock.bind((host, 0))
    except OSError:
        return False
    return True


def loopback(n: int) -> str:
    """127.0.0.n, or 127.0.0.1 when this machine cannot bind it (said on the test's output)."""
    host = f"127.0.0.{n}"
    if bindable(host):
        return host
    print(f"{host} cannot be bound on this machine: the centre listens on 127.0.0.1 (a port of its own)")
    return "127.0.0.1"


def free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def call(host: str, port: int, method: str, path: str, body=None, token: str | None = None, raw: bytes | None = None,
         headers: dict | None = None, timeout: float = 30.0) -> Answer:
    sent = {"Host": f"{host}:{port}", "Accept": "application/json", **(headers or {})}
    if token:
        sent["Authorization"] = token
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        payload = response.read()
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, payload,
                        time.monotonic() - started)
        answer.cookies = response.msg.get_all("Set-Cookie") or []
        return answer
    finally:
        conn.close()


def expect(answer: Answer, *statuses: int):
    assert answer.status in statuses, answer
    return answer.json() if answer.body and answer.headers.get("content-type", "").startswith("application/json") \
        else answer


class Console:
    """An arbitrator signed in at an installation's console (a session cookie and the CSRF token, as a browser)."""

    def __init__(self, host: str, port: int, username: str, password: str):
        self.host, self.port, self.cookies = host, port, {}
        self.get("/console/login/")
        answer = self.post("/console/login/", {"username": username, "password": password})
        assert answer.status == 302 and "sessionid" in self.cookies, answer

    def _send(self, method: str, path: str, raw: bytes | None = None, content_type: str = "") -> Answer:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), "Accept": "text/html"}
        if content_type:
            headers["Content-Type"] = content_type
        answer = call(self.host, self.port, method, path, raw=raw, headers=headers)
        for cookie in answer.cookies:
            name, _, rest = cookie.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return answer

    def get(self, path: str) -> Answer:
        return self._send("GET", path)

    def post(self, path: str, fields: dict, files: dict | None = None) -> Answer:
        fields = {**fields, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
        if not files:
            return self._send("POST", path, urlencode(fields).encode(), "application/x-www-form-urlencoded")
        boundary = uuid.uuid4().hex
        parts = []
        for name, value in fields.items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
        for name, (filename, content) in files.items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                         f"Content-Type: application/json\r\n\r\n".encode() + content + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return self._send("POST", path, b"".join(parts), f"multipart/form-data; boundary={boundary}")

    def follow(self, answer: Answer) -> Answer:
        """The page a 302 sends to (where the console shows its messages)."""
        assert answer.status == 302, answer
        return self.get(urlsplit(answer.headers["location"]).path)


# ---- the installations ----------------------------------------------------------------------------------------


def seed_text(key: Ed25519PrivateKey) -> str:
    raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    return base64.b64encode(raw).decode()


@dataclass
class Centre:
    """A club's laptop: ``arbiter run --host 127.0.0.N`` on the embedded default in a data folder of its own."""

    code: str
    name: str
    host: str
    folder: Path
    port: int = 0
    process: subprocess.Popen | None = None
    password: str = ""
    token: str = ""  # the arbitrator's API token
    env: dict = field(default_factory=dict)

    def __post_init__(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES", "ALLOWED_HOSTS", "PUBLIC_URL",
                            "SIGNING_KEY", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
        env.update(DATA_DIR=str(self.folder / "data"), DJANGO_SETTINGS_MODULE="tests.tournaments.centre_settings",
                   DEBUG="1", PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT), LEXICON_CACHE_DIR=str(settings.LEXICON_CACHE_DIR),
                   CENTRE_ID=self.code, CENTRE_NAME=self.name)
        self.env = env

    @property
    def log_path(self) -> Path:
        return self.folder / "arbiter-run.log"

    def log(self, tail: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except FileNotFoundError:
            return ""

    def public_key(self) -> str:
        """The centre's own key, made at its install (DATA_DIR/signing.key), as ``arbiter manage pack key`` prints it."""
        out = subprocess.run([sys.executable, "-m", "arbiter", "manage", "pack", "key"], cwd=ROOT, env=self.env,
                             capture_output=True, text=True, timeout=120)
        found = re.search(r"^public key (\S+)$", out.stdout, re.M)
        assert found, out.stdout + out.stderr
        return found.group(1)

    def start(self, **extra: str) -> None:
        self.env.update(extra)
        self.port = free_port(self.host)
        with open(self.log_path, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "arbiter", "run", "--host", self.host, "--port", str(self.port), "--no-demo",
                 "--no-warm"], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)

    def wait_running(self) -> None:
        def running():
            assert self.process.poll() is None, f"the centre {self.code} stopped:\n{self.log()}"
            return "Arbiter running at" in self.log(100_000)

        assert wait_for(running, START, step=0.2), f"the centre {self.code} did not start:\n{self.log()}"
        found = re.search(r"password '([^']+)'", self.log(100_000))
        assert found, self.log()
        self.password = found.group(1)
        token = expect(self("POST", "/api/auth/token", {"username": "arbitre", "password": self.password}), 200)
        self.token = f"Token {token['token']}"

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGINT)
                self.process.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)

    def __call__(self, method: str, path: str, body=None, token: str | None = None, **options) -> Answer:
        return call(self.host, self.port, method, path, body=body, token=token, **options)

    def versions(self) -> list[dict]:
        """The centre's results files kept (its SQLite database, read only): sequence, final, sha256, push."""
        db = sqlite3.connect(f"file:{self.folder / 'data' / 'arbiter.sqlite3'}?mode=ro", uri=True, timeout=10)
        try:
            rows = db.execute("SELECT sequence, final, sha256, push_state, push_attempts FROM tournaments_centreresults "
                              "ORDER BY sequence").fetchall()
        finally:
            db.close()
        return [dict(zip(("sequence", "final", "sha256", "push_state", "push_attempts"), row, strict=True))
                for row in rows]


@pytest.fixture
def started(tmp_path):
    """What the test starts, stopped at the end whatever happens."""
    running: list = []
    yield running
    for item in reversed(running):
        item.stop()


# ---- the players and their slips -----------------------------------------------------------------------------


@dataclass
class Seat:
    centre: str
    name: str
    table: int
    phone: bool
    licence: str = ""
    club: str = ""
    series: str = ""
    category: str = ""
    id: int = 0
    token: str = ""


SEATS = [
    Seat("c1", "Anne Aubert", 1, True, "100201", "Vichy", "1", "Senior"),
    Seat("c1", "Bruno Bel", 2, True, "100202", "Vichy", "2", "Vermeil"),
    Seat("c1", "Chloé Carré", 3, True, "100203", "Vichy", "3", "Junior"),
    Seat("c1", "Denis Doré", 4, False, "100204", "Vichy", "2", "Diamant"),
    Seat("c1", "Émile Ernst", 5, False, "", "Vichy", "4", "Senior"),  # no licence: their name in their centre
    Seat("c2", "Fanny Faure", 1, True, "200301", "Moulins", "1", "Senior"),
    Seat("c2", "Gaston Gay", 2, True, "200302", "Moulins", "3", "Vermeil"),
    Seat("c2", "Hélène Huet", 3, False, "200303", "Moulins", "2", "Junior"),
    Seat("c2", "Ivan Imbert", 4, False, "200304", "Moulins", "4", "Diamant"),
    Seat("c2", "Émile Ernst", 5, True, "", "Moulins", "4", "Senior"),  # the same name elsewhere: another player
]
MISSING = ("c2", "Ivan Imbert", 4)  # the one missing slip: (centre, name, round)
AFTER_CLOSE = ("c2", "Hélène Huet", 3)  # a paper slip handed in before the end call, typed after the close


class Slips:
    """Each seat's slip of each round, chosen once from the pack's game: the top, another legal play, the top
    with a wrong score (a warning), the top's score at a wrong reference (a penalty), or a word not in the
    list."""

    def __init__(self, game_file: packs.GameFile, lexicon, tileset):
        self.game_file = game_file
        choose = random.Random(SEED)
        self.slips: dict[tuple[str, str, int], dict | None] = {}
        for game_round in game_file.game.rounds:
            board = Board.from_rows(game_round.board)
            master = game_round.master
            others = sorted({(p.score, p.word, p.row, p.col, p.horizontal)
                             for p in generate_plays(board, game_round.rack, lexicon, tileset, game_file.rules)
                             if p.score < master.score})
            top = {"word": master.word, "ref": self.ref(master.row, master.col, master.horizontal),
                   "score": master.score}
            # One player alone finds the top in the even rounds (a solo over the event, not in a room of five).
            alone = SEATS[(game_round.number * 3) % len(SEATS)]
            for index, seat in enumerate(SEATS):
                kind = choose.choice(["other", "other", "other", "wrong_score", "not_a_word", "wrong_ref"])
                if game_round.number % 2 == 1 and choose.random() < 0.3:
                    kind = "top"
                if game_round.number % 2 == 0:  # nobody else reaches the top's score
                    kind = "top" if seat is alone else ("other" if kind in ("top", "wrong_score") else kind)
                if game_round.number == 1 and kind == "wrong_ref":
                    kind = "other"  # round 1: any placement is paid its best one
                if index == 1 and game_round.number in (1, 3, 5, 7):
                    kind = "wrong_score"  # four warnings: one more than free
                if (seat.centre, seat.name, game_round.number) == MISSING:
                    self.slips[(seat.centre, seat.name, game_round.number)] = None
                    continue
                if kind == "top":
                    slip = dict(top)
                elif kind == "other":
                    score, word, row, col, horizontal = others[(index * 7 + game_round.number) % len(others)]
                    slip = {"word": word, "ref": self.ref(row, col, horizontal), "score": score}
                elif kind == "wrong_score":
                    slip = {**top, "score": master.score + 2}
                elif kind == "wrong_ref":
                    slip = {**top, "ref": self.ref(0, 0, not master.horizontal)}
                else:
                    slip = {**top, "word": NOT_A_WORD}
                self.slips[(seat.centre, seat.name, game_round.number)] = slip

    def ref(self, row: int, col: int, horizontal: bool) -> str:
        return format_ref(row, col, horizontal, self.game_file.labelling)

    def of(self, seat: Seat, number: int) -> dict | None:
        return self.slips[(seat.centre, seat.name, number)]


def expected_standings(game_file: packs.GameFile, slips: Slips, lexicon, tileset) -> dict:
    """The merged standings computed here from the raw slips: each judged with the engine on the pack's board of
    its round; totals with the warnings' cost; solos over the whole event; competition ranks (1, 1, 3), overall
    and within each centre, series and category. Keyed by (centre, name)."""
    rules = game_file.rules
    rounds = game_file.game.rounds
    verdicts: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
    for seat in SEATS:
        row = verdicts[(seat.centre, seat.name)] = []
        for game_round in rounds:
            slip = slips.of(seat, game_round.number)
            if slip is None:
                row.append((0, "zero", "no_slip"))
                continue
            found = judge_slip(Board.from_rows(game_round.board), game_round.rack, game_round.number,
                               EngineSlip(slip["word"], slip["ref"], slip["score"]), lexicon, tileset, rules,
                               labelling=game_file.labelling)
            row.append((found.paid, found.outcome, found.reason))
    played = sum(1 for row in verdicts.values() if any(reason not in ("no_slip", "absent") for _, _, reason in row))
    solos = dict.fromkeys(verdicts, 0)
    for r in range(len(rounds)):
        paid = {who: row[r][0] for who, row in verdicts.items()}
        best = max(paid.values())
        leaders = [who for who, score in paid.items() if score == best]
        if len(leaders) == 1:
            solos[leaders[0]] += 1
    solos_count = rules.solos and played >= rules.solo_min_players
    sum_tops = sum(r.master.score for r in rounds)
    out = {}
    for seat in SEATS:
        who = (seat.centre, seat.name)
        row = verdicts[who]
        warnings = sum(1 for _, outcome, _ in row if outcome == "warning")
        cost = max(0, warnings - rules.free_warnings) * rules.warning_cost if rules.warnings else 0
        bonus = solos[who] * rules.solo_bonus if solos_count else 0
        total = sum(paid for paid, _, _ in row) + bonus - cost
        out[who] = {"name": seat.name, "licence": seat.licence, "club": seat.club, "centre": seat.centre,
                    "series": seat.series, "category": seat.category, "total": total, "diff": total - sum_tops,
                    "percent": round(100 * total / sum_tops, 2), "solos": solos[who] if solos_count else 0,
                    "warnings": warnings, "verdicts": row,
                    "tops": sum(1 for (paid, _, _), r in zip(row, rounds, strict=True) if paid == r.master.score)}

    def rank(members, key):
        for who in members:
            out[who][key] = 1 + sum(1 for other in members if out[other]["total"] > out[who]["total"])

    rank(list(out), "rank")
    for group in ("centre", "series", "category"):
        for value in {row[group] for row in out.values()}:
            rank([who for who, row in out.items() if row[group] == value], f"rank_{group}")
    return {"players": out, "sum_tops": sum_tops, "solos_count": solos_count}


# ---- playing ---------------------------------------------------------------------------------------------------


def rack_letters(text: str) -> list[str]:
    return sorted(ch for ch in str(text) if ch.isalpha() or ch == "?")


def play_round(centre: Centre, game_id: int, game_round, slips: Slips, close: bool = True) -> None:
    """Draw (the pack's next rack is revealed), start, the phones' slips and the paper slips typed by table,
    the end call; then the paper slip typed after the close."""
    number = game_round.number
    drawn = expect(centre("POST", f"/api/games/{game_id}/rounds", {}, token=centre.token), 201)
    assert drawn["number"] == number and rack_letters(drawn["rack"]) == rack_letters(game_round.rack), drawn
    expect(centre("POST", f"/api/games/{game_id}/rounds/{number}/start", {}, token=centre.token), 200)
    later = []
    for seat in (s for s in SEATS if s.centre == centre.code):
        slip = slips.of(seat, number)
        if slip is None:
            continue
        if (seat.centre, seat.name, number) == AFTER_CLOSE:
            later.append((seat, slip))
        elif seat.phone:
            expect(centre("POST", f"/api/games/{game_id}/rounds/{number}/slips",
                          {**slip, "key": f"r{number}-{seat.table}", "seq": 1}, token=f"Bearer {seat.token}"), 201)
        else:
            expect(centre("POST", f"/api/games/{game_id}/rounds/{number}/slips", {**slip, "table": seat.table},
                          token=centre.token), 201)
    if not close:
        return
    closed = expect(centre("POST", f"/api/games/{game_id}/rounds/{number}/close", {}, token=centre.token), 200)
    assert closed["closed"] is True, closed
    for seat, slip in later:
        expect(centre("POST", f"/api/games/{game_id}/rounds/{number}/slips", {**slip, "table": seat.table},
                      token=centre.token), 201)


def register_players(centre: Centre, game_id: int) -> None:
    for seat in (s for s in SEATS if s.centre == centre.code):
        body = {"name": seat.name, "table": seat.table, "licence": seat.licence, "club": seat.club,
                "series": seat.series, "category": seat.category}
        player = expect(centre("POST", f"/api/games/{game_id}/players", body, token=centre.token), 201)
        seat.id, seat.token = player["id"], player["token"]


# ---- the test --------------------------------------------------------------------------------------------------


def test_a_simultaneous_game_in_three_installations_merges_to_the_standings_computed_from_the_raw_slips(
        tmp_path, started, arbitrator):
    organiser_key = Ed25519PrivateKey.generate()
    redis = RedisServer.start(tmp_path / "redis")  # the organiser's own: no other test reads its keys
    started.append(redis)
    organiser_env = child_env(redis.url, SIGNING_KEY=seed_text(organiser_key), PYTHONPATH=str(ROOT))

    # The organiser draws the game and seals it, on its command line.
    game_path, pack_path, key_path = tmp_path / "g1.json", tmp_path / "G1.pack.json", tmp_path / "G1.key"
    for argv in (["draw", "--seed", str(SEED), "--max-rounds", str(ROUNDS), "--rule", f"solo_min_players={SOLO_MIN}",
                  "--out", str(game_path)],
                 ["seal", str(game_path), "--event", EVENT, "--game-id", GAME, "--out", str(pack_path),
                  "--key-out", str(key_path)]):
        done = subprocess.run([sys.executable, "manage.py", "pack", *argv], cwd=ROOT, env=organiser_env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    game_file = packs.read_game_file(json.loads(game_path.read_bytes()))
    assert len(game_file.game.rounds) == ROUNDS
    pack_raw = pack_path.read_bytes()
    key = key_path.read_text().strip()
    organiser_fingerprint = packs.fingerprint(packs.public_text(organiser_key))

    # The centres are installed: each has its own key, which the organiser registers.
    centres = {code: Centre(code, name, loopback(n), tmp_path / code)
               for code, name, n in (("c1", "Club de Vichy", 2), ("c2", "Club de Moulins", 3))}
    public = {code: centre.public_key() for code, centre in centres.items()}

    # The organiser's server, and its console: the event, the pack, the centres and their tokens, the key.
    organiser = WebServer.start(tmp_path, organiser_env, name="organiser")
    started.append(organiser)
    console = Console("127.0.0.1", organiser.port, arbitrator.username, "secret-password")
    made = console.post("/console/events/", {"name": EVENT, "language": "fr"})
    event_id = int(re.search(r"/console/events/(\d+)/", made.headers.get("location", "")).group(1))
    act = f"/console/events/{event_id}/act/"
    page = console.follow(console.post(act, {"action": "pack"}, files={"file": ("G1.pack.json", pack_raw)}))
    assert GAME in page.body.decode(), page
    tokens = {}
    for code, centre in centres.items():
        page = console.follow(console.post(act, {"action": "centre", "code": code, "name": centre.name,
                                                 "public_key": public[code]}))
        tokens[code] = re.search(r"shown this once: ([A-Za-z0-9_-]+)", page.body.decode()).group(1)
    event_game = EventGame.objects.get(event_id=event_id, game_id=GAME)
    console.follow(console.post(act, {"action": "unlock", "game": event_game.pk, "key": key}))
    assert EventGame.objects.get(pk=event_game.pk).game_text

    # The centres start: centre 1 with the organiser's key trusted and its address, event and push token set.
    c1, c2 = centres["c1"], centres["c2"]
    c1.start(TRUSTED_ORGANISER_KEYS=packs.public_text(organiser_key), ORGANISER_URL=f"http://127.0.0.1:{organiser.port}",
             ORGANISER_EVENT=str(event_id), ORGANISER_TOKEN=tokens["c1"], RESULTS_PUSH_FIRST_DELAY="0.2",
             RESULTS_PUSH_MAX_DELAY="0.5", RESULTS_PUSH_ATTEMPTS="400")
    started.append(c1)
    c2.start()
    started.append(c2)
    c1.wait_running()
    c2.wait_running()
    assert (c1.host, c2.host) == ("127.0.0.2", "127.0.0.3") or not bindable("127.0.0.2")

    # Centre 1 imports the pack online (the API); centre 2 from the file at its console, trusting the organiser
    # once the fingerprint read out on the phone is typed.
    games = {}
    for centre in (c1, c2):
        tournament = expect(centre("POST", "/api/tournaments", {"name": f"Toussaint — {centre.name}"},
                                   token=centre.token), 201)
        if centre is c1:
            imported = expect(centre("POST", f"/api/tournaments/{tournament['id']}/packs",
                                     {"pack": pack_raw.decode()}, token=centre.token), 201)
            games["c1"] = imported["game"]
            continue
        at = Console(centre.host, centre.port, "arbitre", centre.password)
        path = f"/console/tournaments/{tournament['id']}/pack/"
        refused = at.post(path, {"trust_fingerprint": ""}, files={"file": ("G1.pack.json", pack_raw)})
        assert refused.status == 400 and organiser_fingerprint in refused.body.decode(), refused
        imported = at.post(path, {"trust_fingerprint": organiser_fingerprint.lower().replace("-", " ")},
                           files={"file": ("G1.pack.json", pack_raw)})
        assert imported.status == 302, imported
        games["c2"] = int(re.search(r"/console/games/(\d+)/pack/", imported.headers["location"]).group(1))
        c2.console = at
    for code, centre in centres.items():
        register_players(centre, games[code])
        # Nothing to draw before the key.
        expect(centre("POST", f"/api/games/{games[code]}/rounds", {}, token=centre.token), 409)

    # At the start: centre 1 types the key; centre 2 scans its QR code into the console's field.
    expect(c1("POST", f"/api/games/{games['c1']}/pack/unlock", {"key": key}, token=c1.token), 200)
    qr = f"ARBITER-PACK-KEY:{key.replace('-', '')}:{packs.pack_sha256(json.loads(pack_raw))[:16].upper()}"
    unlocked = c2.console.post(f"/console/games/{games['c2']}/pack/unlock/", {"key": qr})
    assert unlocked.status == 302, unlocked

    # The evening: both centres play each round; the organiser is stopped before centre 1's last end call.
    lexicon, tileset = get_lexicon(game_file.lexicon), load_tileset(game_file.tileset)
    slips = Slips(game_file, lexicon, tileset)
    for game_round in game_file.game.rounds:
        last = game_round.number == ROUNDS
        play_round(c2, games["c2"], game_round, slips)
        play_round(c1, games["c1"], game_round, slips, close=not last)
    # Centre 1's results so far landed online, round by round (each version replacing the last).
    assert wait_for(lambda: ResultsFile.objects.filter(centre__code="c1", current=True, sequence__gte=2).exists(),
                    WAIT, step=0.2), c1.log()
    organiser.stop()
    expect(c1("POST", f"/api/games/{games['c1']}/rounds/{ROUNDS}/close", {}, token=c1.token), 200)

    def final_pending():
        final = [v for v in c1.versions() if v["final"]]
        return final and final[0]["push_attempts"] >= 2 and final[0]["push_state"] == "pending" and final[0]

    waiting = wait_for(final_pending, WAIT, step=0.2)
    assert waiting, (c1.versions(), c1.log())
    assert not ResultsFile.objects.filter(sha256=waiting["sha256"]).exists()
    # The organiser is back on the same address: the push is tried again and lands, once.
    organiser = WebServer(tmp_path, organiser_env, name="organiser", port=organiser.port)
    started.append(organiser)
    assert wait_for(lambda: ResultsFile.objects.filter(sha256=waiting["sha256"], current=True).exists(), WAIT,
                    step=0.2), (c1.versions(), c1.log())
    assert wait_for(lambda: [v for v in c1.versions() if v["final"]][0]["push_state"] == "sent", WAIT, step=0.2)
    assert ResultsFile.objects.filter(sha256=waiting["sha256"]).count() == 1
    for code in centres:
        over = expect(centres[code]("GET", f"/api/games/{games[code]}", token=centres[code].token), 200)
        assert over["status"] == "over", over

    # Centre 2 has no internet: its results file is downloaded from its console (a USB key) and imported at the
    # organiser's console; until then the standings are provisional and name it.
    signed_in = expect(call("127.0.0.1", organiser.port, "POST", "/api/auth/token",
                            {"username": arbitrator.username, "password": "secret-password"}), 200)
    api = f"Token {signed_in['token']}"
    partial = expect(call("127.0.0.1", organiser.port, "GET", f"/api/events/{event_id}/standings", token=api), 200)
    assert partial["provisional"] and partial["missing_centres"] == ["c2"], partial
    console = Console("127.0.0.1", organiser.port, arbitrator.username, "secret-password")
    download = c2.console.get(f"/console/games/{games['c2']}/results-file/download/")
    assert download.status == 200 and "attachment" in download.headers.get("content-disposition", ""), download
    results_c2 = download.body
    assert json.loads(results_c2)["final"] is True
    page = console.follow(console.post(act, {"action": "upload"}, files={"file": ("results-c2.json", results_c2)}))
    assert "accepted" in page.body.decode() or "acceptés" in page.body.decode(), page
    # The same file again (replayed, here through the API with the centre's token) lands once.
    again = expect(call("127.0.0.1", organiser.port, "POST", f"/api/events/{event_id}/results", raw=results_c2,
                        token=f"Bearer {tokens['c2']}", headers={"Content-Type": "application/json"}), 200)
    assert again["status"] == "already_received", again
    assert ResultsFile.objects.filter(centre__code="c2").count() == 1
    counted = {f.centre.code: f for f in ResultsFile.objects.filter(event_id=event_id, current=True)
               .select_related("centre")}
    assert set(counted) == {"c1", "c2"} and all(f.final for f in counted.values())
    # The organiser judged every slip again: no verdict differs from the centres'.
    assert [f.differences for f in counted.values()] == [[], []]
    # Centre 2's correction (the paper slip typed after the close) came with who typed it and why.
    corrections = json.loads(counted["c2"].content)["corrections"]
    assert [(c["action"], c["round"], c["by"]) for c in corrections] == [("slip_add", AFTER_CLOSE[2], "arbitre")]
    assert corrections[0]["why"]

    # The merged standings equal the computation from the raw slips.
    expected = expected_standings(game_file, slips, lexicon, tileset)
    merged = expect(call("127.0.0.1", organiser.port, "GET", f"/api/events/{event_id}/standings", token=api), 200)
    assert not merged["provisional"] and merged["missing_centres"] == [] and merged["unfinished"] == [], merged
    assert merged["sum_tops"] == expected["sum_tops"]
    players = expected["players"]
    assert expected["solos_count"] and any(p["solos"] for p in players.values())
    assert any(p["warnings"] > game_file.rules.free_warnings for p in players.values())
    assert {v[1] for p in players.values() for v in p["verdicts"]} >= {"ok", "warning", "penalty", "zero"}
    fields = ("rank", "name", "licence", "club", "centre", "series", "category", "total", "diff", "solos",
              "warnings")
    got = [{name: row[name] for name in fields} | {"percent": round(row["percent"], 2)} for row in merged["rows"]]
    want = sorted(({name: p[name] for name in fields} | {"percent": p["percent"]} for p in players.values()),
                  key=lambda row: (row["rank"], row["name"]))
    assert sorted(got, key=lambda row: (row["rank"], row["name"], row["centre"])) == \
        sorted(want, key=lambda row: (row["rank"], row["name"], row["centre"]))
    assert [row["rank"] for row in merged["rows"]] == sorted(row["rank"] for row in merged["rows"])
    for group in ("centre", "series", "category"):
        want_group = {}
        for p in players.values():
            want_group.setdefault(p[group], set()).add((p["centre"], p["name"], p[f"rank_{group}"], p["total"]))
        got_group = {name: {(row["centre"], row["name"], row[f"rank_{group}"], row["total"]) for row in rows}
                     for name, rows in merged[f"by_{group}"].items()}
        assert got_group == want_group, group
    # And each centre's counted file holds the verdicts the engine gives here, slip by slip.
    for code, record in counted.items():
        for player in json.loads(record.content)["players"]:
            given = [(r["verdict"]["paid"], r["verdict"]["outcome"], r["verdict"]["reason"]) for r in player["rounds"]]
            assert given == players[(code, player["name"])]["verdicts"], (code, player["name"])
