"""X-Forwarded-For is believed only when TRUSTED_PROXIES says a proxy of ours stands in front.

Without a proxy, a guesser writing a new address in the header on every request is still counted at the
connection's address: wrong join codes reach 429, wrong passwords on POST /api/auth/token reach the lock.
With one trusted proxy, the address is the one the proxy appended to the header."""

from __future__ import annotations

import logging
import random

import pytest
from axes.models import AccessAttempt
from rest_framework.test import APIClient

from .api_support import assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

PASSWORD = "secret-password"  # the arbitrator fixture's


def random_address(rng: random.Random) -> str:
    return ".".join(str(rng.randint(1, 254)) for _ in range(4))


def rates(settings, **scopes) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **scopes}}


def proxies(settings, count: int) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": count}


def wrong_join(client: APIClient, forwarded: str | None = None, remote: str = "10.1.1.1"):
    headers = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return client.post("/api/join", {"join_code": "QQQQQQ", "name": "Guesser"}, format="json", **headers)


def token_request(username: str, password: str, forwarded: str | None = None, remote: str = "10.1.1.1"):
    headers = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return APIClient().post("/api/auth/token", {"username": username, "password": password}, format="json",
                            **headers)


def test_without_a_proxy_a_forged_header_does_not_escape_the_join_failure_limit(settings):
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0  # the default: no proxy
    rates(settings, join_failures="5/min", join_failures_all="1000/min")
    rng, client = random.Random(4), APIClient()
    for _ in range(5):
        assert_error(wrong_join(client, forwarded=random_address(rng)), 404, "unknown_join_code")
    assert_error(wrong_join(client, forwarded=random_address(rng)), 429, "throttled")
    assert_error(wrong_join(client, forwarded=f"{random_address(rng)}, {random_address(rng)}"), 429, "throttled")
    # Another connection is not held up.
    assert_error(wrong_join(client, remote="10.2.2.2"), 404, "unknown_join_code")


def test_without_a_proxy_a_forged_header_does_not_escape_the_token_login_limits(settings, arbitrator, caplog):
    rates(settings, auth="1000/min")  # the lock on failed logins alone
    settings.AXES_FAILURE_LIMIT = 5
    caplog.set_level(logging.WARNING, logger="tournaments.security")
    rng = random.Random(5)
    for n in range(4):  # wrong passwords on several accounts, a new forged address each time
        assert_error(token_request(f"guess{n}", "wrong", forwarded=random_address(rng)), 400, "bad_credentials")
    error = assert_error(token_request("guess4", "wrong", forwarded=random_address(rng)), 429, "locked_out")
    assert "locked" in error["message"]
    # The connection's address is locked: the right password of a real arbitrator is refused from it too.
    answer = token_request(arbitrator.username, PASSWORD, forwarded=random_address(rng))
    assert_error(answer, 429, "locked_out")
    assert int(answer["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"10.1.1.1"}
    assert "login_locked_out" in caplog.text and "10.1.1.1" in caplog.text and "the api login" in caplog.text
    # From another connection the arbitrator gets a token.
    assert "token" in expect(token_request(arbitrator.username, PASSWORD, remote="10.2.2.2"), 200)


def test_without_a_proxy_a_forged_header_does_not_escape_the_token_request_rate(settings, django_user_model):
    rates(settings, auth="3/min")
    rng = random.Random(6)
    for _ in range(3):
        assert_error(token_request("nobody", "wrong", forwarded=random_address(rng)), 400)
    assert_error(token_request("nobody", "wrong", forwarded=random_address(rng)), 429, "throttled")


def test_with_one_trusted_proxy_the_join_limit_counts_the_address_the_proxy_saw(settings):
    proxies(settings, 1)
    rates(settings, join_failures="3/min", join_failures_all="1000/min")
    client = APIClient()
    # The proxy appends the address it saw; whatever the client wrote before it is not believed.
    for forged in ("198.51.100.1", "198.51.100.2", "198.51.100.3"):
        assert_error(wrong_join(client, forwarded=f"{forged}, 203.0.113.7", remote="10.0.0.1"), 404)
    assert_error(wrong_join(client, forwarded="203.0.113.7", remote="10.0.0.1"), 429, "throttled")
    # Another client behind the same proxy (the same connection address) is not held up.
    assert_error(wrong_join(client, forwarded="203.0.113.8", remote="10.0.0.1"), 404, "unknown_join_code")


def test_with_one_trusted_proxy_the_token_login_lock_is_on_the_address_the_proxy_saw(settings, arbitrator, caplog):
    proxies(settings, 1)
    rates(settings, auth="1000/min")
    settings.AXES_FAILURE_LIMIT = 3
    caplog.set_level(logging.WARNING, logger="tournaments.security")
    for n in range(2):
        assert_error(token_request(f"guess{n}", "wrong", forwarded="203.0.113.7", remote="10.0.0.1"), 400)
    assert_error(token_request("guess2", "wrong", forwarded="198.51.100.9, 203.0.113.7", remote="10.0.0.1"),
                 429, "locked_out")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.7"}
    assert "203.0.113.7" in caplog.text
    assert_error(token_request(arbitrator.username, PASSWORD, forwarded="203.0.113.7", remote="10.0.0.1"), 429)
    # The same proxy brings another client: that one logs in.
    expect(token_request(arbitrator.username, PASSWORD, forwarded="203.0.113.8", remote="10.0.0.1"), 200)


def test_with_a_proxy_a_header_that_is_not_an_address_counts_as_the_connection(settings):
    proxies(settings, 1)
    rates(settings, auth="1000/min", join_failures="2/min", join_failures_all="1000/min")
    for forwarded in ("not-an-address", "1.2.3.4, <script>", ""):
        assert_error(token_request("nobody", "wrong", forwarded=forwarded, remote="10.0.0.9"), 400, "bad_credentials")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"10.0.0.9"}
    client = APIClient()
    assert_error(wrong_join(client, forwarded="garbage", remote="10.0.0.9"), 404)
    assert_error(wrong_join(client, forwarded="more garbage", remote="10.0.0.9"), 404)
    assert_error(wrong_join(client, forwarded="1.2.3.4, still-garbage", remote="10.0.0.9"), 429, "throttled")
