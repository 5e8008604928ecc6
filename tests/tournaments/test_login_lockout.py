"""Failed logins lock the account and the address (django-axes): on the console's login, the admin's and
the API's token request alike. Past the limit the right password is refused too, with 429 and a clear
message in the visitor's language, until the cool-off has passed; each lock is logged.

The choice tested here (LOGIN_LOCKOUT_BY=account,address, the default): an account is locked after the
limit of failures from any addresses, and an address after the limit of failures on any accounts. Another
account logs in from an address that is not locked; nobody logs into a locked account, from anywhere."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from .api_support import assert_error

pytestmark = pytest.mark.django_db

PASSWORD = "secret-password"  # the arbitrator fixture's
LIMIT = 5
LOCKED = "Too many failed logins"
LOGINS = {"console": "/console/login/", "admin": "/admin/login/"}


@pytest.fixture(autouse=True)
def limits(settings, isolated_cache):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    settings.AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]


@pytest.fixture
def colleague(django_user_model):
    return django_user_model.objects.create_user(username="colleague", password="colleague-pw", is_staff=True)


def login(door: str, username: str, password: str, address: str = "10.9.0.1", client: Client | None = None,
          **headers):
    client = client or Client()
    return client.post(LOGINS[door], {"username": username, "password": password, "next": "/console/"},
                       REMOTE_ADDR=address, **headers)


def logged_in(answer) -> bool:
    return answer.status_code == 302


def refused_as_locked(answer) -> bool:
    return answer.status_code == 429 and LOCKED in answer.content.decode()


@pytest.mark.parametrize("door", ["console", "admin"])
def test_the_login_locks_after_the_limit_and_refuses_the_right_password(door, arbitrator, caplog):
    caplog.set_level(logging.WARNING, logger="tournaments.security")
    for _ in range(LIMIT - 1):
        answer = login(door, arbitrator.username, "wrong")
        assert answer.status_code == 200 and LOCKED not in answer.content.decode()  # the usual form error
    answer = login(door, arbitrator.username, "wrong")
    assert refused_as_locked(answer)
    assert answer["Retry-After"] == str(15 * 60)
    assert "15 minutes" in answer.content.decode() and "even with the right password" in answer.content.decode()

    client = Client()
    answer = login(door, arbitrator.username, PASSWORD, client=client)
    assert refused_as_locked(answer)
    assert client.get("/console/").status_code == 302  # not logged in: sent to the login page
    records = [r for r in caplog.records if r.name == "tournaments.security" and "login_locked_out" in r.message]
    assert records and arbitrator.username in records[0].message and "10.9.0.1" in records[0].message
    assert f"the {door} login" in records[0].message


def test_eighty_fast_wrong_passwords_then_the_right_one_is_refused(arbitrator):
    answers = [login("console", arbitrator.username, f"guess-{n}").status_code for n in range(80)]
    assert answers[: LIMIT - 1] == [200] * (LIMIT - 1) and set(answers[LIMIT - 1:]) == {429}
    assert refused_as_locked(login("console", arbitrator.username, PASSWORD))
    assert refused_as_locked(login("admin", arbitrator.username, PASSWORD))
    assert_error(APIClient().post("/api/auth/token", {"username": arbitrator.username, "password": PASSWORD},
                                  format="json", REMOTE_ADDR="10.9.0.1"), 429, "locked_out")


def test_the_lock_lifts_after_the_cool_off(arbitrator):
    for _ in range(LIMIT):
        login("console", arbitrator.username, "wrong")
    assert refused_as_locked(login("console", arbitrator.username, PASSWORD))
    with time_machine.travel(timezone.now() + timedelta(minutes=14), tick=False):
        assert refused_as_locked(login("console", arbitrator.username, PASSWORD))  # and the cool-off starts again
    with time_machine.travel(timezone.now() + timedelta(minutes=14 + 16), tick=False):
        assert logged_in(login("console", arbitrator.username, PASSWORD))


def test_an_account_is_locked_whatever_the_address(arbitrator, colleague):
    for n in range(LIMIT):
        login("console", arbitrator.username, "wrong", address=f"10.9.1.{n + 1}")
    # Each address has a single failure: the account is what is locked.
    assert refused_as_locked(login("console", arbitrator.username, PASSWORD, address="10.9.1.200"))
    assert refused_as_locked(login("admin", arbitrator.username, PASSWORD, address="10.9.1.201"))
    # Another account logs in from one of those addresses.
    assert logged_in(login("console", colleague.username, "colleague-pw", address="10.9.1.1"))


def test_an_address_is_locked_whatever_the_account(arbitrator, colleague):
    for n in range(LIMIT):  # password spraying: a different account each time
        login("console", f"guessed-name-{n}", "wrong", address="10.9.2.1")
    assert refused_as_locked(login("console", colleague.username, "colleague-pw", address="10.9.2.1"))
    assert refused_as_locked(login("admin", arbitrator.username, PASSWORD, address="10.9.2.1"))
    # The accounts themselves are not locked: from another address they log in.
    assert logged_in(login("console", colleague.username, "colleague-pw", address="10.9.2.2"))
    assert logged_in(login("admin", arbitrator.username, PASSWORD, address="10.9.2.3"))


def test_locking_by_account_and_address_together_is_a_setting(settings, arbitrator):
    settings.AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # LOGIN_LOCKOUT_BY=account+address
    for _ in range(LIMIT):
        login("console", arbitrator.username, "wrong", address="10.9.3.1")
    assert refused_as_locked(login("console", arbitrator.username, PASSWORD, address="10.9.3.1"))
    assert logged_in(login("console", arbitrator.username, PASSWORD, address="10.9.3.2"))


def test_failures_at_every_door_count_together(arbitrator):
    login("console", arbitrator.username, "wrong")
    login("admin", arbitrator.username, "wrong")
    for _ in range(LIMIT - 3):
        assert_error(APIClient().post("/api/auth/token", {"username": arbitrator.username, "password": "wrong"},
                                      format="json", REMOTE_ADDR="10.9.4.1"), 400, "bad_credentials")
    assert refused_as_locked(login("console", arbitrator.username, "wrong", address="10.9.4.2"))
    answer = APIClient().post("/api/auth/token", {"username": arbitrator.username, "password": PASSWORD},
                              format="json", REMOTE_ADDR="10.9.4.3")
    assert_error(answer, 429, "locked_out")
    assert answer["Retry-After"] == str(15 * 60)


def test_the_lock_message_speaks_french(arbitrator):
    for _ in range(LIMIT):
        answer = login("console", arbitrator.username, "wrong", HTTP_ACCEPT_LANGUAGE="fr")
    page = answer.content.decode()
    assert answer.status_code == 429
    assert "Trop d’échecs de connexion" in page and "même avec le bon mot de passe" in page
    assert 'lang="fr"' in page


def test_a_successful_login_before_the_limit_is_not_held_up(arbitrator):
    for _ in range(LIMIT - 1):
        login("console", arbitrator.username, "wrong")
    client = Client()
    assert logged_in(login("console", arbitrator.username, PASSWORD, client=client))
    assert client.get("/console/").status_code == 200
