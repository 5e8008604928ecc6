"""What the API refuses in a body, on every endpoint: JSON nested too deep (400 too_deep), a body above the
upload limit (413 too_large), a value of the wrong JSON type (400 invalid: integers are JSON integers,
text is a JSON string, flags are true or false); and a body sent in chunks (no Content-Length), read whole
under uvicorn. Always in the error shape, never a 500 or Django's HTML page."""

from __future__ import annotations

import http.client
import json

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from tournaments.api import fast
from tournaments.models import Game, LateSlip, LogEntry, Player, Round, Slip, Tournament

from .api_support import assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = pytest.mark.usefixtures("isolated_cache")

MODELS = (Tournament, Game, Player, Round, Slip, LateSlip, LogEntry)
SLIP = {"word": "TARES", "ref": "H4", "score": 12, "key": "k1"}
VERY_DEEP = "[" * 20_000 + "]" * 20_000  # RecursionError in a plain json.loads


def counts() -> dict:
    return {model.__name__: model.objects.count() for model in MODELS}


def nested(levels: int) -> str:
    """A JSON object nested ``levels`` deep: {"a": {"a": ... {} ...}}."""
    return '{"a":' * (levels - 1) + "{}" + "}" * (levels - 1)


@pytest.fixture
def table(api_game):
    """A game with two players, round 1 closed with a slip and a late slip, round 2 drawn; every POST of
    the API with its caller."""
    game = api_game(players=2)
    a = game.players[0]
    arb = game.arbitrator
    expect(arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    slip = expect(a.client.post(game.round_url(1, "/slips"), SLIP, format="json"), 201)
    expect(arb.post(game.round_url(1, "/close"), {}, format="json"), 200)
    late = expect(arb.post(game.round_url(1, "/slips"), {**SLIP, "player": game.players[1].id, "late": True},
                           format="json"), 201)
    expect(arb.post(game.url("/rounds"), {}, format="json"), 201)
    posts = [
        (APIClient(), "/api/auth/token"),
        (APIClient(), "/api/join"),
        (arb, "/api/tournaments"),
        (arb, f"/api/tournaments/{game.tournament_id}/games"),
        (arb, f"/api/tournaments/{game.tournament_id}/imports/record"),
        (arb, game.url("/players")),
        (arb, game.url("/rejections")),
        (arb, game.url("/rounds")),
        (arb, game.round_url(2, "/start")),
        (a.client, game.round_url(2, "/slips")),
        (arb, game.round_url(2, "/close")),
        (arb, game.round_url(1, "/master")),
        (arb, game.round_url(1, f"/slips/{slip['id']}/correct")),
        (arb, game.round_url(1, f"/late/{late['id']}/admit")),
        (arb, game.url("/end")),
    ]
    return game, posts


def test_json_nested_too_deep_is_refused_on_every_endpoint(table):
    game, posts = table
    before = counts()
    for client, path in posts:
        for body in (VERY_DEEP, nested(33)):
            error = assert_error(client.post(path, body, content_type="application/json"), 400, "too_deep")
            assert "32" in error["message"], (path, error)
    assert counts() == before
    # 32 levels are not refused for their depth (no valid body needs them: the fields say what is wrong).
    for client, path in posts[1:3]:
        assert_error(client.post(path, nested(32), content_type="application/json"), 400, "invalid")


def test_the_deepest_valid_body_is_far_from_the_nesting_limit(table):
    """A game record, the API's most nested body, is imported again: its depth is nowhere near 32."""
    from tournaments.api.parsers import MAX_DEPTH, depth

    game, _ = table
    record = json.loads(game.arbitrator.get(game.url("/exports/record.json")).content)
    assert depth(record) <= 5 < MAX_DEPTH


def test_a_body_above_the_upload_limit_gets_413_in_the_error_shape(table):
    game, posts = table
    before = counts()
    big = json.dumps({"name": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    for client, path in posts:
        if path.endswith("/imports/record"):
            # A game record has a cap of its own (MAX_RECORD_BYTES): read, and refused for what it says.
            assert_error(client.post(path, big, content_type="application/json"), 400, "bad_record")
            continue
        assert_error(client.post(path, big, content_type="application/json"), 413, "too_large")
    assert counts() == before


# ---- types ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**SLIP, "score": "12"}, "score"),
        ({**SLIP, "score": 12.0}, "score"),
        ({**SLIP, "score": True}, "score"),
        ({**SLIP, "seq": "5"}, "seq"),
        ({**SLIP, "seq": 5.0}, "seq"),
        ({**SLIP, "word": 0}, "word"),
        ({**SLIP, "ref": 4}, "ref"),
        ({**SLIP, "key": 1}, "key"),
    ],
)
def test_a_slip_field_of_the_wrong_json_type_is_refused(api_game, body, field):
    game = api_game(players=1)
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)
    before = counts()
    error = assert_error(game.players[0].client.post(game.round_url(1, "/slips"), body, format="json"), 400,
                         "invalid")
    assert list(error["fields"]) == [field], error
    assert counts() == before


@pytest.mark.parametrize(
    ("tail", "body", "field"),
    [
        ("/players", {"name": 0}, "name"),
        ("/players", {"name": "Ann", "table": "3"}, "table"),
        ("/players", {"name": "Ann", "table": 3.0}, "table"),
        ("/players", {"name": "Ann", "series": 1}, "series"),
        ("/rounds", {"rack": 7}, "rack"),
        ("/rejections", {"rack": ["A"]}, "rack"),
        ("/slips", {**SLIP, "player": "1"}, "player"),
        ("/slips", {**SLIP, "player": 1, "late": "yes"}, "late"),
        ("/slips", {**SLIP, "player": 1, "late": 1}, "late"),
    ],
)
def test_a_set_up_field_of_the_wrong_json_type_is_refused(api_game, tail, body, field):
    game = api_game(players=1)
    if tail == "/slips":
        expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
        expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)
        tail = "/rounds/1/slips"
    before = counts()
    error = assert_error(game.arbitrator.post(game.url(tail), body, format="json"), 400, "invalid")
    assert list(error["fields"]) == [field], error
    assert counts() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 1}, "name"),
        ({"name": "T", "round_seconds": "60"}, "round_seconds"),
        ({"name": "T", "round_seconds": 60.0}, "round_seconds"),
        ({"name": "T", "tileset": 0}, "tileset"),
        ({"name": "T", "lexicon": 6}, "lexicon"),
        ({"name": "T", "rules": {"solo_bonus": "10"}}, "rules"),
        ({"name": "T", "rules": {"solo_bonus": 10.0}}, "rules"),
        ({"name": "T", "rules": {"solo_bonus": 100_000}}, "rules"),
        ({"name": "T", "rules": {"solos": "yes"}}, "rules"),
        ({"name": "T", "rules": {"solos": 1}}, "rules"),
    ],
)
def test_a_tournament_field_of_the_wrong_json_type_is_refused(arbitrator_client, body, field):
    error = assert_error(arbitrator_client.post("/api/tournaments", body, format="json"), 400, "invalid")
    assert list(error["fields"]) == [field], error
    assert not Tournament.objects.exists()


def test_other_fields_of_the_wrong_json_type_are_refused(table):
    game, _ = table
    arb = game.arbitrator
    slip = Slip.objects.get(round__game_id=game.id, round__number=1)
    late = LateSlip.objects.get(round__game_id=game.id)
    before = counts()
    cases = [
        (APIClient(), "/api/join", {"join_code": 123456, "name": "Ann"}, "join_code"),
        (APIClient(), "/api/join", {"join_code": game.join_code, "name": 0}, "name"),
        (APIClient(), "/api/auth/token", {"username": 1, "password": "x"}, "username"),
        (arb, f"/api/tournaments/{game.tournament_id}/games", {"seed": "1"}, "seed"),
        (arb, f"/api/tournaments/{game.tournament_id}/games", {"seed": True}, "seed"),
        (arb, game.round_url(1, f"/slips/{slip.pk}/correct"), {"score": "3", "reason": "r"}, "score"),
        (arb, game.round_url(1, f"/slips/{slip.pk}/correct"), {"reason": 5}, "reason"),
        (arb, game.round_url(1, "/master"), {"word": 1, "ref": "H4"}, "word"),
        (arb, game.round_url(1, f"/late/{late.pk}/admit"), {"reason": 0}, "reason"),
    ]
    for client, path, body, field in cases:
        error = assert_error(client.post(path, body, format="json"), 400, "invalid")
        assert list(error["fields"]) == [field], (path, error)
    assert counts() == before


def test_bodies_that_are_not_json_objects_are_refused_even_where_nothing_is_read(table):
    game, posts = table
    before = counts()
    for client, path in posts:
        if path.endswith("/imports/record"):
            continue  # a game record has its own reader (tests/tournaments/test_exports.py)
        for body in ("null", "[]", '"{}"', "7"):
            assert_error(client.post(path, body, content_type="application/json"), 400, "invalid")
    assert counts() == before


def test_error_values_are_of_the_documented_types(api_game, settings):
    """ErrorDetail.fields in /api/schema/: lists of messages, and seconds (too_soon, an integer), late_by
    (round_closed, a number), slip (stale_slip, the Slip held)."""
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 20
    game = api_game(players=1)
    a, arb = game.players[0], game.arbitrator
    expect(arb.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(arb.post(game.round_url(1, "/start"), {}, format="json"), 200)
    url = game.round_url(1, "/slips")
    held = expect(a.client.post(url, {**SLIP, "seq": 2}, format="json"), 201)
    stale = assert_error(a.client.post(url, {**SLIP, "key": "k0", "seq": 1}, format="json"), 409, "stale_slip")
    assert stale["fields"]["slip"] == {k: v for k, v in held.items() if k not in ("replayed", "replaced", "receipt")}
    assert all(isinstance(text, str) for text in stale["fields"]["seq"])
    expect(arb.post(game.round_url(1, "/close"), {}, format="json"), 200)
    closed = assert_error(a.client.post(url, {**SLIP, "key": "k9"}, format="json"), 409, "round_closed")
    assert isinstance(closed["fields"]["late_by"], int | float) and not isinstance(closed["fields"]["late_by"], bool)
    soon = assert_error(arb.post(game.url("/rounds"), {}, format="json"), 409, "too_soon")
    assert type(soon["fields"]["seconds"]) is int and 0 < soon["fields"]["seconds"] <= 20


# ---- under uvicorn: chunked bodies, declared sizes -------------------------------------------------------


def send(address, path: str, chunks: list[bytes] | None = None, *, token: str | None = None,
         declared: int | None = None, body: bytes = b"") -> tuple[int, dict]:
    """POST over HTTP/1.1: the chunks as a chunked body (no Content-Length), or a declared Content-Length
    and ``body`` (none at all: the server must answer from the headers). (status, JSON body)."""
    conn = http.client.HTTPConnection(*address, timeout=20)
    try:
        conn.putrequest("POST", path, skip_accept_encoding=True)
        conn.putheader("Content-Type", "application/json")
        if token:
            conn.putheader("Authorization", f"Bearer {token}")
        if declared is not None:
            conn.putheader("Content-Length", str(declared))
            conn.endheaders()
            if body:
                conn.send(body)
        else:
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders()
            for chunk in chunks or []:
                conn.send(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            conn.send(b"0\r\n\r\n")
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def in_pieces(body: dict | str, size: int = 7) -> list[bytes]:
    data = (body if isinstance(body, str) else json.dumps(body)).encode()
    return [data[i:i + size] for i in range(0, len(data), size)]


@pytest.fixture
def open_table(make_game, make_player):
    from tournaments import services

    game = make_game()
    player, token = make_player(game, "Ann")
    services.round_start(round=services.round_draw(game=game, rack="ACEILMN"))
    return game, player, token


def test_a_chunked_slip_is_read_whole_on_the_fast_path_and_through_django(uvicorn_server, open_table):
    game, player, token = open_table
    path = f"/api/games/{game.pk}/rounds/1/slips"
    before = fast.served["fast"]
    status, body = send(uvicorn_server, path, in_pieces({"word": "MELANIC", "ref": "H4", "score": 78,
                                                         "key": "c1"}), token=token)
    assert (status, body["word"], body["score"], fast.served["fast"] - before) == (201, "MELANIC", 78, 1)
    # Unusual (spaces around the word): Django answers it, from the same chunked body.
    status, body = send(uvicorn_server, path, in_pieces({"word": " CLAIM ", "ref": "8H", "key": "c2"}),
                        token=token)
    assert (status, body["word"], fast.served["fast"] - before) == (201, "CLAIM", 1)
    assert list(Slip.objects.filter(player=player).order_by("id").values_list("word", flat=True)) == [
        "MELANIC", "CLAIM"]
    # Nested too deep, chunked: 400 from either path, never a 500.
    status, body = send(uvicorn_server, path, in_pieces(VERY_DEEP, 4096), token=token)
    assert (status, body["error"]["code"]) == (400, "too_deep")


def test_a_chunked_join_is_read_whole(uvicorn_server, open_table):
    game, _, _ = open_table
    status, body = send(uvicorn_server, "/api/join", in_pieces({"join_code": game.join_code, "name": "Bea"}, 3))
    assert status == 201 and Player.objects.get(pk=body["id"]).name == "Bea"


def test_bodies_above_the_limit_are_refused_413_before_they_are_read(uvicorn_server, open_table):
    game, _, token = open_table
    path = f"/api/games/{game.pk}/rounds/1/slips"
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    # Declared above the limit: answered at once, nothing of the body sent.
    status, body = send(uvicorn_server, path, token=token, declared=limit + 1)
    assert (status, body["error"]["code"]) == (413, "too_large")
    # Chunked past the limit: refused as soon as it is.
    piece = b" " * 65_536
    status, body = send(uvicorn_server, path, [piece] * (limit // len(piece) + 2), token=token)
    assert (status, body["error"]["code"]) == (413, "too_large")
    assert not Slip.objects.exists()
    # A game record to import has its own cap (a festival's record passes 2.5 MB).
    from tournaments.sheets.views import MAX_RECORD_BYTES

    tournament = game.tournament_id
    status, body = send(uvicorn_server, f"/api/tournaments/{tournament}/imports/record", token=token,
                        declared=MAX_RECORD_BYTES + 1)
    assert (status, body["error"]["code"]) == (413, "too_large")
    record = b'{"format": "' + b"x" * limit + b'"}'
    status, body = send(uvicorn_server, f"/api/tournaments/{tournament}/imports/record", token=token,
                        declared=len(record), body=record)
    assert status == 403  # read whole, then refused for who sent it (a player, not an arbitrator)


def test_requests_django_refuses_before_any_view_are_json_under_api(rf):
    """With DEBUG off, Django's own 400 (a body above DATA_UPLOAD_MAX_MEMORY_SIZE read by a middleware, a
    host not allowed) is the error shape under /api/ and a page elsewhere."""
    from django.core.exceptions import DisallowedHost, RequestDataTooBig

    from tournaments.api.exceptions import handler400

    answer = handler400(rf.post("/api/join"), RequestDataTooBig("too big"))
    assert answer.status_code == 413 and json.loads(answer.content)["error"]["code"] == "too_large"
    answer = handler400(rf.get("/api/games/1"), DisallowedHost("evil.example"))
    assert answer.status_code == 400 and json.loads(answer.content)["error"]["code"] == "bad_request"
    page = handler400(rf.get("/join"), DisallowedHost("evil.example"))
    assert page.status_code == 400 and not page["Content-Type"].startswith("application/json")
