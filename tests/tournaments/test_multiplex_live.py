"""A live multiplex in three installations (issue 26, part 1; docs/multiplex.md).

- The organiser: a web server on PostgreSQL (this test's database) and a Redis of its own, at 127.0.0.1. It plays
  a game live (racks drawn at random as the rounds come), opens it to its event's two registered centres
  (POST /api/events/{id}/games) and receives their results.
- Two centres on the embedded default, each the club's one command ``arbiter run`` (web server and worker, the
  worker running the link) at 127.0.0.2 and 127.0.0.3, each following the organiser's game
  (POST /api/tournaments/{id}/relay). Centre 1 starts its clock when the rack arrives; centre 2's arbitrator
  presses start. Centre 2 reaches the organiser through a TCP forwarder this test controls (stack.Forwarder).
- Five rounds. A rack is never relayed before the organiser starts its round. In round 3 centre 2's link is cut
  before the organiser starts: its console says the link is down, its arbitrator types the rack read out over the
  phone (the typed-rack path), plays the round; the link comes back, the organiser's rack is found equal and the
  master confirmed, and its results reach the organiser late (the standings say centre 2 is behind meanwhile).
- After each round the organiser's merged standings equal a computation made here from the raw slips: each slip
  judged with the engine (engine.judging.judge_slip) on the organiser's board and rack of its round, totals by
  the rules, ranks (1, 1, 3); at the end (each centre's file final) warnings' cost counted.

Only loopback addresses; every wait is bounded; every process is killed at the end. When 127.0.0.2 and 127.0.0.3
cannot be bound, the centres listen on 127.0.0.1 (other ports) and the test says so on its output.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.board import Board
from engine.judging import Slip as EngineSlip
from engine.judging import judge_slip
from engine.notation import format_ref
from engine.search import generate_plays
from engine.tiles import load_tileset
from tournaments import events
from tournaments.lexicons import get_lexicon
from tournaments.models import LogEntry, Tournament

from .stack import Forwarder, RedisServer, WebServer, child_env, wait_for
from .test_simultaneous import (
    Centre,
    call,
    expect,
    loopback,
    pytestmark,  # noqa: F401 - the same installations: PostgreSQL, Redis, a worker
    seed_text,
)

EVENT = "Multiplex de Tours 2026"
GAME = "M1"
ROUNDS = 5
CUT = 3  # the round centre 2 plays with its link cut
WAIT = 60.0  # seconds: a bound, not a timing
SEARCH_READY = 300.0  # seconds: a bound on a request that may wait for the compiled move search to be ready
SILENT = 2.0  # the centres' ARBITER_RELAY_SILENT_SECONDS
NOT_A_WORD = "QXZVJ"


@dataclass
class Seat:
    centre: str
    name: str
    table: int
    phone: bool
    licence: str
    id: int = 0
    token: str = ""


SEATS = [
    Seat("c1", "Anne Aubert", 1, True, "100201"),
    Seat("c1", "Bruno Bel", 2, False, "100202"),
    Seat("c1", "Chloé Carré", 3, True, "100203"),
    Seat("c2", "Fanny Faure", 1, True, "200301"),
    Seat("c2", "Gaston Gay", 2, False, "200302"),
    Seat("c2", "Hélène Huet", 3, True, ""),  # no licence: her name in her centre
]


@pytest.fixture
def started():
    running: list = []
    yield running
    for item in reversed(running):
        item.stop()


def rack_letters(text: str) -> list[str]:
    return sorted(ch for ch in str(text) if ch.isalpha() or ch == "?")


def choose_slips(number: int, board_rows, rack: str, lexicon, tileset, rules, labelling: str, choose) -> dict:
    """Each seat's slip of the round, from the plays the engine finds on the organiser's board: the top, another
    play, the top with a wrong score (a warning), or a word not in the list; one seat hands in nothing in round 2."""
    plays = sorted(generate_plays(Board.from_rows(board_rows), rack, lexicon, tileset, rules),
                   key=lambda p: (-p.score, p.word, p.row, p.col, p.horizontal))
    top = plays[0]

    def slip(play, score=None, word=None):
        return {"word": word or play.word, "ref": format_ref(play.row, play.col, play.horizontal, labelling),
                "score": play.score if score is None else score}

    out = {}
    for index, seat in enumerate(SEATS):
        if number == 2 and index == 4:
            out[seat.name] = None
            continue
        kind = choose.choice(["top", "other", "other", "wrong_score", "not_a_word"])
        if index == 1:
            kind = "wrong_score"  # a warning every round: more than the free ones by the end
        if kind == "top":
            out[seat.name] = slip(top)
        elif kind == "other":
            out[seat.name] = slip(plays[min(len(plays) - 1, 1 + (index * 7 + number) % 20)])
        elif kind == "wrong_score":
            out[seat.name] = slip(top, score=top.score + 2)
        else:
            out[seat.name] = slip(top, word=NOT_A_WORD)
    return out


def expected_rows(verdicts: dict, tops: list[int], rules, final: bool) -> dict:
    """The merged standings from the verdicts computed here: (centre, name) -> total and rank; warnings' cost
    counted once the game is final (as a room counts it once its game is over). Six players: no solos."""
    assert not (rules.solos and len(SEATS) >= rules.solo_min_players)
    out = {}
    for seat in SEATS:
        row = verdicts[(seat.centre, seat.name)]
        warnings = sum(1 for _, outcome, _ in row if outcome == "warning")
        cost = max(0, warnings - rules.free_warnings) * rules.warning_cost if (rules.warnings and final) else 0
        total = sum(paid for paid, _, _ in row) - cost
        out[(seat.centre, seat.name)] = {"total": total, "diff": total - sum(tops), "warnings": warnings}
    for row in out.values():
        row["rank"] = 1 + sum(1 for other in out.values() if other["total"] > row["total"])
    return out


def test_a_live_multiplex_with_a_link_cut_for_a_round_has_exact_standings_after_each_round(
        tmp_path, started, arbitrator):
    redis = RedisServer.start(tmp_path / "redis")
    started.append(redis)
    centres = {code: Centre(code, name, loopback(n), tmp_path / code)
               for code, name, n in (("c1", "Club de Vichy", 2), ("c2", "Club de Moulins", 3))}
    # Centre 2 reaches the organiser through a forwarder on its own address: the organiser's name in its requests.
    organiser_env = child_env(redis.url, SIGNING_KEY=seed_text(Ed25519PrivateKey.generate()),
                              RELAY_WAIT_SECONDS="20", ALLOWED_HOSTS=f"127.0.0.1,{centres['c2'].host}")
    organiser = WebServer.start(tmp_path, organiser_env, name="organiser")
    started.append(organiser)
    api = "Token " + expect(call("127.0.0.1", organiser.port, "POST", "/api/auth/token",
                                 {"username": arbitrator.username, "password": "secret-password"}), 200)["token"]

    def org(method, path, body=None):
        # A close computes the tops in the request when no worker did: the first one may wait for the compiled
        # search to load (or compile, after the engine changed), far longer than an answer otherwise takes.
        return call("127.0.0.1", organiser.port, method, path, body=body, token=api, timeout=SEARCH_READY)

    # The organiser's own game (its hall's players are its own business here), the event and its centres.
    tournament = expect(org("POST", "/api/tournaments", {"name": "Tours 2026"}), 201)
    game = expect(org("POST", f"/api/tournaments/{tournament['id']}/games", {}), 201)["id"]
    event = events.event_create(name=EVENT, language="fr", actor=arbitrator)
    tokens = {}
    for code, centre in centres.items():
        _, tokens[code] = events.centre_register(event=event, code=code, name=centre.name,
                                                 public_key=centre.public_key())
    opened = expect(org("POST", f"/api/events/{event.pk}/games", {"game": game, "game_id": GAME}), 201)
    assert LogEntry.objects.filter(game_id=game, action="multiplex_open").count() == 1

    # The centres: centre 2 through the forwarder this test can cut.
    forwarder = Forwarder(centres["c2"].host, ("127.0.0.1", organiser.port))
    started.append(forwarder)
    common = {"ORGANISER_EVENT": str(event.pk), "RESULTS_PUSH_FIRST_DELAY": "0.2", "RESULTS_PUSH_MAX_DELAY": "0.5",
              "RESULTS_PUSH_ATTEMPTS": "400", "RELAY_POLL_SECONDS": "1", "RELAY_SILENT_SECONDS": str(SILENT)}
    c1, c2 = centres["c1"], centres["c2"]
    c1.start(ORGANISER_URL=f"http://127.0.0.1:{organiser.port}", ORGANISER_TOKEN=tokens["c1"], **common)
    started.append(c1)
    c2.start(ORGANISER_URL=forwarder.url, ORGANISER_TOKEN=tokens["c2"], **common)
    started.append(c2)
    c1.wait_running()
    c2.wait_running()

    games = {}
    for code, centre in centres.items():
        made = expect(centre("POST", "/api/tournaments", {"name": f"Tours 2026 — {centre.name}"},
                             token=centre.token), 201)
        link = expect(centre("POST", f"/api/tournaments/{made['id']}/relay", {"auto_start": code == "c1"},
                             token=centre.token), 201)
        assert (link["event"], link["game_id"], link["up"]) == (EVENT, GAME, True), link
        games[code] = link["game"]
        for seat in (s for s in SEATS if s.centre == code):
            player = expect(centre("POST", f"/api/games/{games[code]}/players",
                                   {"name": seat.name, "table": seat.table, "licence": seat.licence},
                                   token=centre.token), 201)
            seat.id, seat.token = player["id"], player["token"]

    held = Tournament.objects.get(pk=tournament["id"])  # the organiser's settings, which the centres took
    lexicon, tileset, rules, labelling = get_lexicon(held.lexicon), load_tileset(held.tileset), held.rules, \
        held.coordinates

    def centre_round(code: str, number: int) -> dict | None:
        answer = centres[code]("GET", f"/api/games/{games[code]}/rounds/{number}", token=centres[code].token)
        return answer.json() if answer.status == 200 else None

    def link_of(code: str) -> dict:
        return expect(centres[code]("GET", f"/api/games/{games[code]}/relay", token=centres[code].token), 200)

    def relay_items(code: str) -> list[dict]:
        return expect(call("127.0.0.1", organiser.port, "GET", f"/api/events/{event.pk}/relay?wait=0",
                           token=f"Bearer {tokens[code]}"), 200)["items"]

    def standings() -> dict:
        return expect(org("GET", f"/api/events/{event.pk}/standings"), 200)

    choose = random.Random(20261125)
    verdicts = {(s.centre, s.name): [] for s in SEATS}
    tops: list[int] = []
    down_after = None
    for number in range(1, ROUNDS + 1):
        drawn = expect(org("POST", f"/api/games/{game}/rounds", {}), 201)
        # Drawn, not started: no centre sees it (the relay, and the centres' games, a second later).
        assert not [i for i in relay_items("c1") if i["kind"] == "rack" and i["round"] == number]
        time.sleep(1.5)
        assert centre_round("c1", number) is None and centre_round("c2", number) is None
        if number == CUT:
            cut_at = time.monotonic()
            forwarder.cut()
            assert wait_for(lambda: not link_of("c2")["up"], WAIT, step=0.2), link_of("c2")
            down_after = time.monotonic() - cut_at
            assert link_of("c2")["down_since"]
        expect(org("POST", f"/api/games/{game}/rounds/{number}/start", {}), 200)
        detail = expect(org("GET", f"/api/games/{game}/rounds/{number}"), 200)
        assert rack_letters(detail["rack"]) == rack_letters(drawn["rack"])

        # Centre 1: the rack arrives and its clock starts by itself; centre 2: the rack arrives (or, cut off, is
        # typed from the phone), its arbitrator starts the clock.
        got = wait_for(lambda number=number: centre_round("c1", number), WAIT, step=0.2)
        assert got and rack_letters(got["rack"]) == rack_letters(detail["rack"]), (got, c1.log())
        assert wait_for(lambda number=number: centre_round("c1", number)["status"] == "open", WAIT, step=0.2)
        if number == CUT:
            time.sleep(2 * SILENT)  # the organiser's rack is out: centre 2 still has nothing
            assert centre_round("c2", number) is None
            # Read out over the phone: the draws the organiser rejected first (its kept letters went back into the
            # bag with them), which centre 2's arbitrator records as rejected, then the rack played.
            for record in detail["rejected"]:
                expect(c2("POST", f"/api/games/{games['c2']}/rejections",
                          {"rack": record.lstrip("-").replace("+", "")}, token=c2.token), 201)
            typed = expect(c2("POST", f"/api/games/{games['c2']}/rounds", {"rack": detail["rack"].replace("+", "")},
                              token=c2.token), 201)
            assert typed["typed"] is True
        got = wait_for(lambda number=number: centre_round("c2", number), WAIT, step=0.2)
        assert got and rack_letters(got["rack"]) == rack_letters(detail["rack"]) and got["status"] == "drawn", got
        expect(c2("POST", f"/api/games/{games['c2']}/rounds/{number}/start", {}, token=c2.token), 200)

        # The slips, chosen from the organiser's board and rack, and judged here by the engine.
        slips = choose_slips(number, detail["board"], detail["rack"], lexicon, tileset, rules, labelling, choose)
        for seat in SEATS:
            slip = slips[seat.name]
            if slip is None:
                verdicts[(seat.centre, seat.name)].append((0, "zero", "no_slip"))
                continue
            found = judge_slip(Board.from_rows(detail["board"]), detail["rack"], number,
                               EngineSlip(slip["word"], slip["ref"], slip["score"]), lexicon, tileset, rules,
                               labelling=labelling)
            verdicts[(seat.centre, seat.name)].append((found.paid, found.outcome, found.reason))
            centre = centres[seat.centre]
            path = f"/api/games/{games[seat.centre]}/rounds/{number}/slips"
            if seat.phone:
                expect(centre("POST", path, {**slip, "key": f"r{number}-{seat.table}", "seq": 1},
                              token=f"Bearer {seat.token}"), 201)
            else:
                expect(centre("POST", path, {**slip, "table": seat.table}, token=centre.token), 201)

        # The organiser closes first (its round started first), then each centre.
        expect(org("POST", f"/api/games/{game}/rounds/{number}/close", {}), 200)
        master = expect(org("GET", f"/api/games/{game}/rounds/{number}"), 200)["master"]
        tops.append(master["score"])
        for code, centre in centres.items():
            closed = expect(centre("POST", f"/api/games/{games[code]}/rounds/{number}/close", {}, token=centre.token,
                                   timeout=SEARCH_READY), 200)
            assert closed["closed"] is True, closed

        if number == CUT:
            # Cut off, centre 2's results cannot reach the organiser: it is behind, centre 1 is not.
            assert wait_for(lambda number=number: standings()["reported"][GAME]["c1"] == number, WAIT, step=0.2)
            behind = standings()
            assert behind["behind"] == ["c2"] and behind["reported"][GAME]["c2"] == number - 1, behind
            assert behind["rounds"][GAME] == number
            forwarder.restore()
            assert wait_for(lambda: link_of("c2")["up"], WAIT, step=0.2), link_of("c2")
            # The organiser's rack, come with the link, is found equal to the one typed; never replaced.
            compared = wait_for(lambda number=number: [r for r in link_of("c2")["racks"] if r["round"] == number
                                         and r["compared"]], WAIT, step=0.2)
            assert [r["compared"] for r in compared] == ["equal"], compared
            assert centre_round("c2", number)["rack"] == typed["rack"]

        # Each centre's board carries the organiser's master before the next rack.
        for code in centres:
            assert wait_for(lambda code=code, number=number, master=master: (centre_round(code, number)["master"] or {}).get("word") == master["word"]
                            and centre_round(code, number)["master"]["ref"] == master["ref"], WAIT, step=0.2), \
                (code, centre_round(code, number)["master"], master)

        # The organiser's merged standings, now: both centres' rounds so far, exact.
        final = number == ROUNDS
        if final:
            expect(org("POST", f"/api/games/{game}/end", {}), 200)
            for code, centre in centres.items():
                expect(centre("POST", f"/api/games/{games[code]}/end", {}, token=centre.token), 200)

        def caught_up(final=final, number=number):
            merged = standings()
            return (merged["reported"][GAME] == {"c1": number, "c2": number}
                    and (not final or not merged["unfinished"])) and merged

        merged = wait_for(caught_up, WAIT, step=0.2)
        assert merged, (standings(), c1.log(), c2.log())
        assert merged["behind"] == [] and merged["sum_tops"] == sum(tops)
        want = expected_rows(verdicts, tops, rules, final)
        got_rows = {(row["centre"], row["name"]): {"total": row["total"], "diff": row["diff"],
                                                   "warnings": row["warnings"], "rank": row["rank"]}
                    for row in merged["rows"]}
        assert got_rows == want, (number, got_rows, want)
        assert merged["provisional"] is not final
    assert down_after is not None and down_after <= SILENT + 10
    print(f"centre 2's console told the link was down {down_after:.1f} s after the cut "
          f"(ARBITER_RELAY_SILENT_SECONDS={SILENT})")
    assert {v[1] for row in verdicts.values() for v in row} >= {"ok", "warning", "zero"}
    assert opened["relay"] and opened["game_id"] == GAME
