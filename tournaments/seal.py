"""The server's seal: an Ed25519 signature (PyCA cryptography) over a canonical JSON text.

What the server hands out and may have to stand behind later is sealed with it: a player's slip receipt
(the slip, its arrival, the round), and a game record. Anyone holding the server's public key checks a seal
without a secret; the console checks a receipt shown in a dispute, an import checks a record.

The key, in order:
- ``SIGNING_KEY`` (setting ``ARBITER_SIGNING_KEY``): 32 bytes in base64, the private key's seed; for several
  installations that must sign as one (the web and worker containers of one service);
- else the key kept in ``DATA_DIR/signing.key`` (readable by its owner only) when there is one: made there
  for the development secret key (a checkout keeps that seal when a later run has a real secret key: `make
  run HOST=0.0.0.0` turns DEBUG off, arbiter/settings/__init__.py), or brought back by a restore;
- else derived from ``SECRET_KEY`` with HKDF-SHA256, when the secret key is a real one (every deployment with
  DEBUG off has one);
- else (the embedded default's development key, which every laptop shares) a key made once and kept in
  ``DATA_DIR/signing.key``.

A backup of the embedded database carries the key in use (arbiter/backups.py; the copy is readable by its
owner only), and a restore brings it back (``bring_back``): written to ``DATA_DIR/signing.key``, so that the
receipts sealed before, on a laptop since lost, still read ``this_server``. The key it replaces, and a carried
key that cannot take over (``SIGNING_KEY`` is set), are kept as this installation's earlier keys
(``DATA_DIR/signing-keys.earlier``, public keys only): their seals read ``this_server`` too.

Other servers whose seals this one accepts (a federation's centres) are listed by their public keys in
``TRUSTED_SIGNING_KEYS`` (setting ``ARBITER_TRUSTED_SIGNING_KEYS``).
"""

from __future__ import annotations

import base64
import json
import os
import threading
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ALGORITHM = "ed25519"
DEVELOPMENT_SECRET = "insecure-development-key-only-for-local-use"
KEY_FILE = "signing.key"
EARLIER_FILE = "signing-keys.earlier"  # this installation's earlier public keys, one a line
HKDF_INFO = b"duplicate-arbiter server seal v1"

# How a seal was found: made by this server, by a server it trusts, or by a key it does not know.
THIS_SERVER = "this_server"
TRUSTED = "trusted"
UNKNOWN_KEY = "unknown_key"

_lock = threading.Lock()
_keys: dict[tuple, tuple[Ed25519PrivateKey, str]] = {}  # the key and its public text, per source


class BadSeal(ValueError):
    """The seal is malformed, or its signature does not match the text."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    text = str(text).strip()
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical(payload) -> bytes:
    """The one byte string signed for a JSON value: keys sorted, no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def _file_key(folder: Path) -> Ed25519PrivateKey:
    path = folder / KEY_FILE
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        seed = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        hidden = folder / f".{KEY_FILE}.{os.getpid()}"
        descriptor = os.open(hidden, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(_b64(seed) + "\n")
        try:
            os.link(hidden, path)  # the first process to make one wins; the others read it
        except FileExistsError:
            pass
        finally:
            hidden.unlink(missing_ok=True)
    return Ed25519PrivateKey.from_private_bytes(_unb64(path.read_text()))


def server_key() -> tuple[Ed25519PrivateKey, str]:
    """This server's key and its public text, made once per source of the key."""
    from django.conf import settings

    configured = getattr(settings, "ARBITER_SIGNING_KEY", "") or ""
    secret = settings.SECRET_KEY
    folder = Path(settings.DATA_DIR)
    cache_key = (configured, secret, str(folder))
    with _lock:
        kept = _keys.get(cache_key)
        if kept is None:
            if configured:
                seed = _unb64(configured)
                if len(seed) != 32:
                    raise ValueError("SIGNING_KEY must be 32 bytes in base64")
                key = Ed25519PrivateKey.from_private_bytes(seed)
            elif (folder / KEY_FILE).exists() or not secret or secret == DEVELOPMENT_SECRET:
                key = _file_key(folder)
            else:
                seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=HKDF_INFO).derive(secret.encode())
                key = Ed25519PrivateKey.from_private_bytes(seed)
            kept = _keys[cache_key] = (key, _public_text(key.public_key()))
    return kept


def key_seed() -> str:
    """The private seed of the key in use, base64: what a backup carries (never shown, never logged)."""
    return _b64(server_key()[0].private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                              serialization.NoEncryption()))


def earlier_keys() -> set[str]:
    """This installation's earlier public keys (DATA_DIR/signing-keys.earlier), whose seals are its own."""
    from django.conf import settings

    try:
        text = (Path(settings.DATA_DIR) / EARLIER_FILE).read_text(encoding="ascii")
    except (FileNotFoundError, UnicodeDecodeError):
        return set()
    return {line.strip().rstrip("=") for line in text.splitlines() if line.strip()}


def _keep_earlier(folder: Path, public: str) -> None:
    known = earlier_keys()
    if public in known:
        return
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / EARLIER_FILE, "a", encoding="ascii") as handle:
        handle.write(public + "\n")


def _write_owner_only(path: Path, text: str) -> None:
    """``path`` replaced by ``text``, readable by its owner only from the first byte (0o600)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def bring_back(seed_text: str) -> str:
    """A restored backup's key (its seed, base64) becomes this installation's again: written to
    DATA_DIR/signing.key (owner-only) and used from now on, the key it replaces kept among the earlier keys;
    when ``SIGNING_KEY`` is set (it wins), the carried key is kept among the earlier keys instead. Either way
    the seals made with it read ``this_server``. Returns what was done, for the restore's report."""
    from django.conf import settings

    seed = _unb64(seed_text)
    if len(seed) != 32:
        raise ValueError("a backup's signing key must be 32 bytes")
    carried = _public_text(Ed25519PrivateKey.from_private_bytes(seed).public_key())
    current = public_key()
    folder = Path(settings.DATA_DIR)
    if carried == current:
        return f"signing key {carried[:12]}... unchanged"
    if getattr(settings, "ARBITER_SIGNING_KEY", ""):
        _keep_earlier(folder, carried)
        return f"signing key {carried[:12]}... kept as an earlier key (SIGNING_KEY is set)"
    _keep_earlier(folder, current)
    folder.mkdir(parents=True, exist_ok=True)
    _write_owner_only(folder / KEY_FILE, _b64(seed) + "\n")
    with _lock:
        _keys.clear()
    return f"signing key {carried[:12]}... brought back (the key replaced, {current[:12]}..., is still trusted)"


def _public_text(public: Ed25519PublicKey) -> str:
    return _b64(public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def public_key() -> str:
    """This server's public key, base64 (URL-safe, unpadded), as seals and the console show it."""
    return server_key()[1]


def sign(payload) -> dict:
    """The seal of a JSON value: ``{"alg", "key", "sig"}``."""
    key, public = server_key()
    return {"alg": ALGORITHM, "key": public, "sig": _b64(key.sign(canonical(payload)))}


def verify(payload, seal) -> str:
    """Check a seal against the value it claims to seal: ``this_server``, ``trusted`` or ``unknown_key``
    (a sound signature by a key this server does not know). A malformed seal or a signature that does not
    match raises BadSeal."""
    from django.conf import settings

    if not isinstance(seal, dict) or seal.get("alg") != ALGORITHM:
        raise BadSeal("not an ed25519 seal")
    try:
        public = Ed25519PublicKey.from_public_bytes(_unb64(seal.get("key", "")))
        signature = _unb64(seal.get("sig", ""))
        public.verify(signature, canonical(payload))
    except (InvalidSignature, ValueError, TypeError) as error:
        raise BadSeal("the signature does not match") from error
    key = _public_text(public)
    if key == public_key() or key in earlier_keys():
        return THIS_SERVER
    trusted = {str(text).strip().rstrip("=") for text in getattr(settings, "ARBITER_TRUSTED_SIGNING_KEYS", ())}
    return TRUSTED if key in trusted else UNKNOWN_KEY
