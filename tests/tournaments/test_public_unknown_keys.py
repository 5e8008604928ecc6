"""Keys of no public link (`/api/public/<key>`, `/results/<key>/`): each used to cost a database lookup, with no
limit. Now a key is looked up once and then answered from the cache, and an address that has keys looked up in
vain past ARBITER_PUBLIC_UNKNOWN_PER_MINUTE gets 429; a follower polling a real key never does."""

from __future__ import annotations

import secrets

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tournaments import public, services
from tournaments.versions import _next_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]


def _feed(client, key, address, **headers):
    return client.get(reverse("api-public-feed", kwargs={"key": key}), REMOTE_ADDR=address, **headers)


def _page(client, key, address):
    return client.get(reverse("public-results", kwargs={"key": key}), REMOTE_ADDR=address)


def _unknown() -> str:
    return secrets.token_urlsafe(16)


@pytest.fixture
def link(make_tournament, arbitrator):
    tournament = make_tournament(name="Open de Tours")
    game = services.game_create(tournament=tournament, seed=11, actor=arbitrator)
    services.player_register(game=game, name="Ann", table=1, actor=arbitrator)
    return public.link_set(tournament=tournament, on=True, actor=arbitrator)


def test_an_unknown_key_is_looked_up_once_then_answered_from_the_cache(client, link):
    key = _unknown()
    with CaptureQueriesContext(connection) as first:
        assert _feed(client, key, "198.51.100.7").status_code == 404
    assert len(first.captured_queries) >= 1
    _next_version()  # a round drawn somewhere: the server's clock moves; an unknown key stays unknown
    for ask in (_feed, _page, _feed):
        with CaptureQueriesContext(connection) as again:
            assert ask(client, key, "198.51.100.7").status_code == 404
        assert len(again.captured_queries) == 0, again.captured_queries


def test_an_address_asking_many_unknown_keys_is_limited_and_a_follower_never(client, link, settings):
    limit = settings.ARBITER_PUBLIC_UNKNOWN_PER_MINUTE
    assert _feed(client, link.key, "203.0.113.20").status_code == 200  # followed: its stamp is in the cache
    for n in range(limit):
        assert (_feed if n % 2 else _page)(client, _unknown(), "198.51.100.8").status_code == 404
    with CaptureQueriesContext(connection) as refused:
        answer = _feed(client, _unknown(), "198.51.100.8")
        page = _page(client, _unknown(), "198.51.100.8")
    assert answer.status_code == 429 and answer.json()["error"]["code"] == "throttled"
    assert page.status_code == 429 and int(page["Retry-After"]) > 0
    assert len(refused.captured_queries) == 0
    # Another address is not held; the followed link is still served to the limited one (from its stamp).
    assert _feed(client, _unknown(), "198.51.100.9").status_code == 404
    assert _feed(client, link.key, "198.51.100.8").status_code == 200

    # A follower polls the real key far more often than the limit, the server's clock moving in between
    # (each move has the link checked against the database again): never refused.
    etag = None
    for n in range(3 * limit):
        if n % 5 == 0:
            _next_version()
        answer = _feed(client, link.key, "203.0.113.20", **({"HTTP_IF_NONE_MATCH": etag} if etag else {}))
        assert answer.status_code in (200, 304), (n, answer.status_code)
        etag = answer["ETag"]


def test_a_link_turned_on_after_its_key_was_asked_is_served(client, link, arbitrator):
    public.link_set(tournament=link.tournament, on=False, actor=arbitrator)
    assert _feed(client, link.key, "198.51.100.10").status_code == 404
    assert _page(client, link.key, "198.51.100.10").status_code == 404  # from the cache now
    public.link_set(tournament=link.tournament, on=True, actor=arbitrator)
    assert _feed(client, link.key, "198.51.100.10").status_code == 200
    assert _page(client, link.key, "198.51.100.10").status_code == 200
