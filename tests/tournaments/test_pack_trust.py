"""A centre checks and opens a pack on the command line with what it is given (docs/packs.md, "Checking a pack"):
``manage.py pack verify``/``unlock`` with ``--trust`` followed by the organiser's public key (one in 64 begins
with "-"), or ``--trust=KEY``, or the fingerprint read out on the phone; the organisers trusted at the console
are trusted there too; ``pack key`` says what the key is at a centre as well as at an organiser. Each command is
run with the words the docs show, through the command's own parser."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command
from django.core.management.base import CommandError

from tournaments import centre, packs, seal
from tournaments.models import TrustedOrganiserKey

pytestmark = pytest.mark.django_db

TRIES = 5000  # (63/64)^5000: a key beginning with "-" is all but certain within these


@pytest.fixture(scope="module")
def game_file():
    return packs.draw_game_file(seed=31, max_rounds=3)


def _organiser(dash: bool) -> Ed25519PrivateKey:
    """An organiser's key whose public text begins with "-" (or does not)."""
    for _ in range(TRIES):
        key = Ed25519PrivateKey.generate()
        if packs.public_text(key).startswith("-") == dash:
            return key
    raise AssertionError("no key beginning with '-' in 5000 tries")


def _sealed(game_file, signer, tmp_path):
    pack, key = packs.seal_pack(game_file, event="Simultané 2026", game_id="G1", signer=signer)
    path = tmp_path / "G1.pack.json"
    path.write_bytes(packs.pack_bytes(pack))
    return str(path), packs.key_text(key)


@pytest.mark.parametrize("dash", [True, False], ids=["key-beginning-with-dash", "other-key"])
def test_trust_key_as_the_docs_show_it_even_beginning_with_a_dash(game_file, tmp_path, capsys, dash):
    signer = _organiser(dash)
    public = packs.public_text(signer)
    assert public.startswith("-") == dash and len(public) == 43
    pack, key = _sealed(game_file, signer, tmp_path)
    with pytest.raises(CommandError, match="pack_untrusted"):
        call_command("pack", "verify", pack)
    call_command("pack", "verify", pack, "--trust", public)
    assert packs.fingerprint(public) in capsys.readouterr().out
    call_command("pack", "verify", pack, f"--trust={public}")
    out = tmp_path / "G1.json"
    call_command("pack", "unlock", pack, "--key", key, "--trust", public, "--out", str(out))
    assert packs.read_game_file(json.loads(out.read_text())) == game_file
    # Another key after --trust is no trust of this one.
    with pytest.raises(CommandError, match="pack_untrusted"):
        call_command("pack", "verify", pack, "--trust", packs.public_text(_organiser(True)))


def test_trust_the_fingerprint_read_out_on_the_phone(game_file, tmp_path, capsys):
    signer = _organiser(False)
    fingerprint = packs.fingerprint(packs.public_text(signer))
    pack, key = _sealed(game_file, signer, tmp_path)
    with pytest.raises(CommandError, match=f"pack_untrusted.*--trust {fingerprint}"):
        call_command("pack", "verify", pack)
    call_command("pack", "verify", pack, "--trust", fingerprint)
    assert fingerprint in capsys.readouterr().out
    # Typed as heard: lower case, spaces, O for 0 and I or L for 1.
    spoken = fingerprint.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    out = tmp_path / "G1.json"
    call_command("pack", "unlock", pack, "--key", key, "--trust", spoken, "--out", str(out))
    assert packs.read_game_file(json.loads(out.read_text())) == game_file
    # Another fingerprint trusts nothing; a value that is neither is told as such.
    other = packs.fingerprint(packs.public_text(_organiser(False)))
    with pytest.raises(CommandError, match="pack_untrusted"):
        call_command("pack", "verify", pack, "--trust", other)
    with pytest.raises(CommandError, match="neither an organiser's public key"):
        call_command("pack", "verify", pack, "--trust", "TZZS-RS6M")
    assert not out.with_name("other.json").exists()


def test_the_organisers_trusted_at_the_console_are_trusted_by_verify_and_unlock(game_file, tmp_path, capsys):
    signer = _organiser(False)
    pack, key = _sealed(game_file, signer, tmp_path)
    with pytest.raises(CommandError, match="pack_untrusted"):
        call_command("pack", "unlock", pack, "--key", key)
    # The head arbitrator trusted it at the console's import, its fingerprint checked by phone.
    fingerprint = packs.fingerprint(packs.public_text(signer))
    with open(pack, "rb") as handle:
        centre.verify(handle.read(), trust_fingerprint=fingerprint)
    assert TrustedOrganiserKey.objects.filter(key=packs.public_text(signer)).exists()
    call_command("pack", "verify", pack)
    assert fingerprint in capsys.readouterr().out
    out = tmp_path / "G1.json"
    call_command("pack", "unlock", pack, "--key", key, "--out", str(out))
    assert packs.read_game_file(json.loads(out.read_text())) == game_file


def test_pack_key_says_what_the_key_signs_at_a_centre_too(capsys, settings):
    settings.ARBITER_CENTRE_ID = "club-vichy"
    call_command("pack", "key")
    out = capsys.readouterr().out
    assert "organiser key" not in out
    assert f"public key {seal.public_key()}\n" in out
    assert f"fingerprint {packs.fingerprint(seal.public_key())}\n" in out
    assert "centre id club-vichy" in out and "results files" in out
