"""Arbitrators' API tokens: stored as digests, usable at once, expiring at their lifetime, revoked by a
password change or lost rights, listed and revoked from the console; a dead token gets 401 in the error shape."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from tournaments.models import Tournament

from .api_support import asgi_post, assert_error, expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

PASSWORD = "secret-password"  # the arbitrator fixture's


def issue(username: str, password: str = PASSWORD) -> dict:
    return expect(APIClient().post("/api/auth/token", {"username": username, "password": password},
                                   format="json"), 200)


def with_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def works(token: str) -> bool:
    """The token creates a tournament (201) or is refused (401, in the error shape)."""
    answer = with_token(token).post("/api/tournaments", {"name": "Club night"}, format="json")
    if answer.status_code == 401:
        assert_error(answer, 401, "authentication_failed")
        return False
    expect(answer, 201)
    return True


def console(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_token_is_stored_as_a_digest_only_and_works_at_once(arbitrator):
    answer = issue(arbitrator.username)
    token = answer["token"]
    assert re.fullmatch(r"[0-9a-f]{64}", token)  # 256 random bits
    assert works(token)
    row = AuthToken.objects.get(user=arbitrator)
    assert row.digest == hashlib.sha512(token.encode()).hexdigest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM knox_authtoken")
        stored = [str(value) for record in cursor.fetchall() for value in record]
    assert token not in stored
    assert "authtoken_token" not in connection.introspection.table_names()  # the plain-text table is gone
    # Each request issues a new token; the earlier one keeps working.
    second = issue(arbitrator.username)["token"]
    assert second != token and works(second) and works(token)


def test_a_token_expires_exactly_at_its_lifetime(arbitrator, settings):
    assert settings.ARBITER_API_TOKEN_HOURS == 24
    before = timezone.now()
    answer = issue(arbitrator.username)
    after = timezone.now()
    expires = datetime.fromisoformat(answer["expires"])
    assert before + timedelta(hours=24) <= expires <= after + timedelta(hours=24)
    assert AuthToken.objects.get(user=arbitrator).expiry == expires

    with time_machine.travel(expires - timedelta(seconds=1), tick=False):
        assert works(answer["token"])
    with time_machine.travel(expires, tick=False):
        assert not works(answer["token"])
    assert not AuthToken.objects.filter(user=arbitrator).exists()  # an expired token is deleted when seen
    assert not works(answer["token"])

    settings.ARBITER_API_TOKEN_HOURS = 3
    short = issue(arbitrator.username)
    lifetime = datetime.fromisoformat(short["expires"]) - timezone.now()
    assert timedelta(hours=3) - timedelta(minutes=1) < lifetime <= timedelta(hours=3)


def test_an_expired_token_is_refused_on_every_path_including_paper_slips(arbitrator, api_game):
    game = api_game(players=1)
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)
    token = issue(arbitrator.username)["token"]
    expires = AuthToken.objects.filter(user=arbitrator).order_by("-created").first().expiry
    slip = {"player": game.players[0].id, "word": "TARES", "ref": "H4", "score": 12, "key": "paper-1"}
    with time_machine.travel(expires + timedelta(minutes=1), tick=False):
        client = with_token(token)
        assert_error(client.post(game.round_url(1, "/slips"), slip, format="json"), 401, "authentication_failed")
        assert_error(client.get(game.url("/progress")), 401, "authentication_failed")
        assert_error(client.post(f"/api/tournaments/{game.tournament_id}/games", {}, format="json"), 401)


def test_malformed_tokens_are_refused_with_401(arbitrator):
    for header in ("Token " + "x" * 300, "Token é", "Token a b", "Token"):
        answer = APIClient().get("/api/games/1/progress", HTTP_AUTHORIZATION=header.encode().decode("latin-1"))
        assert_error(answer, 401)


def test_a_password_change_revokes_every_token(arbitrator):
    tokens = [issue(arbitrator.username)["token"] for _ in range(2)]
    client = console(arbitrator)
    answer = client.post("/admin/password_change/", {
        "old_password": PASSWORD, "new_password1": "another-long-password-42", "new_password2": "another-long-password-42",
    })
    assert answer.status_code == 302, answer.content[:500]
    assert not any(works(token) for token in tokens)
    assert not AuthToken.objects.filter(user=arbitrator).exists()
    # The new password gives a new token; the command line's changepassword path revokes it too.
    token = issue(arbitrator.username, "another-long-password-42")["token"]
    arbitrator.refresh_from_db()
    arbitrator.set_password("a-third-password-77")
    arbitrator.save()
    assert not works(token)


@pytest.mark.parametrize("change", ["is_staff", "is_active"])
def test_losing_staff_rights_or_the_active_flag_revokes_tokens(arbitrator, django_user_model, change):
    token = issue(arbitrator.username)["token"]
    other = django_user_model.objects.create_user(username="colleague", password=PASSWORD, is_staff=True)
    kept = issue(other.username)["token"]
    arbitrator.refresh_from_db()
    setattr(arbitrator, change, False)
    arbitrator.save()
    assert not AuthToken.objects.filter(user=arbitrator).exists()
    assert not works(token)
    assert works(kept)  # the colleague's token is untouched
    # Rights given back do not bring an old token back.
    setattr(arbitrator, change, True)
    arbitrator.save()
    assert not works(token)


def test_ordinary_saves_and_logins_keep_the_tokens(arbitrator, settings):
    token = issue(arbitrator.username)["token"]
    arbitrator.first_name = "Ada"
    arbitrator.save()
    assert works(token)
    # A login that re-hashes the same password with the preferred hasher is not a password change.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher",
                                 "django.contrib.auth.hashers.MD5PasswordHasher"]
    type(arbitrator).objects.filter(pk=arbitrator.pk).update(
        password=make_password(PASSWORD, hasher="md5"))
    answer = Client().post(reverse("console-login"), {"username": arbitrator.username, "password": PASSWORD})
    assert answer.status_code == 302
    arbitrator.refresh_from_db()
    assert arbitrator.password.startswith("pbkdf2_sha256$")
    assert works(token)


def test_the_console_lists_the_arbitrators_tokens_and_revokes_one_after_confirming(arbitrator, django_user_model):
    first, second = issue(arbitrator.username)["token"], issue(arbitrator.username)["token"]
    other = django_user_model.objects.create_user(username="colleague", password=PASSWORD, is_staff=True)
    theirs = issue(other.username)["token"]
    client = console(arbitrator)

    home = client.get(reverse("console-home"))
    assert f'href="{reverse("console-api-tokens")}"'.encode() in home.content  # in the console's navigation
    page = client.get(reverse("console-api-tokens"))
    assert page.status_code == 200
    html = page.content.decode()
    ids = re.findall(r"/console/tokens/([0-9a-f]{12})/revoke/", html)
    assert len(ids) == 2
    for token in (first, second, theirs):
        assert token not in html and token[:15] not in html  # neither the token nor its stored start
    first_id = AuthToken.objects.get(digest=hashlib.sha512(first.encode()).hexdigest()).digest[:12]
    assert first_id in ids

    confirm = client.get(reverse("console-api-token-revoke", args=[first_id]))
    assert confirm.status_code == 200
    form = confirm.content.decode()
    assert 'method="post"' in form and "csrfmiddlewaretoken" in form
    assert f'action="{reverse("console-api-token-revoke", args=[first_id])}"' in form
    assert works(first)  # looking at the confirmation revokes nothing

    answer = client.post(reverse("console-api-token-revoke", args=[first_id]), follow=True)
    assert answer.redirect_chain[-1][0] == reverse("console-api-tokens")
    assert f"Token {first_id} revoked" in answer.content.decode()
    assert not works(first)
    assert works(second) and works(theirs)
    assert first_id not in client.get(reverse("console-api-tokens")).content.decode()

    # Another arbitrator's token cannot be named from this console.
    their_id = AuthToken.objects.get(user=other).digest[:12]
    assert client.post(reverse("console-api-token-revoke", args=[their_id])).status_code == 404
    assert client.get(reverse("console-api-token-revoke", args=["not-a-token"])).status_code == 404
    assert works(theirs)

    confirm_all = client.get(reverse("console-api-tokens-revoke-all"))
    assert confirm_all.status_code == 200 and b"csrfmiddlewaretoken" in confirm_all.content
    assert client.post(reverse("console-api-tokens-revoke-all")).status_code == 302
    assert not works(second)
    assert works(theirs)
    assert b"No API token in force." in client.get(reverse("console-api-tokens")).content


def test_revoking_needs_the_csrf_token_and_an_arbitrator(arbitrator, django_user_model):
    token = issue(arbitrator.username)["token"]
    ident = AuthToken.objects.get(user=arbitrator).digest[:12]
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(arbitrator)
    assert guarded.post(reverse("console-api-token-revoke", args=[ident])).status_code == 403
    assert guarded.post(reverse("console-api-tokens-revoke-all")).status_code == 403
    assert works(token)
    anonymous = Client().post(reverse("console-api-token-revoke", args=[ident]))
    assert anonymous.status_code == 302 and reverse("console-login") in anonymous.url
    player = django_user_model.objects.create_user(username="player", password=PASSWORD)
    assert console(player).get(reverse("console-api-tokens")).status_code == 403
    assert works(token)


def test_the_token_pages_speak_french(arbitrator):
    issue(arbitrator.username)
    client = console(arbitrator)
    client.cookies["django_language"] = "fr"
    page = client.get(reverse("console-api-tokens")).content.decode()
    assert "Jetons d’API" in page and "Révoquer…" in page
    ident = AuthToken.objects.get(user=arbitrator).digest[:12]
    confirm = client.get(reverse("console-api-token-revoke", args=[ident])).content.decode()
    assert f"Révoquer le jeton d’API {ident}\u00a0?" in confirm  # French typography: a no-break space
    done = client.post(reverse("console-api-token-revoke", args=[ident]), follow=True).content.decode()
    assert f"Jeton {ident} révoqué" in done
    assert Tournament.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_revoked_token_is_refused_on_the_served_application_slip_path(arbitrator, make_game, make_player,
                                                                        settings):
    from tournaments import security, services

    settings.ALLOWED_HOSTS = ["localhost"]
    game = make_game(round_seconds=600)
    player, _ = make_player(game, name="Ada", table=1)
    services.round_start(round=services.round_draw(game=game, rack="EIRST?A"))
    token, _ = security.issue_api_token(arbitrator)
    path = f"/api/games/{game.pk}/rounds/1/slips"
    slip = {"player": player.pk, "word": "TARES", "ref": "H4", "score": 12, "key": "paper-1"}
    status, _, body = asgi_post(path, slip, f"Token {token}")
    assert status == 201, body
    security.revoke_api_tokens(arbitrator)
    status, _, body = asgi_post(path, {**slip, "key": "paper-2"}, f"Token {token}")
    assert status == 401 and body["error"]["code"] == "authentication_failed"
