"""The organiser's console tools (issue 25): a candidate game file's profile on the event's page (the figures
engine.pregame.profile gives for the same file; a bad file refused, nothing shown); a typed key drawn as the QR
code of packs.key_qr_text (segno's SVG of exactly that text; a mistyped key refused, no QR); the organiser keys
this installation trusts listed with their fingerprints, the setting's fixed, a database one removed by a head
(logged) and not by an arbitrator without one, after which a pack of that key is refused again."""

from __future__ import annotations

import io
import json
import logging

import pytest
import segno
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import Client
from django.urls import reverse

from engine.pregame import profile
from tournaments import centre, events, packs
from tournaments.errors import ServiceError
from tournaments.models import TrustedOrganiserKey

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def game_file():
    return packs.draw_game_file(seed=20260314, max_rounds=4)


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user(username="organiser", password="organiser-pass-1", is_staff=True)


@pytest.fixture
def client_of(organiser):
    def make(user=organiser):
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        return client
    return make


def _upload(name: str, raw: bytes) -> io.BytesIO:
    upload = io.BytesIO(raw)
    upload.name = name
    return upload


def test_a_candidate_game_files_profile_is_the_engines(game_file, organiser, client_of):
    event = events.event_create(name="Simultané", actor=organiser)
    client = client_of()
    act, page = reverse("console-event-act", args=[event.pk]), reverse("console-event", args=[event.pk])
    figures = profile(game_file.game, game_file.rules, game_file.labelling)
    sent = client.post(act, {"action": "profile", "file": _upload("G1.json", json.dumps(game_file.as_dict()).encode())})
    assert sent.status_code == 302
    shown = client.get(page).content.decode()
    assert 'id="event-profile"' in shown and "G1.json" in shown
    assert (f"{figures['rounds']} rounds, sum of the tops {figures['tops_sum']}, {figures['bingos']} bingos, "
            f"{figures['blanks']} blanks played ({figures['racks_with_blank']} racks with a blank), "
            f"{figures['rejected']} rejected draws") in shown
    assert figures["hardest"]
    for row in figures["hardest"]:
        assert (f'<td class="num">{row["round"]}</td><td class="code">{row["rack"]}</td>'
                f'<td class="code">{row["master"]}</td><td class="num">{row["tied_tops"]}</td>'
                f'<td class="num">{row["plays"]}</td>') in shown
    assert 'id="event-profile"' not in client.get(page).content.decode()  # shown once, kept nowhere
    assert not event.games.exists()

    french = Client(HTTP_ACCEPT_LANGUAGE="fr")
    french.force_login(organiser)
    french.post(act, {"action": "profile", "file": _upload("G1.json", json.dumps(game_file.as_dict()).encode())})
    assert f"{figures['rounds']} coups, somme des tops {figures['tops_sum']}" in french.get(page).content.decode()

    for raw in (b"{not json", b"[1, 2]", json.dumps({**game_file.as_dict(), "version": 99}).encode()):
        refused = client.post(act, {"action": "profile", "file": _upload("bad.json", raw)}, follow=True)
        text = refused.content.decode()
        assert "this is not a game that can be packed" in text and 'id="event-profile"' not in text


def test_a_typed_key_is_shown_as_its_qr_code(game_file, organiser, client_of):
    event = events.event_create(name="Simultané", actor=organiser)
    pack, key = packs.seal_pack(game_file, event="Simultané", game_id="G1")
    game = events.event_game_add(event=event, raw=packs.pack_bytes(pack))
    client = client_of()
    act, page = reverse("console-event-act", args=[event.pk]), reverse("console-event", args=[event.pk])
    assert 'value="qr"' in client.get(page).content.decode()
    typed = packs.key_text(key).lower().replace("-", " ")
    shown = client.post(act, {"action": "qr", "game": game.pk, "key": typed}, follow=True).content.decode()
    text = packs.key_qr_text(key, game.sha256)
    assert 'id="event-key-qr"' in shown and text in shown
    assert segno.make(text, error="m").svg_inline(scale=6, omitsize=True) in shown
    game.refresh_from_db()
    assert not game.game_text and game.unlocked_at is None  # shown, not unlocked

    mistyped = packs.key_text(key)[:-1] + ("0" if packs.key_text(key)[-1] != "0" else "1")
    refused = client.post(act, {"action": "qr", "game": game.pk, "key": mistyped}, follow=True).content.decode()
    assert "the key is mistyped" in refused and 'id="event-key-qr"' not in refused


def test_trusted_organisers_listed_and_one_removed(game_file, organiser, client_of, django_user_model, settings,
                                                    caplog):
    fixed, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(fixed)]
    pack, _ = packs.seal_pack(game_file, event="Simultané", game_id="G1", signer=other)
    raw = packs.pack_bytes(pack)
    other_print = packs.fingerprint(packs.public_text(other))
    centre.verify(raw, trust_fingerprint=other_print, actor=organiser)
    row = TrustedOrganiserKey.objects.get()
    events.event_create(name="Simultané", actor=organiser)  # an event's organiser

    url = reverse("console-trusted-keys")
    client = client_of()
    listed = client.get(url).content.decode()
    assert packs.fingerprint(packs.public_text(fixed)) in listed and other_print in listed
    assert listed.count('name="key"') == 1  # the setting's key has no button

    plain = django_user_model.objects.create_user(username="plain", password="plain-pass-1", is_staff=True)
    assert client_of(plain).post(url, {"key": row.pk}).status_code == 403
    assert 'name="key"' not in client_of(plain).get(url).content.decode()
    assert TrustedOrganiserKey.objects.filter(pk=row.pk).exists()

    with caplog.at_level(logging.INFO):
        removed = client.post(url, {"key": row.pk})
    assert removed.status_code == 302 and not TrustedOrganiserKey.objects.exists()
    assert any("no longer trusted" in r.getMessage() and other_print in r.getMessage() for r in caplog.records)
    assert client.post(url, {"key": row.pk}).status_code == 404
    with pytest.raises(ServiceError) as refused:
        centre.verify(raw)
    assert refused.value.code == "pack_untrusted"
