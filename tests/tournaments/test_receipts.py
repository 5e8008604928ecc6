"""A slip's receipt is sealed by the server (Ed25519): the phone gets it with every accepted slip, through
the fast path and through Django, and the game's arbitrator checks one shown in a dispute. An altered or
forged receipt, or one of another server, is told apart from a sound one."""

from __future__ import annotations

import copy
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.urls import reverse

from tournaments import seal, services
from tournaments.models import Slip

from .api_support import asgi_post

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]

RACK = "ACEILMN"
TOP = {"word": "MELANIC", "ref": "H4", "score": 78}


@pytest.fixture
def open_round(make_game, make_player, settings):
    settings.ALLOWED_HOSTS = ["localhost", "testserver"]
    game = make_game(round_seconds=180)
    ann, token = make_player(game, "Ann")
    services.round_start(round=services.round_draw(game=game, rack=RACK))
    return game, ann, token, f"/api/games/{game.pk}/rounds/1/slips"


def check(client, game, receipt):
    answer = client.post(f"/api/games/{game.pk}/receipts/check", receipt, format="json")
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_the_fast_paths_receipt_is_sealed_and_checked_by_the_console(open_round, arbitrator_client):
    game, ann, token, url = open_round
    status, _, body = asgi_post(url, {**TOP, "key": "r1", "seq": 3}, f"Bearer {token}")
    assert status == 201
    receipt = body["receipt"]
    slip = Slip.objects.get(player=ann, current=True)
    assert {k: receipt[k] for k in ("game", "round", "player", "slip", "word", "ref", "score", "key", "seq")} == {
        "game": game.pk, "round": 1, "player": ann.pk, "slip": slip.pk, "word": "MELANIC", "ref": "H4",
        "score": 78, "key": "r1", "seq": 3}
    assert receipt["received_at"] == body["received_at"] == slip.received_at.isoformat()
    assert receipt["seal"]["alg"] == "ed25519" and receipt["seal"]["key"] == seal.public_key()

    verdict = check(arbitrator_client, game, receipt)
    assert verdict | {"receipt": None} == {"valid": True, "signer": "this_server", "verdict": "on_record",
                                           "on_record": True, "current": True, "differences": [], "receipt": None}

    # Altered after the fact (an earlier arrival, another word): the seal no longer matches.
    for field, value in (("received_at", "2020-01-01T00:00:00+00:00"), ("word", "CLAIMED"), ("score", 90)):
        altered = {**copy.deepcopy(receipt), field: value}
        verdict = check(arbitrator_client, game, altered)
        assert (verdict["valid"], verdict["signer"], verdict["on_record"]) == (False, "forged", False)

    # Made with another key: sound, but not this server's.
    other = Ed25519PrivateKey.generate()
    content = {k: v for k, v in receipt.items() if k != "seal"}
    made = {**content, "seal": {"alg": "ed25519", "key": seal._public_text(other.public_key()),
                                "sig": seal._b64(other.sign(seal.canonical(content)))}}
    verdict = check(arbitrator_client, game, made)
    assert (verdict["valid"], verdict["signer"]) == (False, "unknown_key")
    # ... unless that server is trusted.
    from django.conf import settings

    settings.ARBITER_TRUSTED_SIGNING_KEYS = [seal._public_text(other.public_key())]
    assert check(arbitrator_client, game, made)["signer"] == "trusted"

    # Not a receipt at all: 400 naming what is missing, never a 500.
    for garbage in ({"seal": "x"}, {}, {**receipt, "seal": None}, {**receipt, "slip": "a\u0000"}):
        answer = arbitrator_client.post(f"/api/games/{game.pk}/receipts/check", garbage, format="json")
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid", answer.content
    # A seal whose signature is not even base64: forged.
    assert check(arbitrator_client, game, {**receipt, "seal": {**receipt["seal"], "sig": "%%%"}})["signer"] == "forged"


def test_a_receipt_of_a_replaced_slip_is_still_on_record_but_no_longer_counts(open_round, arbitrator_client):
    game, ann, token, url = open_round
    first = asgi_post(url, {**TOP, "key": "r1"}, f"Bearer {token}")[2]["receipt"]
    status, _, second = asgi_post(url, {"word": "CLAIM", "ref": "8H", "score": 18, "key": "r2"}, f"Bearer {token}")
    assert status == 201 and second["receipt"]["word"] == "CLAIM"
    verdict = check(arbitrator_client, game, first)
    assert (verdict["valid"], verdict["on_record"], verdict["current"]) == (True, True, False)
    # The same key again (a phone's retry): the receipt of the slip that counts.
    replayed = asgi_post(url, {**TOP, "key": "r1"}, f"Bearer {token}")[2]
    assert replayed["receipt"]["word"] == "CLAIM"


def test_a_receipt_of_another_game_proves_nothing_here(open_round, make_game, arbitrator_client, client):
    game, ann, token, url = open_round
    receipt = asgi_post(url, {**TOP, "key": "r1"}, f"Bearer {token}")[2]["receipt"]
    elsewhere = make_game()
    verdict = check(arbitrator_client, elsewhere, receipt)
    assert (verdict["valid"], verdict["on_record"], verdict["differences"]) == (False, False, ["game"])
    assert (verdict["verdict"], verdict["signer"]) == ("another_game", "this_server")
    assert check(arbitrator_client, game, receipt)["verdict"] == "on_record"
    # The console's check says so too.
    client.force_login(arbitrator_client.user)
    page = client.post(reverse("console-receipt", args=[elsewhere.pk]), {"receipt": json.dumps(receipt)})
    assert page.status_code == 200
    assert 'data-verdict="another_game"' in page.content.decode()


def test_only_the_games_arbitrators_check_receipts(open_round, api_client, player_client):
    game, ann, token, url = open_round
    receipt = asgi_post(url, {**TOP, "key": "r1"}, f"Bearer {token}")[2]["receipt"]
    path = f"/api/games/{game.pk}/receipts/check"
    assert api_client.post(path, receipt, format="json").status_code == 401
    assert player_client(token).post(path, receipt, format="json").status_code == 403


def test_a_receipt_through_django_is_the_same(open_round, player_client):
    game, ann, token, url = open_round
    answer = player_client(token).post(url, {"word": " MELANIC ", "ref": "H4", "score": 78, "key": "d1"},
                                       format="json")
    assert answer.status_code == 201
    receipt = answer.json()["receipt"]
    content = {k: v for k, v in receipt.items() if k != "seal"}
    assert seal.verify(content, receipt["seal"]) == "this_server"


def test_the_console_checks_a_receipt_pasted_by_the_arbitrator(open_round, console):
    game, ann, token, url = open_round
    receipt = asgi_post(url, {**TOP, "key": "r1"}, f"Bearer {token}")[2]["receipt"]
    page = f"/console/games/{game.pk}/receipt/"
    assert console.get(page).status_code == 200
    import json

    sound = console.post(page, {"receipt": json.dumps(receipt)}).content.decode()
    assert 'data-valid="true" data-on-record="true"' in sound and "MELANIC" in sound
    forged = console.post(page, {"receipt": json.dumps({**receipt, "received_at": "2020-01-01T00:00:00+00:00"})})
    assert 'data-valid="false"' in forged.content.decode() and "Forged" in forged.content.decode()
    garbage = console.post(page, {"receipt": "{not json"}).content.decode()
    assert "This is not a receipt" in garbage
