"""A centre plays a sealed pack (tournaments/centre.py, services/sealed.py, the API's packs): imported into a
tournament as a game with the pack's settings, unlocked with the key at the start, each draw revealing the
pack's next rack and each close placing the pack's master; a redraw, a typed or replaced rack and another
master refused; before the key nothing of the racks or masters at any address; a wrong key refused with
nothing changed; an untrusted signer, a changed pack and another word list refused at the import."""

from __future__ import annotations

import dataclasses
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.urls import reverse

from tournaments import centre, packs
from tournaments.errors import ServiceError
from tournaments.models import Game, GamePack, LogEntry, Result, Round, TrustedOrganiserKey
from tournaments.services import round_draw

from .test_join_code_secret import _guessable_addresses

ROUNDS = 4


@pytest.fixture(scope="module")
def organiser():
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def game_file():
    return packs.draw_game_file(seed=20260314, max_rounds=ROUNDS, labelling="rows-numbers")


@pytest.fixture(scope="module")
def sealed(game_file, organiser):
    pack, key = packs.seal_pack(game_file, event="Simultané de printemps", game_id="G1", signer=organiser)
    return pack, key


@pytest.fixture
def trusted(settings, organiser):
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser)]
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0


def _secrets(game_file) -> set[str]:
    """Every rack and every master word (of 5 letters or more, so that no page's ordinary text matches)."""
    found = set()
    for r in game_file.game.rounds:
        found |= {r.rack, *r.cancelled}
        found |= {word for word in (r.master.word, *r.master.words) if len(word) >= 5}
    return found


def _import(arbitrator_client, tournament, pack, **extra):
    return arbitrator_client.post(f"/api/tournaments/{tournament.pk}/packs", {"pack": pack, **extra}, format="json")


@pytest.mark.django_db
def test_a_game_from_a_pack_plays_the_packs_racks_and_masters(arbitrator_client, arbitrator, make_tournament,
                                                               player_client, game_file, sealed, trusted):
    pack, key = sealed
    # rows-letters, 120 s and the booklet's rules: the pack's labelling, time and rules win.
    tournament = make_tournament(name="Club", created_by=arbitrator, round_seconds=120, ruleset="classic")
    answer = _import(arbitrator_client, tournament, json.loads(packs.pack_bytes(pack)))
    assert answer.status_code == 201, answer.json()
    game_id = answer.json()["game"]
    summary = answer.json()["pack"]
    assert summary["sha256"] == packs.pack_sha256(pack) and summary["unlocked"] is False
    assert summary["fingerprint"] == packs.fingerprint(pack["seal"]["key"])
    tournament.refresh_from_db()
    assert (tournament.coordinates, tournament.lexicon, tournament.tileset) == ("rows-numbers", "TWL06", "english")
    assert tournament.rules.as_dict() == game_file.rules.as_dict()
    assert tournament.round_seconds == game_file.rules.round_seconds == 180
    game = Game.objects.get(pk=game_id)

    joined = arbitrator_client.post("/api/join", {"join_code": game.join_code, "name": "Ada"}, format="json")
    assert joined.status_code == 201, joined.json()
    phone = player_client(joined.json()["token"])
    paper = arbitrator_client.post(f"/api/games/{game_id}/players", {"name": "Bea", "table": 3}, format="json")
    assert paper.status_code == 201, paper.json()

    # Locked: no rack can be drawn; a mistyped or wrong key is refused and changes nothing.
    assert arbitrator_client.post(f"/api/games/{game_id}/rounds", {}, format="json").json()["error"]["code"] == \
        "pack_locked"
    text = packs.key_text(key)
    mistyped = text[:-1] + ("0" if text[-1] != "0" else "1")
    for typed, code in ((mistyped, "pack_key_check"), (packs.key_text(bytes(16)), "wrong_pack_key"),
                        ("ABCD", "bad_pack_key")):
        refused = arbitrator_client.post(f"/api/games/{game_id}/pack/unlock", {"key": typed}, format="json")
        assert refused.status_code == 400 and refused.json()["error"]["code"] == code, refused.json()
    stored = GamePack.objects.get(game_id=game_id)
    assert stored.game_text == "" and stored.unlocked_at is None and not Round.objects.filter(game=game).exists()

    # The QR code's text opens it.
    opened = arbitrator_client.post(f"/api/games/{game_id}/pack/unlock",
                                    {"key": packs.key_qr_text(key, packs.pack_sha256(pack))}, format="json")
    assert opened.status_code == 200 and opened.json()["unlocked"] is True, opened.json()
    again = arbitrator_client.post(f"/api/games/{game_id}/pack/unlock", {"key": text}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "pack_unlocked"

    # Typing a rack or rejecting a draw would change the sequence.
    typed = arbitrator_client.post(f"/api/games/{game_id}/rounds", {"rack": "AEINRST"}, format="json")
    assert typed.status_code == 409 and typed.json()["error"]["code"] == "pack_sequence"
    assert "pack" in typed.json()["error"]["message"]
    rejected = arbitrator_client.post(f"/api/games/{game_id}/rejections", {"rack": "AEIOUUY"}, format="json")
    assert rejected.status_code == 409 and rejected.json()["error"]["code"] == "pack_sequence"

    expected = game_file.game.rounds
    for number, recorded in enumerate(expected, start=1):
        drawn = arbitrator_client.post(f"/api/games/{game_id}/rounds", {}, format="json")
        assert drawn.status_code == 201, drawn.json()
        assert drawn.json()["rack"] == recorded.rack
        assert drawn.json()["rejected"] == list(recorded.rejected)
        base = f"/api/games/{game_id}/rounds/{number}"
        if number == 2:
            # A rack replaced is refused; cancelled, the round is drawn again with the same rack.
            fixed = arbitrator_client.post(f"{base}/rack", {"rack": "AEINRST", "reason": "mistyped"}, format="json")
            assert fixed.status_code == 409 and fixed.json()["error"]["code"] == "pack_sequence"
            cancelled = arbitrator_client.post(f"{base}/cancel", {"reason": "rack shown too early"}, format="json")
            assert cancelled.status_code == 200, cancelled.json()
            redrawn = arbitrator_client.post(f"/api/games/{game_id}/rounds", {}, format="json")
            assert redrawn.status_code == 201 and redrawn.json()["rack"] == recorded.rack
        assert arbitrator_client.post(f"{base}/start", {}, format="json").status_code == 200
        if number == 3:
            paused = arbitrator_client.post(f"{base}/pause", {"reason": "noise"}, format="json")
            assert paused.status_code == 200
            assert arbitrator_client.post(f"{base}/resume", {}, format="json").status_code == 200
            assert arbitrator_client.post(f"{base}/extend", {"extra_seconds": 30, "reason": "noise"},
                                          format="json").status_code == 200
        master = packs.play_to_dict(recorded.master, "rows-numbers")
        sent = phone.post(f"{base}/slips", {"word": master["word"], "ref": master["ref"],
                                            "score": master["score"], "key": f"a{number}"}, format="json")
        assert sent.status_code in (200, 201), sent.json()
        typed_slip = arbitrator_client.post(f"{base}/slips", {"table": 3, "word": master["word"], "ref": master["ref"],
                                                              "score": master["score"], "key": f"b{number}"}, format="json")
        assert typed_slip.status_code in (200, 201), typed_slip.json()
        closed = arbitrator_client.post(f"{base}/close", {}, format="json")
        assert closed.status_code == 200, closed.json()
        round = Round.objects.counting().get(game=game, number=number)
        assert round.rack == recorded.rack and round.status == Round.Status.CLOSED
        assert (round.master["word"], round.master["ref"], round.master["score"]) == \
            (master["word"], master["ref"], master["score"])
        other = next((t for t in round.tops if (t["word"], t["ref"]) != (master["word"], master["ref"])), None)
        choose = arbitrator_client.post(f"{base}/master", {"word": (other or master)["word"],
                                                           "ref": (other or master)["ref"]}, format="json")
        assert choose.status_code == 409 and choose.json()["error"]["code"] == "pack_master", choose.json()
        ada = Result.objects.get(round=round, player__name="Ada")
        assert ada.paid == recorded.master.score
    game.refresh_from_db()
    assert game.status == Game.Status.OVER and game.end_reason == "pack_end"
    assert tuple(game.board) == game_file.game.board
    over = arbitrator_client.post(f"/api/games/{game_id}/rounds", {}, format="json")
    assert over.status_code == 409 and over.json()["error"]["code"] == "game_over"
    actions = list(LogEntry.objects.filter(game=game).values_list("action", flat=True))
    assert actions.count("pack_import") == 1 and actions.count("pack_unlock") == 1


@pytest.mark.django_db
def test_before_the_key_no_address_shows_a_rack_or_a_master(client, arbitrator, make_tournament, make_player,
                                                             game_file, sealed, trusted):
    pack, _ = sealed
    tournament = make_tournament(name="Club", created_by=arbitrator)
    game = centre.pack_import(tournament=tournament, raw=packs.pack_bytes(pack), actor=arbitrator)
    _, token = make_player(game, name="Ada", table=1)
    secrets = _secrets(game_file)
    with pytest.raises(ServiceError) as locked:
        round_draw(game=game, actor=arbitrator)
    assert locked.value.code == "pack_locked"

    addresses = [*_guessable_addresses(game.pk, tournament.pk), f"/api/games/{game.pk}/pack",
                 f"/api/games/{game.pk}/exports/record.json", f"/api/games/{game.pk}/sheets/scoresheets.pdf"]
    console = [reverse(name, args=[game.pk]) for name in (
        "console-game", "console-game-live", "console-rounds", "console-standings", "console-players",
        "console-slips", "console-log", "console-arbitrators", "console-receipt")]
    console += [reverse("console-tournament", args=[tournament.pk]), reverse("console-home")]

    def walk(paths, **headers):
        seen = 0
        for address in paths:
            answer = client.get(address, HTTP_ACCEPT_LANGUAGE="en", **headers)
            body = b"".join(answer.streaming_content) if answer.streaming else answer.content
            text = body.decode("latin-1")
            for secret in secrets:
                assert secret not in text, (address, secret)
            seen += answer.status_code == 200
        return seen

    walk(addresses)  # anonymously
    assert walk(addresses, HTTP_AUTHORIZATION=f"Bearer {token}") > 0  # the game's player
    client.force_login(arbitrator)
    assert walk(addresses + console) >= len(console)
    stored = GamePack.objects.get(game=game)
    for secret in secrets:
        assert secret not in stored.pack
        for entry in LogEntry.objects.filter(game=game):
            assert secret not in json.dumps([entry.before, entry.after, entry.reason])


@pytest.mark.django_db
def test_an_untrusted_changed_or_other_list_pack_is_refused(arbitrator_client, arbitrator, make_tournament,
                                                            game_file, sealed, settings):
    pack, _ = sealed
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = []
    tournament = make_tournament(name="Club", created_by=arbitrator)
    fingerprint = packs.fingerprint(pack["seal"]["key"])

    untrusted = _import(arbitrator_client, tournament, pack)
    assert untrusted.status_code == 400 and untrusted.json()["error"]["code"] == "pack_untrusted"
    assert fingerprint in untrusted.json()["error"]["message"]
    wrong = _import(arbitrator_client, tournament, pack, trust_fingerprint="AAAA-BBBB-CCCC-DDDD")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "pack_fingerprint"
    assert not TrustedOrganiserKey.objects.exists() and not Game.objects.filter(tournament=tournament).exists()

    changed = json.loads(packs.pack_bytes(pack))
    changed["event"] = "Another event"
    altered = _import(arbitrator_client, tournament, changed, trust_fingerprint=fingerprint)
    assert altered.status_code == 400 and altered.json()["error"]["code"] == "pack_altered"

    other_list, _ = packs.seal_pack(dataclasses.replace(game_file, lexicon_sha256="0" * 64), event="E",
                                    game_id="G2", signer=Ed25519PrivateKey.generate())
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [other_list["seal"]["key"]]
    lexicon = _import(arbitrator_client, tournament, packs.pack_bytes(other_list).decode())
    assert lexicon.status_code == 400 and lexicon.json()["error"]["code"] == "pack_wrong_lexicon"
    assert "TWL06" in lexicon.json()["error"]["message"]
    assert not Game.objects.filter(tournament=tournament).exists()

    # Trusted once its fingerprint is typed as the organiser reads it out (case and dashes forgiven).
    ok = _import(arbitrator_client, tournament, pack, trust_fingerprint=fingerprint.lower().replace("-", " "))
    assert ok.status_code == 201, ok.json()
    assert TrustedOrganiserKey.objects.get().fingerprint == fingerprint
    assert _import(arbitrator_client, tournament, pack).status_code == 201  # trusted from now on


@pytest.mark.django_db
def test_the_console_imports_trusts_and_unlocks_a_pack(client, arbitrator, make_tournament, game_file, sealed,
                                                       settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    pack, key = sealed
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = []
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    tournament = make_tournament(name="Club", created_by=arbitrator)
    client.force_login(arbitrator)
    url = reverse("console-pack-import", args=[tournament.pk])
    assert reverse("console-pack-import", args=[tournament.pk]) in client.get(
        reverse("console-tournament", args=[tournament.pk])).content.decode()
    fingerprint = packs.fingerprint(pack["seal"]["key"])

    def upload(**extra):
        return client.post(url, {"file": SimpleUploadedFile("G1.pack.json", packs.pack_bytes(pack)), **extra},
                           HTTP_ACCEPT_LANGUAGE="en")

    refused = upload()
    assert refused.status_code == 400 and fingerprint in refused.content.decode()
    assert "by phone" in refused.content.decode()
    assert not Game.objects.filter(tournament=tournament).exists()
    imported = upload(trust_fingerprint=fingerprint)
    assert imported.status_code == 302, imported.content.decode()[:2000]
    game = Game.objects.get(tournament=tournament)
    assert imported["Location"] == reverse("console-pack", args=[game.pk])

    page = client.get(reverse("console-pack", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert fingerprint in page and packs.pack_sha256(pack) in page and "Fermé" in page
    screen = client.get(reverse("console-game", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert reverse("console-pack", args=[game.pk]) in screen and 'id="pack-locked"' in screen
    assert 'name="rack"' not in screen and "Draw at random" not in screen

    unlock = reverse("console-pack-unlock", args=[game.pk])
    wrong = client.post(unlock, {"key": packs.key_text(bytes(16))}, HTTP_ACCEPT_LANGUAGE="fr")
    assert wrong.status_code == 400 and "cette clé n&#x27;ouvre pas ce paquet" in wrong.content.decode().lower()
    assert GamePack.objects.get(game=game).unlocked_at is None
    opened = client.post(unlock, {"key": packs.key_text(key).lower().replace("-", " ")})
    assert opened.status_code == 302 and opened["Location"] == reverse("console-game", args=[game.pk])
    assert GamePack.objects.get(game=game).unlocked_at is not None
    screen = client.get(reverse("console-game", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Dévoiler le tirage suivant du paquet" in screen and 'id="pack-locked"' not in screen
    client.post(reverse("console-draw", args=[game.pk]), {"rack": ""})
    assert Round.objects.get(game=game, number=1).rack == game_file.game.rounds[0].rack


@pytest.mark.django_db
def test_a_started_tournament_with_other_settings_refuses_the_pack(arbitrator, make_tournament, game_file,
                                                                   organiser, trusted):
    timed = dataclasses.replace(game_file, rules=dataclasses.replace(game_file.rules, round_seconds=150))
    pack, _ = packs.seal_pack(timed, event="Simultané", game_id="G3", signer=organiser)
    started = make_tournament(name="Started", created_by=arbitrator, coordinates="rows-numbers")
    from tournaments.services import game_create

    round_draw(game=game_create(tournament=started, actor=arbitrator), rack="AEINRST", actor=arbitrator)
    with pytest.raises(ServiceError) as refused:
        centre.pack_import(tournament=started, raw=pack, actor=arbitrator)
    assert refused.value.code == "pack_settings" and refused.value.params["settings"] == "round_seconds"
    assert started.games.count() == 1 and not GamePack.objects.exists()

    fresh = make_tournament(name="Fresh", created_by=arbitrator)
    game = centre.pack_import(tournament=fresh, raw=pack, actor=arbitrator)
    fresh.refresh_from_db()
    assert (fresh.round_seconds, fresh.coordinates, fresh.rule_overrides) == (150, "rows-numbers", {})
    assert game.tournament_id == fresh.pk
