"""Guessing join codes: wrong codes are counted atomically per address (Redis INCR; the embedded file cache
under a lock across threads and processes), so that wrong codes arriving at the same moment never get more
"unknown" answers than the limit; a right code joins at once whatever wrong codes came before it, from its
own address (a hall behind one venue address) or from many others."""

from __future__ import annotations

import multiprocessing
import threading

import pytest
from django.core.cache.backends.filebased import FileBasedCache
from django.db import connections
from rest_framework.test import APIClient

from arbiter.cache import count
from tournaments.models import Game, Player
from tournaments.services.setup import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH

from .api_support import assert_error, expect

LIMIT = 20


@pytest.fixture(params=["embedded", "redis"])
def join_cache(request, settings, isolated_cache, tmp_path):
    """The join limit on the embedded file cache, and on Redis when the tests have one (REDIS_URL)."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # the service's own rates
    assert rates["join_failures"] == f"{LIMIT}/min"
    if request.param == "embedded":
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                                       "LOCATION": str(tmp_path / "cache"), "KEY_PREFIX": isolated_cache}}
    elif not settings.BROKER.redis_url:
        pytest.skip("Redis: run with REDIS_URL")
    else:
        assert settings.CACHES["default"]["BACKEND"] == "arbiter.cache.ResilientRedisCache"
    return request.param


def _wrong(n: int) -> str:
    return "".join(JOIN_CODE_ALPHABET[(n + i) % len(JOIN_CODE_ALPHABET)] for i in range(JOIN_CODE_LENGTH - 1)) + "0"


def _at_once(calls) -> list:
    """Run the calls in threads released together; their answers in order."""
    answers = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i, call):
        start.wait()
        try:
            answers[i] = call()
        finally:
            connections.close_all()  # this thread's database connection back to the pool

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.django_db(transaction=True)
def test_wrong_codes_at_the_same_moment_never_pass_the_limit(api_game, join_cache, settings):
    """Eight wrong codes at once, three times, against a limit of 4 (eight threads: within the database
    pool of a test process)."""
    limit = 4
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "join_failures": f"{limit}/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    game = api_game(players=0)
    client = APIClient(REMOTE_ADDR="198.51.100.4")
    guesses = [lambda n=n: client.post("/api/join", {"join_code": _wrong(n), "name": "G"}, format="json")
               for n in range(24)]
    answers = _at_once(guesses[:8]) + _at_once(guesses[8:16]) + _at_once(guesses[16:])
    statuses = [answer.status_code for answer in answers]
    assert statuses.count(404) == limit, statuses
    assert statuses.count(429) == len(answers) - limit, statuses
    for answer in answers:
        assert_error(answer, answer.status_code, "unknown_join_code" if answer.status_code == 404 else "throttled")
    # The address's wrong codes are held; its right code is not, nor another address's.
    assert_error(client.post("/api/join", {"join_code": _wrong(99), "name": "G"}, format="json"), 429, "throttled")
    expect(client.post("/api/join", {"join_code": game.join_code, "name": "H"}, format="json"), 201)
    expect(APIClient(REMOTE_ADDR="198.51.100.5").post(
        "/api/join", {"join_code": game.join_code, "name": "I"}, format="json"), 201)


@pytest.mark.django_db
def test_a_hall_behind_one_address_joins_at_once_after_wrong_codes_from_it(api_game, join_cache):
    """A venue's shared address: someone in the hall (or a script) sends 25 wrong codes, more than the limit;
    the phones of the hall, through the same address, join at once with the right code, one after another,
    and the wrong codes go on being refused (429, counted) in between."""
    game = api_game(players=0)
    hall = APIClient(REMOTE_ADDR="192.0.2.77")
    for n in range(LIMIT + 5):
        assert_error(hall.post("/api/join", {"join_code": _wrong(n), "name": "G"}, format="json"),
                     404 if n < LIMIT else 429)
    for i in range(10):
        joined = expect(hall.post("/api/join", {"join_code": game.join_code.lower(), "name": f"P{i}"},
                                  format="json"), 201)
        assert joined["game"] == game.id
        assert_error(hall.post("/api/join", {"join_code": _wrong(i), "name": "G"}, format="json"), 429,
                     "throttled")
    assert Player.objects.filter(tournament_id=game.tournament_id).count() == 10


@pytest.mark.django_db
def test_a_short_code_of_an_older_game_is_not_looked_up_past_the_limit(api_game, join_cache):
    """Games made when codes had 6 characters keep them: 32**6 codes are too few to be looked up from an
    address past its limit, so there such a code waits out the window (429) as every code used to."""
    game = api_game(players=0)
    Game.objects.filter(pk=game.id).update(join_code="Z9Z9Z9")
    guesser = APIClient(REMOTE_ADDR="192.0.2.78")
    for n in range(LIMIT):
        assert_error(guesser.post("/api/join", {"join_code": _wrong(n)[:6], "name": "G"}, format="json"), 404)
    assert_error(guesser.post("/api/join", {"join_code": "Z9Z9Z9", "name": "G"}, format="json"), 429, "throttled")
    expect(APIClient(REMOTE_ADDR="192.0.2.79").post(
        "/api/join", {"join_code": "Z9Z9Z9", "name": "H"}, format="json"), 201)


@pytest.mark.django_db
def test_a_spray_from_64_addresses_does_not_stop_a_correct_join(api_game, join_cache):
    game = api_game(players=0)
    for address in range(64):
        sprayer = APIClient(REMOTE_ADDR=f"203.0.113.{address}")
        for n in range(LIMIT):
            assert_error(sprayer.post("/api/join", {"join_code": _wrong(n), "name": "S"}, format="json"), 404)
        assert_error(sprayer.post("/api/join", {"join_code": _wrong(99), "name": "S"}, format="json"), 429)
    # 64 x 20 wrong codes in the window: the hall's address joins at once, phone after phone.
    hall = APIClient(REMOTE_ADDR="192.0.2.10")
    for i in range(30):
        expect(hall.post("/api/join", {"join_code": game.join_code, "name": f"P{i}"}, format="json"), 201)
    assert Player.objects.filter(tournament_id=game.tournament_id).count() == 30


@pytest.mark.django_db
def test_an_ipv6_guesser_is_one_address_per_64_network(api_game, join_cache):
    game = api_game(players=0)
    for n in range(LIMIT):
        assert_error(APIClient(REMOTE_ADDR=f"2001:db8:1:2::{n + 1:x}").post(
            "/api/join", {"join_code": _wrong(n), "name": "G"}, format="json"), 404)
    assert_error(APIClient(REMOTE_ADDR="2001:db8:1:2:ffff::1").post(
        "/api/join", {"join_code": _wrong(1), "name": "G"}, format="json"), 429, "throttled")
    expect(APIClient(REMOTE_ADDR="2001:db8:1:3::1").post(
        "/api/join", {"join_code": game.join_code, "name": "J"}, format="json"), 201)


def test_join_codes_are_too_many_to_guess_at_the_rate_the_server_answers():
    """Every answer tells a guesser something (a right code is always looked up): the code space alone keeps
    guessing hopeless. bench/join_guesses.py measures about 70 answers a second in one process; at 1,000 a
    second, day and night, finding a given game's code takes 17,800 years on average, one of 1,000 games'
    codes 35 years (docs/security.md, Join codes)."""
    codes = len(JOIN_CODE_ALPHABET) ** JOIN_CODE_LENGTH
    year = 365.25 * 24 * 3600
    answers_a_second = 1000
    assert codes / 2 / answers_a_second / year > 17_000
    assert codes / 1000 / answers_a_second / year > 35


def _count_in_a_process(folder: str, times: int) -> None:
    cache = FileBasedCache(folder, {})
    for _ in range(times):
        count(cache, "counter", timeout=60)


def test_the_embedded_cache_counts_atomically_across_threads_and_processes(tmp_path, settings):
    folder = str(tmp_path / "cache")
    cache = FileBasedCache(folder, {})
    _at_once([lambda: [count(cache, "counter", timeout=60) for _ in range(25)] for _ in range(8)])
    assert cache.get("counter") == 200
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_count_in_a_process, args=(folder, 50)) for _ in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    assert cache.get("counter") == 400
    # The window is the counter's creation's: counting does not restart it.
    count(cache, "short", timeout=0.5)
    import time

    time.sleep(0.3)
    assert count(cache, "short", timeout=0.5) == 2
    time.sleep(0.3)
    assert cache.get("short") is None and count(cache, "short", timeout=0.5) == 1
