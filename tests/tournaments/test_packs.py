"""Pre-drawn games and sealed packs (tournaments/packs.py, manage.py pack): seal -> verify -> unlock gives the
game back; a changed pack, another signer, another word list, a wrong or mistyped key are each refused and
give nothing; nothing derived from the racks is readable before the key; the key forgives how it is typed."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from tournaments import packs, seal
from tournaments.errors import ServiceError
from tournaments.refusals import error_text

KEY = bytes(range(16))  # a fixed key: its text holds 0 and 1, so the typing tests mean something


@pytest.fixture(scope="module")
def game_file():
    return packs.draw_game_file(seed=31, max_rounds=10)


@pytest.fixture(scope="module")
def sealed(game_file):
    pack, key = packs.seal_pack(game_file, event="Simultané 2026", game_id="G1", key=KEY)
    return pack, key, packs.pack_bytes(pack)


def _refused(code, call, *args, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        call(*args, **kwargs)
    assert refused.value.code == code, refused.value.message
    return refused.value


def test_seal_verify_unlock_gives_the_game_back(game_file, sealed):
    pack, key, data = sealed
    verified = packs.verify_pack(data)
    assert verified.sha256 == hashlib.sha256(data).hexdigest() == packs.pack_sha256(pack)
    assert verified.signer == seal.public_key() and verified.fingerprint == packs.fingerprint(seal.public_key())
    assert verified.header["event"] == "Simultané 2026" and verified.header["game_id"] == "G1"
    assert verified.header["lexicon"] == {"name": "TWL06", "sha256": game_file.lexicon_sha256}
    for typed in (packs.key_text(key), key, packs.key_qr_text(key, verified.sha256)):
        opened = packs.unlock_pack(data, typed)
        assert opened == game_file
        assert opened.as_dict() == game_file.as_dict()
    # Through a file written as JSON and read back, as the centres get it.
    assert packs.unlock_pack(json.loads(data.decode()), packs.key_text(key)) == game_file


def test_nothing_derived_from_the_racks_is_readable_before_the_key(game_file, sealed):
    pack, _, data = sealed
    text = data.decode()
    assert set(pack) == {*packs.CLEAR, "cipher", "seal"}
    assert set(pack["cipher"]) == {"alg", "kdf", "salt", "nonce", "rounds"}
    for r in game_file.game.rounds:
        assert r.rack not in text and r.master.word.upper() not in text.upper() or len(r.master.word) < 5
        assert f'"{r.rack}"' not in text
    # The seed is no field of the clear header, nor any value in it (its digits may well appear inside the
    # sealing time: only whole values are compared).
    header = packs.verify_pack(data).header
    assert "seed" not in header and str(game_file.game.seed) not in {str(value) for value in header.values()}
    # The size says nothing of the rounds: every game is padded to 16 kB.
    short = packs.draw_game_file(seed=32, max_rounds=3)
    assert len(packs.seal_pack(short, event="E", game_id="G1", key=KEY)[0]["cipher"]["rounds"]) == len(
        pack["cipher"]["rounds"])


def test_a_changed_pack_is_refused_and_gives_nothing(sealed):
    pack, key, data = sealed
    text = data.decode()
    middle = text.index('"rounds":"') + 40
    flipped = text[:middle] + ("A" if text[middle] != "A" else "B") + text[middle + 1:]
    _refused("pack_altered", packs.unlock_pack, flipped.encode(), packs.key_text(key))
    _refused("pack_altered", packs.verify_pack, flipped.encode())
    renamed = {**pack, "event": "Another event"}
    _refused("pack_altered", packs.verify_pack, renamed)
    _refused("pack_altered", packs.unlock_pack, {**pack, "rules": {**pack["rules"], "bingo_bonus": 60}}, key)
    _refused("bad_pack", packs.verify_pack, data[:-1])
    _refused("bad_pack", packs.verify_pack, b'{"format": "something else"}')


def test_a_pack_signed_by_another_key_is_refused_with_its_fingerprint(game_file, settings):
    other = Ed25519PrivateKey.generate()
    pack, key = packs.seal_pack(game_file, event="E", game_id="G1", signer=other)
    print_ = packs.fingerprint(packs.public_text(other))
    refused = _refused("pack_untrusted", packs.unlock_pack, packs.pack_bytes(pack), key)
    assert refused.params["fingerprint"] == print_ and print_ in refused.message
    assert len(print_) == 19 and print_.count("-") == 3
    with translation.override("fr"):
        assert print_ in error_text(refused) and "empreinte" in error_text(refused)
    # Trusted once listed: in the setting, or given to the call.
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(other)]
    assert packs.unlock_pack(pack, key) == game_file
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = []
    assert packs.verify_pack(pack, trusted={packs.public_text(other)}).fingerprint == print_
    _refused("pack_untrusted", packs.verify_pack, pack, trusted={seal.public_key()[:-1] + "x"})


def test_a_pack_for_another_word_list_is_refused_naming_it(sealed):
    pack, key, data = sealed
    refused = _refused("pack_wrong_lexicon", packs.unlock_pack, data, key, lexicon_sha256=lambda name: "0" * 64)
    assert refused.params["lexicon"] == "TWL06" and "TWL06" in refused.message
    with translation.override("fr"):
        assert "TWL06" in error_text(refused) and "liste de mots" in error_text(refused)
    refused = _refused("pack_wrong_lexicon", packs.verify_pack, data, lexicon_sha256=lambda name: None)
    assert "does not hold" in refused.message and "TWL06" in refused.message
    # The pack's own list named differently here: signed, so changing it is a change of the pack.
    _refused("pack_altered", packs.verify_pack, {**pack, "lexicon": {**pack["lexicon"], "sha256": "0" * 64}})


def test_a_wrong_key_is_refused_and_gives_nothing(sealed):
    _, key, data = sealed
    other = bytes(reversed(KEY))
    _refused("wrong_pack_key", packs.unlock_pack, data, packs.key_text(other))
    _refused("wrong_pack_key", packs.unlock_pack, data, other)
    # A scanned key of another pack says so.
    refused = _refused("wrong_pack_key", packs.unlock_pack, data, packs.key_qr_text(key, "ab" * 32))
    assert refused.params == {"why": "other_pack", "pack": "AB" * 8}


def test_a_mistyped_key_group_is_told_before_any_decryption(sealed):
    _, key, data = sealed
    text = packs.key_text(key)
    groups = text.split("-")
    assert len(groups) == 7 and all(len(group) == 4 for group in groups)
    mistyped = 0
    for index in range(7):  # one symbol changed in each group in turn
        symbols = list(groups[index])
        symbols[1] = packs.CROCKFORD[(packs.CROCKFORD.index(symbols[1]) + 1) % 32]
        wrong = "-".join([*groups[:index], "".join(symbols), *groups[index + 1:]])
        with pytest.raises(ServiceError) as refused:
            packs.unlock_pack(data, wrong)
        mistyped += refused.value.code == "pack_key_check"
        assert refused.value.code in ("pack_key_check", "wrong_pack_key")
    assert mistyped >= 6  # the 12-bit check misses one change in 4096
    refused = _refused("bad_pack_key", packs.read_key, text[:-5])
    assert refused.params == {"why": "length", "count": 24, "size": 28}
    refused = _refused("bad_pack_key", packs.read_key, "U" + text[1:])
    assert refused.params["characters"] == "U"
    with translation.override("fr"):
        assert "relisez" in error_text(refused)


def test_the_key_forgives_case_o_for_0_i_and_l_for_1_spaces_and_dashes():
    text = packs.key_text(KEY)
    assert "0" in text and "1" in text
    for typed in (text.lower(), text.replace("-", " "), text.replace("-", ""), text.replace("0", "O"),
                  text.replace("1", "I"), text.replace("1", "l").lower(), "  " + text.replace("-", " - ") + "\n"):
        assert packs.read_key(typed) == KEY, typed
    rng = random.Random(5)
    for _ in range(20):
        key = bytes(rng.randrange(256) for _ in range(16))
        assert packs.read_key(packs.key_text(key)) == key
    qr = packs.key_qr_text(KEY, "ab" * 32)
    assert packs.read_key(qr, "ab" * 32) == KEY
    assert all(ch in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:" for ch in qr)  # QR alphanumeric mode


def test_a_game_record_is_imported_with_its_racks_and_masters(played_game):
    from tournaments.exports import export_record

    record = json.loads(json.dumps(export_record(played_game.game)))
    imported = packs.game_file_from_record(record)
    closed = list(played_game.game.rounds.filter(status="closed").order_by("number"))
    assert [r.rack for r in imported.game.rounds] == [r.rack for r in closed]
    assert [(r.master.word, r.master.score) for r in imported.game.rounds] == [
        (r.master["word"], r.master["score"]) for r in closed]
    assert list(imported.game.board) == list(played_game.game.board)
    assert imported.lexicon == played_game.game.tournament.lexicon
    # A record edited since it was sealed is refused as the restore refuses it.
    record["rounds"][0]["rack"] = "QQQQQQQ"
    _refused("bad_seal", packs.game_file_from_record, record)


def test_the_assignment_is_a_permutation_fixed_by_the_commitment_and_the_beacon():
    hashes = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(8)]
    events = [f"club {i}" for i in range(8)]
    first = packs.assign(hashes, events, "beacon-1")
    assert first == packs.assign(list(reversed(hashes)), events, "beacon-1")  # the packs' order does not matter
    assert sorted(sha for _, sha in first) == sorted(hashes) and [e for e, _ in first] == events
    assert packs.assign(hashes, events, "beacon-2") != first
    assert packs.commitment(hashes, events).splitlines()[1:3] == ["event club 0", "event club 1"]
    _refused("bad_pack", packs.assign, hashes[:2], events, "beacon-1")


@pytest.mark.django_db
def test_the_command_draws_seals_verifies_and_unlocks(tmp_path, capsys):
    game, pack, key = tmp_path / "game.json", tmp_path / "pack.json", tmp_path / "key.txt"
    call_command("pack", "draw", "--seed", "31", "--max-rounds", "10", "--out", str(game))
    assert packs.read_game_file(json.loads(game.read_text())) == packs.draw_game_file(seed=31, max_rounds=10)
    call_command("pack", "seal", str(game), "--event", "E", "--game-id", "G1", "--out", str(pack),
                 "--key-out", str(key))
    out = capsys.readouterr().out
    assert hashlib.sha256(pack.read_bytes()).hexdigest() in out and key.read_text().strip() in out
    call_command("pack", "verify", str(pack))
    assert packs.fingerprint(seal.public_key()) in capsys.readouterr().out
    call_command("pack", "unlock", str(pack), "--key", key.read_text().lower(), "--out", str(tmp_path / "back.json"))
    assert json.loads((tmp_path / "back.json").read_text()) == json.loads(game.read_text())
    with pytest.raises(CommandError, match="wrong_pack_key"):
        call_command("pack", "unlock", str(pack), "--key", packs.key_text(bytes(16)))


def test_a_pre_drawn_game_is_the_game_a_room_draws_from_the_same_seed(make_tournament, arbitrator, settings):
    """The engine's game from seed S is the game the services draw for a game of seed S, random racks and the
    proposed masters: same racks, same rejected draws, same masters."""
    from datetime import timedelta

    from django.utils import timezone

    from tournaments import services

    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    rounds = 6
    game = services.game_create(tournament=make_tournament(name="Room", created_by=arbitrator), seed=4242)
    start = timezone.now() - timedelta(hours=2)
    live = []
    for number in range(1, rounds + 1):
        round = services.round_draw(game=game, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=200))
        round.refresh_from_db()
        live.append((round.rack, list(round.rejected), round.master["word"], round.master["ref"],
                     round.master["score"]))
    drawn = packs.draw_game_file(seed=4242, max_rounds=rounds)
    assert [(r.rack, list(r.rejected), r.master.word, packs.play_to_dict(r.master, "rows-letters")["ref"],
             r.master.score) for r in drawn.game.rounds] == live
