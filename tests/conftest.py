"""Shared fixtures: an arbitrator, API clients, and factories for tournaments, games and players.

The factories go through the services, so every row they make is one the product could have made.
"""

from __future__ import annotations

import itertools
import uuid

import pytest

_names = itertools.count(1)


def _import_report_writers_now() -> None:
    """schemathesis's pytest plugin imports its report writers at the session's end, through pytest's assertion
    rewriting, which parses their source. On Python 3.11 parsing is not safe while another thread formats a
    traceback (which parses too): a live server's request thread printing one then failed a run whose tests
    had all passed ("SystemError: AST constructor recursion depth mismatch"). Imported here, at collection,
    before any server thread runs."""
    import importlib
    import sys

    for name in ("schemathesis.reporting.allure", "schemathesis.reporting.html.writer",
                 "schemathesis.reporting.junitxml"):
        try:
            importlib.import_module(name)
        except ImportError:  # allure's own package is not installed (or, without the dev dependencies, no plugin)
            sys.modules[name] = None  # the failure remembered: a later import fails at once, parsing nothing


_import_report_writers_now()


def _flush_past_the_log_trigger() -> None:
    """Transactional tests end with Django's flush, a TRUNCATE of every table, which the arbitration log's
    trigger refuses on PostgreSQL (migration 0012). The test database's superuser runs the flush as a
    replica session (SET LOCAL: that transaction only), where ordinary triggers do not fire."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    plain = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        statements = plain(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return ["SET LOCAL session_replication_role = replica", *statements] if statements else statements

    DatabaseOperations.sql_flush = sql_flush


@pytest.fixture(scope="session", autouse=True)
def _log_trigger_flush():
    try:
        _flush_past_the_log_trigger()
    except ImportError:  # no psycopg: the embedded default only
        pass


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """Each test starts in the default language: a request through Django's test client leaves the thread in the
    language its LocaleMiddleware chose (French after a French page), and a later test on the same worker read
    its labels in French."""
    yield
    try:
        from django.utils import translation
    except ImportError:  # pragma: no cover - Django is always there
        return
    translation.deactivate()


@pytest.fixture
def arbitrator(db, django_user_model):
    return django_user_model.objects.create_user(
        username=f"arbitrator{next(_names)}", password="secret-password", is_staff=True
    )


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def arbitrator_client(arbitrator):
    """An API client sending the arbitrator's token (``Authorization: Token ...``), issued as
    ``POST /api/auth/token`` issues it."""
    from rest_framework.test import APIClient

    from tournaments.security import issue_api_token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_api_token(arbitrator)[0]}")
    client.user = arbitrator
    return client


@pytest.fixture
def player_client():
    """``player_client(token)``: an API client sending a player's bearer token."""
    from rest_framework.test import APIClient

    def make(token: str):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return client

    return make


@pytest.fixture
def make_tournament(db):
    """``make_tournament(**fields)``: a tournament (TWL06, english, fisf, 180 s unless told)."""
    from tournaments.services import tournament_create

    def make(**fields):
        fields.setdefault("name", f"Tournament {next(_names)}")
        return tournament_create(**fields)

    return make


@pytest.fixture
def make_game(db, make_tournament):
    """``make_game(tournament=None, seed=...)``: a game, in a new tournament unless one is given."""
    from tournaments.services import game_create

    def make(tournament=None, seed: int | None = 1, **tournament_fields):
        return game_create(tournament=tournament or make_tournament(**tournament_fields), seed=seed)

    return make


@pytest.fixture
def make_player(db):
    """``make_player(game, name=None, table=None)`` -> (player, token)."""
    from tournaments.services import player_register

    def make(game, name: str | None = None, table: int | None = None, series: str = ""):
        return player_register(game=game, name=name or f"Player {next(_names)}", table=table, series=series)

    return make


@pytest.fixture
def game(make_game):
    return make_game()


@pytest.fixture
def isolated_cache(settings, tmp_path_factory):
    """Throttle counters and live versions live in the cache: the test gets its own key prefix, so tests
    running at once (pytest -n, one shared Redis) never see each other's keys, and its keys go afterwards."""
    from django.core.cache import cache

    prefix = f"test-{uuid.uuid4().hex[:12]}"
    caches = {name: {**config, "KEY_PREFIX": prefix} for name, config in settings.CACHES.items()}
    for config in caches.values():
        if config["BACKEND"].endswith("FileBasedCache"):  # a folder of its own: clearing it touches no other test
            config["LOCATION"] = str(tmp_path_factory.mktemp("cache"))
    settings.CACHES = caches
    yield prefix
    raw = getattr(cache, "_cache", None)
    if hasattr(raw, "get_client"):  # Redis: delete this test's keys only
        client = raw.get_client(write=True)
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
    else:
        cache.clear()
