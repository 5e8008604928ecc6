"""The server's seal: an Ed25519 signature (PyCA cryptography) over a canonical JSON text.

What the server hands out and may have to stand behind later is sealed with it: a player's slip receipt
(the slip, its arrival, the round), and a game record. Anyone holding the server's public key checks a seal
without a secret; the console checks a receipt shown in a dispute, an import checks a record.

The key, in order:
- ``SIGNING_KEY`` (setting ``ARBITER_SIGNING_KEY``): 32 bytes in base64, the private key's seed; for several
  installations that must sign as one (the web and worker containers of one service);
- else the key kept in ``DATA_DIR/signing.key`` when there is one: a checkout's data folder keeps the seal
  its first runs made there, with the development key, when a later run has a real secret key (`make run
  HOST=0.0.0.0` turns DEBUG off, and the key kept in DATA_DIR/secret.key replaces the development key:
  arbiter/settings/__init__.py);
- else derived from ``SECRET_KEY`` with HKDF-SHA256, when the secret key is a real one (every deployment with
  DEBUG off has one);
- else (the embedded default's development key, which every laptop shares) a key made once and kept in
  ``DATA_DIR/signing.key``, readable by its owner only.

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
            elif secret and secret != DEVELOPMENT_SECRET and not (folder / KEY_FILE).exists():
                seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=HKDF_INFO).derive(secret.encode())
                key = Ed25519PrivateKey.from_private_bytes(seed)
            else:
                key = _file_key(folder)
            kept = _keys[cache_key] = (key, _public_text(key.public_key()))
    return kept


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
    if key == public_key():
        return THIS_SERVER
    trusted = {str(text).strip().rstrip("=") for text in getattr(settings, "ARBITER_TRUSTED_SIGNING_KEYS", ())}
    return TRUSTED if key in trusted else UNKNOWN_KEY
