"""Every operation of /api/schema/, fuzzed by schemathesis against a live server of the project (uvicorn on
the test database, a redis-server of its own: tests/tournaments/stack.py).

For each operation schemathesis sends the schema's examples, the boundary values of every field (the
coverage phase: both valid and invalid data, and methods the path does not have) and generated bodies and
parameters, valid and invalid. Every answer must be:

- never a 5xx (not_a_server_error);
- as documented: a status the operation lists, its content type, its body's schema, its headers
  (status_code_conformance, content_type_conformance, response_schema_conformance,
  response_headers_conformance);
- an acceptance of what the schema calls valid: a schema-valid request is never refused as bad input
  (positive_data_acceptance: 2xx, or 401/403/404/409/429 for who is asking and what the game's state
  allows), a schema-invalid one is refused (negative_data_rejection), a request without credentials is
  refused where they are needed (ignored_auth), and a method the path does not have answers 405 with
  Allow (unsupported_method).

Each operation runs in a game set up for it (an open round for the slips, a closed one with a slip and a
late slip for the master, corrections and admissions), as the player or arbitrator who may call it. The
live server's rate limits are raised (tests/tournaments/schema_server_settings.py); 429 stays documented.
The generation is deterministic (a fixed seed): a failure is reproduced by running the test again.

Run alone: ``pytest -m schema`` with DATABASE_URL and REDIS_URL set, as in CI; it prints the number of
requests sent. Skipped on the embedded default (the live server needs a database it can share).
"""

from __future__ import annotations

import re
import shutil
import uuid
from collections import Counter
from dataclasses import dataclass

import hypothesis
import pytest
import schemathesis
from django.conf import settings
from django.db import connection

from tournaments import events, services
from tournaments.models import RecordImport

from .stack import RedisServer, WebServer, child_env, request

if connection.vendor != "postgresql" or not settings.BROKER.redis_url:
    pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): the live server runs on the test database",
                allow_module_level=True)
if shutil.which("redis-server") is None and not settings.REQUIRE_SERVICES:
    pytest.skip("needs the redis-server program (a private Redis for the live server)", allow_module_level=True)

pytestmark = [pytest.mark.schema, pytest.mark.django_db(transaction=True)]

MAX_EXAMPLES = 30  # generated requests per operation in the fuzzing phase (the coverage phase adds its own)
REQUEST_SECONDS = 10.0  # no answer within this fails the request (a hang, never a slow CI machine)
SEED = 20240607
RACK = "ACEILMN"
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "positive_data_acceptance",
    "unsupported_method",
    "ignored_auth",
    "negative_data_rejection",
)

# What positive_data_acceptance takes as accepted (its default): 2xx, or a refusal for who is asking (401,
# 403), what exists (404), the game's state (409) or a rate limit (429); 5xx are not_a_server_error's.
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]
sent: Counter = Counter()  # requests sent, by operation and by status class


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory, request_counts):
    folder = tmp_path_factory.mktemp("schema")
    redis = RedisServer.start(folder / "redis")
    web = None
    try:
        env = child_env(redis.url, DJANGO_SETTINGS_MODULE="tests.tournaments.schema_server_settings")
        web = WebServer.start(folder, env)
        yield web
    finally:
        if web is not None:
            web.stop()
        redis.stop()


@pytest.fixture(scope="module")
def request_counts(pytestconfig):
    """After the module: how many requests schemathesis sent, by status class (printed in the summary)."""
    yield sent
    total = sum(count for key, count in sent.items() if key.startswith("status "))
    classes = ", ".join(f"{key.split()[1]}: {count}" for key, count in sorted(sent.items())
                        if key.startswith("status "))
    line = f"schemathesis: {total} requests sent to {sent['operations']} operations ({classes})"
    reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    capture = pytestconfig.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:  # a pytest-xdist worker: its output is not shown
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(line)


@dataclass
class Arena:
    """What the operations act on, made through the services; tokens as the API gives them."""

    tournament: int
    game: int  # round 1 open for an hour: slips, live, progress...
    closed_game: int  # round 1 closed: a slip, a late slip, tops to choose the master from
    slip: int
    late: int
    player: int
    player_token: str
    arbitrator_token: str
    job: str  # a record import played back by the worker, sent by the arbitrator
    event: int = 0  # a simultaneous event the arbitrator organises
    centre_token: str = ""  # the push token of one of its centres


@pytest.fixture
def arena(server, make_tournament, make_game, make_player, arbitrator, isolated_cache) -> Arena:
    tournament = make_tournament(round_seconds=3600)
    game = make_game(tournament=tournament)
    (ann, ann_token), _ = make_player(game, "Ann", table=1), make_player(game, "Bob", table=2)
    services.round_start(round=services.round_draw(game=game, rack=RACK))
    closed_game = make_game(tournament=tournament, seed=2)
    round_ = services.round_start(round=services.round_draw(game=closed_game, rack=RACK))
    slip, _ = services.slip_submit(round=round_, player=ann, word="MELANIC", ref="H4", score=78, key="k1")
    services.round_close(round=round_)
    late = services.slip_enter_late(round=round_, player=ann, word="CLAIM", ref="H4", score=20, actor=arbitrator)
    answer = request(server.port, "POST", "/api/auth/token",
                     {"username": arbitrator.username, "password": "secret-password"})
    assert answer.status == 200, answer
    job = RecordImport.objects.create(id=uuid.uuid4(), tournament=tournament, actor=arbitrator,
                                      status=RecordImport.Status.DONE, game=closed_game)
    event = events.event_create(name="Schema event", actor=arbitrator)
    _, centre_token = events.centre_register(event=event, code="C1")
    return Arena(tournament.pk, game.pk, closed_game.pk, slip.pk, late.pk, ann.pk, ann_token,
                 answer.json()["token"], str(job.pk), event.pk, centre_token)


CLOSED = re.compile(r"^/api/games/\{game_id\}/rounds/\{number\}/(master|slips/\{slip_id\}/correct|late/\{late_id\}/admit)$")
MINE = re.compile(r"^/api/games/\{game_id\}/(me|rounds/\{number\}/slips)$")
PUBLIC = re.compile(r"^/api/(join|auth/token|games/\{game_id\}/(standings|live)|tournaments/\{tournament_id\}/standings"
                    r"|public/\{key\})$")


def who_and_where(arena: Arena, path: str) -> tuple[dict, dict]:
    """(headers, path parameters) of an operation: who calls it, on which game, round, slip..."""
    parameters = {"game_id": arena.closed_game if CLOSED.match(path) else arena.game, "number": 1,
                  "tournament_id": arena.tournament, "player_id": arena.player, "slip_id": arena.slip,
                  "late_id": arena.late, "job_id": arena.job, "event_id": arena.event,
                  "key": "no-such-public-link"}  # a link no one turned on: 404, as a link turned off
    if path == "/api/events/{event_id}/results":  # a centre pushes with its token
        return {"Authorization": f"Bearer {arena.centre_token}"}, parameters
    if PUBLIC.match(path):
        return {}, parameters
    if MINE.match(path):
        return {"Authorization": f"Bearer {arena.player_token}"}, parameters
    return {"Authorization": f"Token {arena.arbitrator_token}"}, parameters


def served_schema() -> dict:
    """The schema /api/schema/ serves, written by the same generator in this process."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


schema = schemathesis.openapi.from_dict(served_schema(), config=schemathesis.Config.from_dict({
    "seed": SEED,
    "suppress-health-check": ["all"],
    "request-timeout": REQUEST_SECONDS,
    "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "deterministic": True, "database": "none",
                   "with-security-parameters": False},
    "phases": {"stateful": {"enabled": False}},
    "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
    "operations": [
        # Well-formed credentials need not exist: unknown ones are refused 400 bad_credentials (schemathesis
        # grants token endpoints the same allowance when a schema names them as such).
        {"include-path": "/api/auth/token", "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        # A game record is valid when its moves replay, which no schema can say: a well-formed object
        # that is not a record of this server is refused 400 bad_record.
        {"include-path": "/api/tournaments/{tournament_id}/imports/record",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        # A sealed pack is valid when its organiser signed it, and a pack's key when its check matches and it
        # opens the pack, which no schema can say: refused 400 (bad_pack, pack_altered..., bad_pack_key...).
        {"include-path": "/api/tournaments/{tournament_id}/packs",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        {"include-path": "/api/games/{game_id}/pack/unlock",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        # A player's federation identity is checked against the federation's lists, which are data
        # (tournaments/data/federation.toml: the series and the age categories), and a date of birth against
        # today (not in the future, not before 1900), which no schema can say: refused 400 (bad_series,
        # bad_category, bad_birth_date, bad_licence).
        # A centre's results file is valid when its centre signed it for this event's unlocked game, which no
        # schema can say: refused 400 (bad_results, results_altered, results_forged...).
        {"include-path": "/api/events/{event_id}/results",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        {"include-path": "/api/games/{game_id}/players",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        # A slip's word is written with its tournament's tile set, which no schema can say: the word's pattern
        # admits every shipped set's labels (Ñ, L·L, [CH]), and a word with a tile this game's set lacks is
        # refused 400 bad_word ("no tile for Ñ in this set").
        {"include-path": "/api/games/{game_id}/rounds/{number}/slips",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        {"include-path": "/api/games/{game_id}/rounds/{number}/slips/{slip_id}/correct",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        # A tournament's tile set must write its word list's words, which no schema can say: TWL06 with the
        # Italian set is refused 400 tileset_mismatch, stating the share of words it cannot write.
        {"include-path": "/api/tournaments", "include-method": "POST",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
        {"include-path": "/api/tournaments/{tournament_id}", "include-method": "PATCH",
         "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED + ["400"]}}},
    ],
}))


@schema.parametrize()
@pytest.mark.parametrize("seed", [SEED])  # with the operation, names each test (pytest 9.2 ids)
@hypothesis.settings(deadline=REQUEST_SECONDS * 1000)
def test_every_operation_answers_as_documented(case, seed, server, arena):
    headers, parameters = who_and_where(arena, case.operation.path)
    if case.path_parameters:
        case.path_parameters = {name: parameters[name] for name in case.path_parameters}
    base_url = f"http://127.0.0.1:{server.port}"
    response = case.call(base_url=base_url, headers=headers)
    sent[f"status {response.status_code // 100}xx"] += 1
    if case.operation.label not in sent:
        sent[case.operation.label] = 1
        sent["operations"] += 1
    case.validate_response(response, headers=headers, transport_kwargs={"base_url": base_url, "headers": headers})
