"""Roles, deny by default: every operation of the application (each URL of the API, the sheets and exports,
the console and the pages), called by seven callers, answers as its role allows, and a refused call changes
nothing.

The callers: nobody (no credentials), this game's player, another tournament's player, a bad token, an
assistant of this game, a staff user with no role in it (the head of another tournament), and this game's
head. The game has its roles recorded, a closed round with a slip and a late slip, and an open round with a
slip handed in.

The URL patterns are read from the resolver: an operation added without a line in ``MATRIX`` fails
``test_every_operation_is_in_the_matrix``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from tournaments import events, services
from tournaments.errors import Forbidden, ServiceError
from tournaments.event_models import Event
from tournaments.models import (
    Game,
    GameArbitrator,
    LateSlip,
    Lexicon,
    LogEntry,
    Player,
    Result,
    Round,
    Slip,
    Tournament,
)
from tournaments.security import issue_api_token
from tournaments.services import training_set

CALLERS = ("anonymous", "player", "other_player", "bad_token", "assistant", "no_role", "head")

# Who may pass the gate of an operation.
PUBLIC = "public"  # anyone: the page or answer does not depend on a role (phones, projector, join, live)
STAFF = "staff"  # any arbitrator (staff user): their own tokens, a new tournament, a word list
T_ARB = "tournament arbitrator"  # a role in one of the tournament's games
T_HEAD = "tournament head"  # a head's role in one of the tournament's games
G_ARB = "game arbitrator"  # head or assistant of the game
G_HEAD = "game head"  # the game's head
G_ARB_PLAYER = "game arbitrator or player"  # head, assistant, or a player of the game
PLAYER = "player"  # a player of the game only
ANY_HEAD = "any head"  # a head arbitrator of some game, or an event's recorded organiser
EVENT_HEAD = "event organiser"  # an organiser of the simultaneous event (tournaments/events.py)
CENTRE = "centre"  # a centre of the event, by its push token: none of these callers

ALLOWED = {
    PUBLIC: set(CALLERS),
    STAFF: {"assistant", "no_role", "head"},
    T_ARB: {"assistant", "head"},
    T_HEAD: {"head"},
    G_ARB: {"assistant", "head"},
    G_HEAD: {"head"},
    G_ARB_PLAYER: {"player", "assistant", "head"},
    PLAYER: {"player"},
    ANY_HEAD: {"head", "no_role"},  # no_role is the head of another tournament's game
    EVENT_HEAD: {"head"},
    CENTRE: set(),
}


@dataclass(frozen=True)
class Op:
    method: str
    level: str
    round: str = "open"  # the round named by ``number``: "open" (in play) or "closed" (with slip, late slip)
    body: dict | None = None
    signs_out: bool = False  # its answer is the way to the login page, for everyone


def op(method: str, level: str, **kwargs) -> Op:
    return Op(method, level, **kwargs)


# Every operation: URL name -> the methods it answers, each with who may call it.
MATRIX: dict[str, tuple[Op, ...]] = {
    # The API.
    "api-auth-token": (op("POST", PUBLIC),),
    "api-tournaments": (op("POST", STAFF),),
    "api-tournament-games": (op("POST", T_HEAD, body={"seed": 5}),),
    "api-tournament-packs": (op("POST", T_HEAD, body={"pack": "not a pack"}),),
    "api-game-pack": (op("GET", G_ARB),),  # 404 to those allowed: this game is not played from a pack
    "api-game-pack-unlock": (op("POST", G_HEAD, body={"key": "ABCD"}),),
    "api-tournament-standings": (op("GET", PUBLIC),),
    "api-event-results": (op("POST", CENTRE, body={"format": "not a results file"}),),
    "api-event-standings": (op("GET", EVENT_HEAD),),
    "api-event-relay": (op("GET", CENTRE),),  # a multiplex's relay: a centre's push token only
    "api-event-games": (op("POST", EVENT_HEAD, body={"game": 1, "game_id": "no such id!"}),),  # 400 when allowed
    "api-tournament-relay": (op("POST", T_HEAD, body={"auto_start": False}),),  # 409 relay_none: no organiser set
    "api-game-relay": (op("GET", G_ARB), op("POST", G_HEAD, body={"auto_start": True})),  # 409: follows none
    "api-join": (op("POST", PUBLIC),),
    "api-game": (op("GET", G_ARB_PLAYER), op("DELETE", G_HEAD)),
    "api-game-archive": (op("POST", G_HEAD, body={"archived": True}),),
    "api-tournament": (op("PATCH", T_HEAD, body={"name": "Roles renamed"}), op("DELETE", T_HEAD)),
    "api-game-players": (op("POST", G_ARB, body={"name": "Newcomer", "table": 9}),),
    "api-game-standings": (op("GET", PUBLIC),),
    "api-game-progress": (op("GET", G_ARB),),
    "api-game-live": (op("GET", PUBLIC),),
    "api-game-me": (op("GET", PLAYER),),
    "api-game-end": (op("POST", G_HEAD),),
    "api-rounds": (op("POST", G_HEAD),),
    "api-rack-reject": (op("POST", G_HEAD, body={"rack": "BCDFGHJ"}),),
    "api-round": (op("GET", G_ARB_PLAYER), op("GET", G_ARB_PLAYER, round="closed")),
    "api-round-start": (op("POST", G_HEAD),),
    "api-round-close": (op("POST", G_HEAD),),
    "api-round-master": (op("POST", G_HEAD, round="closed", body={"word": "MELANIC", "ref": "H6"}),),
    "api-round-complete": (op("POST", G_ARB, round="closed"),),
    "api-round-slips": (op("POST", G_ARB_PLAYER, body={"word": "CLAIMED", "ref": "H4", "key": "matrix-1"}),),
    "api-round-pause": (op("POST", G_HEAD, body={"reason": "noise"}),),
    "api-round-resume": (op("POST", G_HEAD),),
    "api-round-extend": (op("POST", G_HEAD, body={"extra_seconds": 30, "reason": "noise"}),),
    "api-round-cancel": (op("POST", G_HEAD, body={"reason": "wrong bag"}),),
    "api-round-rack": (op("POST", G_HEAD, body={"rack": "AEINRST", "reason": "typo"}),),
    "api-game-arbitrators": (op("GET", G_ARB), op("POST", G_HEAD, body={"user": "matrix-other", "role": "head"})),
    "api-game-training": (op("POST", G_HEAD, body={"open": "everyone"}),),
    "api-slip-correct": (op("POST", G_ARB, round="closed", body={"word": "MELANIC", "reason": "misread"}),),
    "api-late-admit": (op("POST", G_HEAD, round="closed", body={"reason": "the venue's wifi"}),),
    "api-receipt-check": (op("POST", G_ARB, body={"slip": 1}),),
    # Sheets and exports.
    "sheet-game-solutions": (op("GET", G_ARB),),
    "sheet-game-standings": (op("GET", G_ARB),),
    "sheet-game-record": (op("GET", G_ARB),),
    "sheet-game-scoresheets": (op("GET", G_ARB),),
    "sheet-player-scoresheet": (op("GET", G_ARB),),
    "sheet-tournament-standings": (op("GET", T_ARB),),
    "export-standings-csv": (op("GET", G_ARB),),
    "export-results": (op("GET", G_ARB),),
    "export-record": (op("GET", G_ARB),),
    "import-record": (op("POST", T_HEAD, body={"format": "not a record"}),),
    "import-record-job": (op("GET", STAFF),),  # their own imports only: anyone else's is 404
    # The console.
    "console-login": (op("GET", PUBLIC),),
    "console-logout": (op("POST", PUBLIC, signs_out=True),),
    "console-home": (op("GET", STAFF),),
    "console-tournament-create": (op("POST", STAFF),),
    "console-tournament": (op("GET", T_ARB),),
    "console-tournament-edit": (op("GET", T_HEAD), op("POST", T_HEAD, body={"name": "Roles renamed"})),
    "console-tournament-delete": (op("GET", T_HEAD), op("POST", T_HEAD)),
    "console-game-delete": (op("GET", G_HEAD), op("POST", G_HEAD)),
    "console-game-archive": (op("POST", G_HEAD, body={"archived": "1"}),),
    "console-game-create": (op("POST", T_HEAD, body={"seed": "5"}),),
    "console-lexicon-import": (op("GET", STAFF),),
    "console-record-import": (op("GET", T_HEAD),),
    "console-pack-import": (op("GET", T_HEAD), op("POST", T_HEAD)),
    "console-pack": (op("GET", G_ARB),),  # 404 to those allowed: this game is not played from a pack
    "console-pack-unlock": (op("POST", G_HEAD, body={"key": "ABCD"}),),
    "console-trusted-keys": (op("GET", STAFF), op("POST", ANY_HEAD, body={"key": "0"})),  # no such key: 404
    "console-results-file": (op("GET", G_ARB),),  # 404 to those allowed: this game is not played from a pack
    "console-results-file-download": (op("GET", G_ARB),),
    "console-results-file-push": (op("POST", G_HEAD),),
    "console-events": (op("GET", STAFF), op("POST", STAFF, body={"name": ""})),
    "console-event": (op("GET", EVENT_HEAD),),
    "console-event-act": (op("POST", EVENT_HEAD, body={"action": "token"}),),  # no such centre: said on the page
    "console-event-standings": (op("GET", EVENT_HEAD),),
    "console-event-standings-csv": (op("GET", EVENT_HEAD),),
    "console-event-standings-pdf": (op("GET", EVENT_HEAD),),
    "console-event-results-file": (op("GET", EVENT_HEAD),),
    "console-tournament-public": (op("POST", T_HEAD, body={"public": "1"}),),
    "console-event-public": (op("POST", EVENT_HEAD, body={"public": "1"}),),
    "console-import-job": (op("GET", STAFF),),  # their own imports only: anyone else's is 404
    "console-api-tokens": (op("GET", STAFF),),
    "console-api-tokens-revoke-all": (op("GET", STAFF),),
    "console-api-token-revoke": (op("GET", STAFF),),
    "console-game": (op("GET", G_ARB),),
    "console-game-live": (op("GET", G_ARB),),
    "console-relay-auto-start": (op("POST", G_HEAD),),  # the game follows no organiser: said on the page
    "console-relay-follow": (op("POST", T_HEAD),),  # no organiser set: said on the page
    "console-draw": (op("POST", G_HEAD),),
    "console-rack-reject": (op("POST", G_HEAD, body={"rack": "BCDFGHJ"}),),
    "console-game-end": (op("POST", G_HEAD),),
    "console-game-training": (op("POST", G_HEAD, body={"open": "everyone"}),),
    "console-round-start": (op("POST", G_HEAD),),
    "console-round-close": (op("POST", G_HEAD),),
    "console-round-master": (op("POST", G_HEAD, round="closed", body={"word": "MELANIC", "ref": "H6"}),),
    "console-round-pause": (op("POST", G_HEAD, body={"reason": "noise"}),),
    "console-round-resume": (op("POST", G_HEAD),),
    "console-round-extend": (op("POST", G_HEAD, body={"seconds": "30", "reason": "noise"}),),
    "console-round-cancel": (op("POST", G_HEAD, body={"reason": "wrong bag"}),),
    "console-round-rack": (op("POST", G_HEAD, body={"rack": "AEINRST", "reason": "typo"}),),
    "console-arbitrators": (op("GET", G_ARB),),
    "console-arbitrator-set": (op("POST", G_HEAD, body={"user": "matrix-other", "role": "head"}),),
    "console-rounds": (op("GET", G_ARB),),
    "console-round": (op("GET", G_ARB), op("GET", G_ARB, round="closed")),
    "console-standings": (op("GET", G_ARB),),
    "console-players": (op("GET", G_ARB),),
    "console-projector-link-renew": (op("POST", G_HEAD),),
    "console-player-register": (op("POST", G_ARB, body={"name": "Newcomer", "table": "9"}),),
    "console-player-register-list": (op("POST", G_ARB, body={"lines": "9 Newcomer"}),),
    "console-licensees-import": (op("POST", G_ARB),),
    "console-player": (op("GET", G_ARB),),
    "console-player-phone-link": (op("POST", G_HEAD),),
    "console-slips": (op("GET", G_ARB),),
    "console-slips-entered": (op("GET", G_ARB),),
    "console-slip-enter": (op("POST", G_ARB, body={"table": "2", "word": "CLAIMED", "ref": "H4"}),),
    "console-slips-complete": (op("POST", G_ARB, round="closed"),),
    "console-player-table": (op("POST", G_ARB, body={"table": "7"}),),
    "console-slip-correct": (op("POST", G_ARB, body={"word": "MELANIC", "reason": "misread"}),),
    "console-slip-add": (op("POST", G_ARB, round="closed", body={"word": "MELANIC", "reason": "found"}),),
    "console-late-admit": (op("POST", G_HEAD, round="closed", body={"reason": "the venue's wifi"}),),
    "console-late-enter": (op("POST", G_ARB, round="closed", body={"table": "2", "word": "MELANIC", "ref": "H4",
                                                                  "received_at": ""}),),
    "console-log": (op("GET", G_ARB),),
    "console-receipt": (op("GET", G_ARB),),
    # Pages and their feeds: public, or the player's own by their token (their own refusals).
    "home": (op("GET", PUBLIC),),
    "join": (op("GET", PUBLIC),),
    "join-code": (op("GET", PUBLIC),),
    "phone": (op("GET", PUBLIC),),
    "projector": (op("GET", PUBLIC),),
    "projector-standings": (op("GET", PUBLIC),),
    # The club arbitrator's guide and its pictures (docs/club-evening.md): the same for everyone.
    "help": (op("GET", PUBLIC),),
    "help-picture": (op("GET", PUBLIC),),
    # Public results: anyone with the key (the game's screen key here: no such link, 404 to everyone).
    "public-results": (op("GET", PUBLIC),),
    "public-results-game": (op("GET", PUBLIC),),
    "api-public-feed": (op("GET", PUBLIC),),
    "game-live": (op("GET", PUBLIC),),
    "game-events": (op("GET", PUBLIC),),
    "game-mine": (op("GET", PLAYER),),  # the player's own feed, by their token
    "game-review": (op("GET", PUBLIC),),
    "game-review-data": (op("GET", G_ARB_PLAYER),),
    "training": (op("GET", PUBLIC),),
    "training-rounds": (op("GET", PUBLIC),),
    "training-start": (op("POST", PUBLIC),),  # a topping round's start, for the trainee (as training-judge)
    "training-judge": (op("POST", PUBLIC),),
    "training-result": (op("POST", PUBLIC),),
    "training-result-page": (op("GET", PUBLIC),),
}

# Outside the application's own operations: Django's admin (staff, its own login), the schema and its
# viewer, the language switch, the health check.
NOT_OURS = ("admin:", "api-schema", "api-docs", "set_language", "healthz")


def _patterns(resolver: URLResolver, namespace: str = ""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _patterns(entry, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{namespace}{entry.name}", entry


def operation_names() -> set[str]:
    return {name for name, _ in _patterns(get_resolver()) if not name.startswith(NOT_OURS)}


def test_every_operation_is_in_the_matrix():
    names = operation_names()
    assert len(names) > 80, names  # the walk finds the application's URLs
    assert sorted(names - set(MATRIX)) == [], "operations without a line in the roles matrix"
    assert sorted(set(MATRIX) - names) == [], "lines of the matrix naming no operation"


# ---- the world ------------------------------------------------------------------------------------------


@dataclass
class World:
    tournament: Tournament
    game: Game
    open_round: Round
    closed_round: Round
    player: Player
    late: LateSlip
    slip: Slip
    clients: dict
    users: dict
    event: Event | None = None


_counter = itertools.count(1)


def _staff(django_user_model, name: str):
    return django_user_model.objects.create_user(username=name, password="matrix-pass-1", is_staff=True)


def _client(user=None, *, token: str | None = None, bearer: str | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
        token = issue_api_token(user)[0]
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    if bearer is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {bearer}")
    return client


@pytest.fixture
def world(db, django_user_model, make_tournament, isolated_cache) -> World:
    head = _staff(django_user_model, "matrix-head")
    assistant = _staff(django_user_model, "matrix-assistant")
    other = _staff(django_user_model, "matrix-other")  # the head of another tournament
    tournament = make_tournament(name="Roles open", created_by=head)
    game = services.game_create(tournament=tournament, seed=1, actor=head)
    services.arbitrator_set(game=game, username="matrix-head", role="head", actor=head)
    services.arbitrator_set(game=game, username="matrix-assistant", role="assistant", actor=head)
    ann, ann_token = services.player_register(game=game, name="Ann", table=1, actor=head)
    bob, _ = services.player_register(game=game, name="Bob", table=2, actor=head)

    elsewhere = make_tournament(name="Roles elsewhere", created_by=other)
    other_game = services.game_create(tournament=elsewhere, seed=2, actor=other)
    services.arbitrator_set(game=other_game, username="matrix-other", role="head", actor=other)
    _, stranger_token = services.player_register(game=other_game, name="Stranger", table=1, actor=other)

    first = services.round_start(round=services.round_draw(game=game, rack="ACEILMN", actor=head), actor=head)
    slip, _ = services.slip_submit(round=first, player=ann, word="MELANIC", ref="H4", score=78, key="ann-1")
    services.round_close(round=first, actor=head)
    late = services.slip_enter_late(round=first, player=bob, word="CLIMANE", ref="H4", score=None, actor=head)
    second = services.round_start(round=services.round_draw(game=game, actor=head), actor=head)
    services.slip_submit(round=second, player=ann, word="ZZZ", ref="A1", score=None, key="ann-2")
    clients = {
        "anonymous": _client(),
        "player": _client(bearer=ann_token),
        "other_player": _client(bearer=stranger_token),
        "bad_token": _client(token="0" * 64),
        "assistant": _client(assistant),
        "no_role": _client(other),
        "head": _client(head),
    }
    users = {"assistant": assistant, "no_role": other, "head": head}
    event = events.event_create(name="Roles event", actor=head)  # its organiser: the head
    return World(tournament, game, second, first, ann, late, slip, clients, users, event)


def _kwargs(pattern: URLPattern, world: World, which: Op) -> dict:
    round = world.open_round if which.round == "open" else world.closed_round
    values = {
        "game_id": world.game.pk, "tournament_id": world.tournament.pk, "number": round.number,
        "player_id": world.player.pk, "slip_id": world.slip.pk, "late_id": world.late.pk,
        "token_id": "0123456789abcdef", "key": world.game.screen_key, "code": world.game.join_code,
        "token": "not-a-result", "job_id": "00000000-0000-4000-8000-000000000000", "event_id": world.event.pk,
        "name": "projector-join.png",
    }
    return {name: values[name] for name in pattern.pattern.converters}


def fingerprint() -> dict:
    """Everything a call could change: the game's rows, the players (their tokens), the roles, the log."""
    return {model.__name__: list(model.objects.order_by("pk").values())
            for model in (Tournament, Game, Round, Player, Slip, LateSlip, Result, GameArbitrator, LogEntry)}


def _call(client: APIClient, method: str, url: str, body: dict | None, console: bool):
    headers = {"HTTP_ACCEPT": "application/json"} if console else {}
    if method == "GET":
        return client.get(url, **headers)
    if method in ("PATCH", "DELETE"):
        return getattr(client, method.lower())(url, body or {}, format="json")
    if console:
        return client.post(url, body or {}, **headers)
    return client.post(url, body or {}, format="json")


def _refused(response, console: bool, caller: str) -> bool:
    """A refusal of the caller (not an answer about the request's content)."""
    if console and response.status_code == 302:
        return reverse("console-login") in response["Location"]
    return response.status_code in (401, 403)


# The operations of arbitrators (the pages' feeds refuse a caller without their player's token with 401).
ARBITRATED = ("api-", "sheet-", "export-", "import-", "console-")
ROLE_CODES = {"head_only", "not_game_arbitrator", "forbidden", "wrong_game"}
PATTERNS = dict(_patterns(get_resolver()))


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_each_caller_gets_what_its_role_allows(world, name):
    pattern = PATTERNS[name]
    console = name.startswith("console-")
    for which in MATRIX[name]:
        url = reverse(name, kwargs=_kwargs(pattern, world, which))
        allowed = ALLOWED[which.level]
        # The refused callers first, then those allowed (whose calls may change the game).
        for caller in sorted(CALLERS, key=lambda c: c in allowed):
            before = fingerprint()
            response = _call(world.clients[caller], which.method, url, which.body, console)
            status = response.status_code
            assert status < 500, (name, which, caller, status)
            if caller in allowed:
                if which.signs_out:
                    assert status == 302 and reverse("console-login") in response["Location"]
                    continue
                assert not _refused(response, console, caller), (name, which, caller, status, _body(response))
                continue
            assert _refused(response, console, caller), (name, which, caller, status, _body(response))
            if caller in ("no_role", "assistant") and which.level not in (PLAYER, CENTRE) and name.startswith(ARBITRATED):
                # A staff user turned away for their role: 403 with the refusal's code (JSON at the
                # console's scripts and the API).
                assert status == 403, (name, which, caller, status)
                assert response.json()["error"]["code"] in ROLE_CODES, (name, which, caller, _body(response))
            assert fingerprint() == before, (name, which, caller, "a refused call changed the game")


def _body(response) -> str:
    if getattr(response, "streaming", False):
        return "<stream>"
    return response.content[:300].decode("utf-8", "replace")


def test_a_game_in_play_keeps_its_seed_bag_and_open_round_secret(world):
    """The record of a game in play, even for its head: no seed, no bag (the next racks follow from them),
    nothing of the open round's tops or slips; the closed round as usual. Once the game is over, all of it."""
    head = world.clients["head"]
    game = Game.objects.get(pk=world.game.pk)
    answer = head.get(reverse("export-record", args=[game.pk]))
    assert answer.status_code == 200
    text = answer.content.decode("utf-8")
    record = answer.json()
    assert record["game"]["seed"] is None and record["game"]["bag"] is None
    assert game.bag not in text  # nor in the log's entries (a draw logs the bag before it)
    rounds = {row["number"]: row for row in record["rounds"]}
    opened, closed = rounds[world.open_round.number], rounds[world.closed_round.number]
    assert (opened["tops"], opened["master"], opened["top_score"], opened["slips"]) == ([], None, None, [])
    assert '"ZZZ"' not in text  # the slip handed in during the open round
    assert closed["tops"] and [slip["word"] for slip in closed["slips"]] == ["MELANIC"]
    assert record["withheld"] == ["seed", "bag", f"round {world.open_round.number}: tops, master, slips"]
    detail = head.get(f"/api/games/{game.pk}/rounds/{world.open_round.number}").json()
    assert detail["tops"] is None and detail["master"] is None and detail["results"] is None

    services.round_close(round=world.open_round, actor=None)
    services.game_end(game=game, actor=None)
    record = head.get(reverse("export-record", args=[game.pk])).json()
    game.refresh_from_db()
    assert (record["game"]["seed"], record["game"]["bag"]) == (1, game.bag) and "withheld" not in record
    assert [slip["word"] for slip in {row["number"]: row for row in record["rounds"]}[2]["slips"]] == ["ZZZ"]


def test_the_services_refuse_the_same_callers(world):
    """The write path checks the role itself: the console and the API cannot disagree, and a new door to a
    service cannot forget it."""
    game, player = world.game, world.player
    attempts = {
        "player_token_reissue": (lambda user: services.player_token_reissue(game=game, player=player, actor=user),
                                 ("assistant", "no_role")),
        "game_screen_key_renew": (lambda user: services.game_screen_key_renew(game=game, actor=user),
                                  ("assistant", "no_role")),
        "player_table_change": (lambda user: services.player_table_change(game=game, player=player, table=8,
                                                                          actor=user), ("no_role",)),
        "player_register": (lambda user: services.player_register(game=game, name="Intruder", table=8, actor=user),
                            ("no_role",)),
        "licensees_import": (lambda user: services.licensees_import(game=game, data=b"licence;name\n77;Intruder\n",
                                                                    actor=user), ("no_role",)),
        "game_create": (lambda user: services.game_create(tournament=world.tournament, actor=user),
                        ("assistant", "no_role")),
        "round_slips_complete": (lambda user: services.round_slips_complete(round=world.closed_round, actor=user),
                                 ("no_role",)),
        "slip_enter_paper": (lambda user: services.slip_enter_paper(round=world.open_round, table=2, word="QQQ",
                                                                    ref="H4", score=None, actor=user), ("no_role",)),
        "slip_correct": (lambda user: services.slip_correct(slip=world.slip, reason="misread", score=77, actor=user),
                         ("no_role",)),
        "slip_add": (lambda user: services.slip_add(round=world.closed_round, player=world.late.player, word="QQQ",
                                                    ref="H4", score=None, reason="found", actor=user), ("no_role",)),
        "slip_enter_late": (lambda user: services.slip_enter_late(round=world.closed_round, player=player,
                                                                  word="QQQ", ref="H4", score=None, actor=user),
                            ("no_role",)),
        "late_slip_admit": (lambda user: services.late_slip_admit(late=world.late, reason="wifi", actor=user),
                            ("assistant", "no_role")),
        "round_choose_master": (lambda user: services.round_choose_master(round=world.closed_round, word="MELANIC",
                                                                          ref="H6", actor=user),
                                ("assistant", "no_role")),
        "round_pause": (lambda user: services.round_pause(round=world.open_round, reason="noise", actor=user),
                        ("assistant", "no_role")),
        "round_extend": (lambda user: services.round_extend(round=world.open_round, seconds=10, reason="noise",
                                                            actor=user), ("assistant", "no_role")),
        "round_cancel": (lambda user: services.round_cancel(round=world.open_round, reason="bag", actor=user),
                         ("assistant", "no_role")),
        "round_close": (lambda user: services.round_close(round=world.open_round, actor=user),
                        ("assistant", "no_role")),
        "round_draw": (lambda user: services.round_draw(game=game, actor=user), ("assistant", "no_role")),
        "rack_reject": (lambda user: services.rack_reject(game=game, rack="BCDFGHJ", actor=user),
                        ("assistant", "no_role")),
        "training_set": (lambda user: training_set(game=game, value="everyone", actor=user), ("assistant", "no_role")),
        "game_end": (lambda user: services.game_end(game=game, actor=user), ("assistant", "no_role")),
    }
    for name, (attempt, refused) in attempts.items():
        for who in refused:
            before = fingerprint()
            with pytest.raises(Forbidden) as caught:
                attempt(world.users[who])
            assert caught.value.code in ("head_only", "not_game_arbitrator"), (name, who)
            assert fingerprint() == before, (name, who)
    # The head passes every one of these checks (what the state of the game allows is another matter).
    for name, (attempt, _refused) in attempts.items():
        try:
            attempt(world.users["head"])
        except ServiceError as error:
            assert not isinstance(error, Forbidden), (name, error.code)


def test_a_word_list_a_tournament_plays_with_cannot_be_replaced(world):
    """Any arbitrator may import a word list, but not replace one another tournament judges with: its results
    would change under it. The same words again change nothing; a new name is always free."""
    services.lexicon_import(name="CLUBLIST", words=["chat", "chien", "melanic"])
    services.tournament_create(name="Club with its list", lexicon="CLUBLIST")
    with pytest.raises(ServiceError) as caught:
        services.lexicon_import(name="CLUBLIST", words=["chat", "chien", "melanic", "zzz"])
    assert caught.value.code == "lexicon_in_use" and caught.value.status == 409
    assert Lexicon.objects.get(name="CLUBLIST").word_count == 3
    services.lexicon_import(name="CLUBLIST", words=["chat", "chien", "melanic"])
    assert services.lexicon_import(name="CLUBLIST2", words=["zzz"])[0].word_count == 1


def test_the_console_says_why_it_refuses(world):
    """At the console a page refused for lack of a role is a 403 page saying so (never a redirect to a page
    the user cannot open either); an assistant pressing a head's button is answered 403 with the reason too
    (a redirect would read as done), with a link back to the game."""
    page = world.clients["no_role"].get(reverse("console-game", args=[world.game.pk]))
    assert page.status_code == 403
    assert "you have no arbitrator&#x27;s role in this game" in page.content.decode()
    assert 'id="refused-back"' not in page.content.decode()  # the game's page is not theirs
    status = Game.objects.get(pk=world.game.pk).status
    for name in ("console-projector-link-renew", "console-game-end"):
        refused = world.clients["assistant"].post(reverse(name, args=[world.game.pk]))
        assert refused.status_code == 403, (name, refused.status_code)
        text = refused.content.decode()
        assert "only the game&#x27;s head arbitrator may do this" in text, name
        assert f'href="{reverse("console-game", args=[world.game.pk])}"' in text
    assert Game.objects.get(pk=world.game.pk).screen_key == world.game.screen_key
    assert Game.objects.get(pk=world.game.pk).status == status


def test_an_assistant_is_not_offered_the_heads_links(world):
    """The players' page and a player's page offer a new projector link and a phone link to the head only."""
    for who, shown in (("assistant", False), ("head", True)):
        players = world.clients[who].get(reverse("console-players", args=[world.game.pk])).content.decode()
        player = world.clients[who].get(reverse("console-player", args=[world.game.pk, world.player.pk]))
        assert ('id="projector-link-renew"' in players) is shown, who
        assert ('id="make-phone-link"' in player.content.decode()) is shown, who


# ---- objects of another game: mismatched pairs --------------------------------------------------------------
#
# Two games of one tournament, both in play, each with its own head (who has no role in the other): game 1
# (Ann, Bob; round 1 closed with Ann's slip and Bob's late slip, round 2 open) and game 2 (Zoe, Yan; rounds 1
# and 2 closed, Zoe's slip and Yan's late slip in round 1, round 3 open). Every URL naming a game and, inside
# it, a player, a slip, a round or a late slip is called by the head of the game it names with one of those
# taken from the other game: 404, and nothing changed anywhere (rows, tokens, roles, logs).

INNER_IDS = ("player_id", "slip_id", "number", "late_id")
# A player of game 1 plays game 2 too: named through game 2, their sheet and a slip in game 2's round are of
# game 2. What changes the player themself (their token, their table) reaches both games: it is done through
# their own game only (tournaments/scoping.py), game 1 while it is not over.
PLAYER_IN_THE_GAME = {"console-player", "sheet-player-scoresheet", "console-slip-add"}
ACTS_ON_PLAYER = {"console-player-phone-link", "console-player-table"}


def paired_names() -> list[str]:
    """Every operation whose URL names a game and something inside it, as the resolver finds them."""
    return sorted(name for name in operation_names()
                  if "game_id" in PATTERNS[name].pattern.converters
                  and set(PATTERNS[name].pattern.converters) & set(INNER_IDS))


@dataclass
class Side:
    game: Game
    head: object
    client: APIClient
    player: Player
    token: str
    closed: Round
    open: Round
    slip: Slip
    late: LateSlip


@pytest.fixture
def two_games(db, django_user_model, make_tournament, isolated_cache) -> tuple[Side, Side]:
    admin = django_user_model.objects.create_user(username="pairs-admin", password="pairs-pass-1", is_staff=True,
                                                  is_superuser=True)
    tournament = make_tournament(name="Pairs")
    sides = []
    for number, (names, rounds) in enumerate(((("Ann", "Bob"), 2), (("Zoe", "Yan"), 3)), start=1):
        head = _staff(django_user_model, f"pairs-head-{number}")
        game = services.game_create(tournament=tournament, seed=number, actor=admin)
        services.arbitrator_set(game=game, username=head.username, role="head", actor=admin)
        services.arbitrator_set(game=game, username=admin.username, role="none", actor=admin)
        (first, token), (second, _) = (services.player_register(game=game, name=name, table=2 * number + index)
                                       for index, name in enumerate(names))
        played = []
        for index in range(rounds):
            round = services.round_start(round=services.round_draw(game=game, actor=None), actor=None)
            if index == 0:
                slip, _ = services.slip_submit(round=round, player=first, word="ZZZ", ref="A1", score=None,
                                               key=f"{first.name}-1")
            if index < rounds - 1:
                services.round_close(round=round, actor=None)
                if index == 0:
                    late = services.slip_enter_late(round=round, player=second, word="ZZZ", ref="A1", score=None,
                                                    actor=None)
            played.append(round)
        sides.append(Side(game, head, _client(head), first, token, played[0], played[-1], slip, late))
    assert [side.game.number for side in sides] == [1, 2]
    assert {row.game_id: row.role for row in GameArbitrator.objects.all()} == {
        sides[0].game.pk: "head", sides[1].game.pk: "head"}
    return sides[0], sides[1]


def _own(side: Side, which: Op) -> dict:
    return {"game_id": side.game.pk, "player_id": side.player.pk, "slip_id": side.slip.pk, "late_id": side.late.pk,
            "number": (side.open if which.round == "open" else side.closed).number}


def _foreign(url: Side, other: Side, name: str, pattern_name: str):
    """The other game's object for ``name``, or None when the other game has none that is not the URL's
    game's too (its round numbers all exist in the URL's game; its player plays the URL's game)."""
    if name == "number":
        numbers = set(Round.objects.filter(game=url.game).values_list("number", flat=True))
        extra = set(Round.objects.filter(game=other.game).values_list("number", flat=True)) - numbers
        return min(extra) if extra else None
    if name == "player_id" and other.game.number < url.game.number and pattern_name not in ACTS_ON_PLAYER:
        return None  # a player of an earlier game plays this one: not a mismatched pair (above)
    return {"player_id": other.player.pk, "slip_id": other.slip.pk, "late_id": other.late.pk}[name]


def test_the_urls_naming_a_game_and_an_object_in_it_are_found():
    names = paired_names()
    assert len(names) >= 30, names  # the walk finds them: rounds, slips, late slips, players
    assert {name for name in names if "player_id" in PATTERNS[name].pattern.converters} == (
        PLAYER_IN_THE_GAME | ACTS_ON_PLAYER)


@pytest.mark.parametrize("name", paired_names())
def test_an_object_of_another_game_is_not_found_through_this_one(two_games, name):
    """Both ways round (the earlier game's head naming the later game's objects, and the other way): 404 for
    the head of the game the URL names, and nothing changed."""
    pattern = PATTERNS[name]
    console = name.startswith("console-")
    tried = 0
    for url_side, other in (two_games, two_games[::-1]):
        for which in MATRIX[name]:
            for inner in sorted(set(pattern.pattern.converters) & set(INNER_IDS)):
                foreign = _foreign(url_side, other, inner, name)
                if foreign is None:
                    continue
                kwargs = {**{key: value for key, value in _own(url_side, which).items()
                             if key in pattern.pattern.converters}, inner: foreign}
                url = reverse(name, kwargs=kwargs)
                before = fingerprint()
                response = _call(url_side.client, which.method, url, which.body, console)
                assert response.status_code == 404, (url, which.method, _body(response))
                assert fingerprint() == before, (url, which.method, "a refused call changed something")
                tried += 1
    assert tried, name
    for side in two_games:  # every phone still plays its own game
        me = _client(bearer=side.token).get(reverse("api-game-me", args=[side.game.pk]))
        assert me.status_code == 200, me.content


def test_a_phone_is_not_taken_over_through_another_game(two_games):
    """The head of game 2 gives no new phone link to Ann, whose game 1 is in play (404: 403 would say she is
    there); her phone plays on, and no log says anything. Game 1's head does it: logged in game 1, her old
    phone is turned away. Once game 1 is over, Ann's game is game 2: its head gives her link there, logged in
    game 2."""
    first, second = two_games
    ann = first.player
    before = fingerprint()
    taken = second.client.post(reverse("console-player-phone-link", args=[second.game.pk, ann.pk]))
    assert taken.status_code == 404
    with pytest.raises(ServiceError) as caught:
        services.player_token_reissue(game=second.game, player=ann, actor=second.head)
    assert (caught.value.code, caught.value.status) == ("unknown_player", 404)
    moved = second.client.post(reverse("console-player-table", args=[second.game.pk, ann.pk]), {"table": "44"})
    assert moved.status_code == 404
    assert fingerprint() == before
    assert _client(bearer=first.token).get(reverse("api-game-me", args=[first.game.pk])).status_code == 200
    page = second.client.get(reverse("console-player", args=[second.game.pk, ann.pk])).content.decode()
    assert 'id="make-phone-link"' not in page and 'id="table-form"' not in page and 'id="player-own-game"' in page

    given = first.client.post(reverse("console-player-phone-link", args=[first.game.pk, ann.pk]))
    assert given.status_code == 200 and 'id="phone-link"' in given.content.decode()
    assert _client(bearer=first.token).get(reverse("api-game-me", args=[first.game.pk])).status_code == 401
    entries = LogEntry.objects.filter(action="player_token_reissue", player=ann)
    assert [entry.game_id for entry in entries] == [first.game.pk]

    services.round_close(round=first.open, actor=None)
    services.game_end(game=first.game, actor=None)
    again = second.client.post(reverse("console-player-phone-link", args=[second.game.pk, ann.pk]))
    assert again.status_code == 200
    assert [entry.game_id for entry in entries.order_by("id")] == [first.game.pk, second.game.pk]


def test_a_players_details_are_changed_in_their_own_game(two_games):
    """A file of licensees imported in game 2 that updates Ann (of game 1, in play) takes a role in game 1
    (403 for game 2's head alone, nothing changed) and is written in game 1's log."""
    first, second = two_games
    ann = first.player
    Player.objects.filter(pk=ann.pk).update(licence="77")
    data = b"licence;name;club\n77;Ann;Club of game one\n"
    before = fingerprint()
    with pytest.raises(Forbidden):
        services.licensees_import(game=second.game, data=data, actor=second.head)
    assert fingerprint() == before
    services.arbitrator_set(game=first.game, username=second.head.username, role="assistant", actor=first.head)
    services.licensees_import(game=second.game, data=data, actor=second.head)
    assert Player.objects.get(pk=ann.pk).club == "Club of game one"
    assert list(LogEntry.objects.filter(action="player_update").values_list("game_id", flat=True)) == [first.game.pk]


def test_a_player_of_another_game_is_not_named_in_a_body(two_games):
    """A paper slip names its player by id or by table in its body: one of a later game (who does not play
    this one) is not found, at the API and the console, and nothing is written."""
    first, second = two_games
    zoe = second.player
    before = fingerprint()
    url = reverse("api-round-slips", args=[first.game.pk, first.open.number])
    for named in ({"player": zoe.pk}, {"table": zoe.table}):
        answer = first.client.post(url, {**named, "word": "ZZZ", "ref": "A1"}, format="json")
        assert answer.status_code == 404 and answer.json()["error"]["code"] in ("unknown_player", "unknown_table"), answer.content
    typed = first.client.post(reverse("console-slip-enter", args=[first.game.pk]),
                              {"table": str(zoe.table), "word": "ZZZ", "ref": "A1"}, HTTP_ACCEPT="application/json")
    assert typed.status_code == 404, typed.content
    assert fingerprint() == before
