"""Pre-drawn games and sealed packs (issue 25, parts 1 and 2; the organiser's steps in docs/packs.md).

A **game file** (``duplicate-arbiter/pregame``) is the organiser's own copy of a pre-drawn game: drawn by the
engine from a seed (engine/pregame.py) or rebuilt from a game record (tournaments/exports/record.py), with its
rules, tile set, labelling and word list. It is secret until the event.

A **pack** (``duplicate-arbiter/pack``) is what the centres receive days before: a JSON file holding in clear
the event, the game's id, the rules, tile set and labelling, and the word list's name and SHA-256; and the
game itself (racks, masters, and everything derived from them) encrypted with AES-256-GCM. The pack is
signed with the organiser's Ed25519 key (tournaments/seal.py's canonical JSON; the organiser's installation
key by default) over everything else in it. The file is written as that canonical JSON, so its SHA-256 (what
``sha256sum`` prints) is the pack's commitment, published before the key is given.

The **key** is 128 random bits given out at the start time. The AES-256 key is derived from it with
HKDF-SHA256 (the pack's random salt). It is typed as 28 Crockford base32 symbols in 7 groups of 4: 140 bits,
the key's 128 followed by a 12-bit check (SHA-256 of the key), so that a mistyped key is told from a wrong
one before anything is decrypted. Typing forgives case, O for 0, I and L for 1, spaces and dashes. The QR
code's text is ``ARBITER-PACK-KEY:<the key's 28 symbols>:<the pack's SHA-256, first 16 hex digits>``.

Every refusal is a ServiceError with a code of tournaments/pack_refusals.py: ``bad_pack``, ``pack_altered``,
``pack_untrusted`` (with the signer's fingerprint, to check by phone), ``pack_wrong_lexicon`` (naming the
list), ``bad_pack_key``, ``pack_key_check``, ``wrong_pack_key``, ``bad_game_file``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.utils import timezone

from engine.board import Board
from engine.pregame import Pregame, PregameError, PregameRound, draw_game, replay_game
from engine.rules import Rules
from engine.tiles import load_tileset
from tournaments import seal
from tournaments.errors import ServiceError
from tournaments.setting import play_from_dict, play_to_dict

GAME_FORMAT = "duplicate-arbiter/pregame"
PACK_FORMAT = "duplicate-arbiter/pack"
VERSION = 1
CIPHER = "AES-256-GCM"
KDF_INFO = b"duplicate-arbiter pack v1"
KEY_BYTES = 16  # the unlock key: 128 bits
KEY_CHECK_BITS = 12
KEY_SYMBOLS = 28  # (128 + 12) / 5
KEY_GROUP = 4
PADDING = 16384  # the game's text is padded to a multiple of this: a whole game fits, all packs weigh the same
QR_PREFIX = "ARBITER-PACK-KEY"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_TYPED = {"O": "0", "I": "1", "L": "1"}
SEAL_KEY = "seal"
CLEAR = ("format", "version", "event", "game_id", "lexicon", "tileset", "labelling", "rules", "sealed_at")


# --------------------------------------------------------------------------------------------------
# The game file


def game_payload(game: Pregame, labelling: str) -> dict:
    """The game as JSON: what the pack encrypts."""
    return {
        "seed": game.seed,
        "end_reason": game.end_reason,
        "left": game.left,
        "board": list(game.board),
        "rounds": [
            {"number": r.number, "rack": r.rack, "kept": r.kept, "drawn": r.drawn, "rejected": list(r.rejected),
             "cancelled": list(r.cancelled), "master": play_to_dict(r.master, labelling), "top_score": r.top_score,
             "tied_tops": r.tied_tops, "plays": r.plays}
            for r in game.rounds
        ],
    }


def pregame_of(payload: dict, rules: Rules | None = None, tileset: str = "english") -> Pregame:
    """The engine's game back from ``game_payload`` (each round's board by placing the masters before it; in a
    joker or explosive game, with each placed blank then replaced by its letter while the bag held one: the
    bag being the set's tiles less those on the board and those kept for the next rack)."""
    board, rounds = Board.empty(), []
    tiles = load_tileset(tileset) if rules is not None and (rules.joker or rules.explosive) else None
    for r in payload["rounds"]:
        master = play_from_dict(r["master"])
        rounds.append(PregameRound(number=r["number"], rack=r["rack"], kept=r["kept"], drawn=r["drawn"],
                                   rejected=tuple(r["rejected"]), cancelled=tuple(r["cancelled"]), master=master,
                                   top_score=r["top_score"], tied_tops=r["tied_tops"], plays=r["plays"],
                                   board=tuple(board.rows())))
        board = board.place(master)
        if tiles is not None:
            board = _blanks_replaced(board, master, r["rack"], rules, tiles)
    if tuple(board.rows()) != tuple(payload["board"]):
        raise ValueError("the masters do not make the game's board")
    return Pregame(seed=payload["seed"], rounds=tuple(rounds), board=tuple(payload["board"]), left=payload["left"],
                   end_reason=payload["end_reason"])


def _blanks_replaced(board: Board, master, rack: str, rules: Rules, tiles) -> Board:
    from collections import Counter
    from dataclasses import replace

    from engine.drawing import replace_played_blanks
    from engine.layout import SIZE
    from engine.master import leave
    from engine.tiles import BLANK, BLANK_CHAR

    out = Counter()
    for row in range(SIZE):
        for col in range(SIZE):
            if board.tile(row, col):
                out[BLANK_CHAR if board.tile(row, col) & BLANK else board.get(row, col).upper()] += 1
    out.update(leave(rack, master))
    bag = list((Counter(tiles.full_bag()) - out).elements())
    board, _bag, _letters = replace_played_blanks(board, master.tiles, bag, replace(rules, joker=True, explosive=False))
    return board


@dataclass(frozen=True)
class GameFile:
    """A pre-drawn game with what it is played with."""

    game: Pregame
    rules: Rules
    tileset: str
    labelling: str
    lexicon: str
    lexicon_sha256: str

    def as_dict(self) -> dict:
        return {"format": GAME_FORMAT, "version": VERSION, "lexicon": {"name": self.lexicon,
                                                                      "sha256": self.lexicon_sha256},
                "tileset": self.tileset, "labelling": self.labelling, "rules": self.rules.as_dict(),
                "game": game_payload(self.game, self.labelling)}


def _lexicon(name: str):
    from tournaments.lexicons import get_lexicon

    try:
        return get_lexicon(name)
    except LookupError:
        raise ServiceError("pack_wrong_lexicon", params={"lexicon": name, "why": "missing"}) from None


def draw_game_file(*, seed: int, lexicon: str = "TWL06", tileset: str = "english", rules: Rules | None = None,
                   labelling: str = "rows-letters", max_rounds: int | None = None) -> GameFile:
    """Draw a whole game alone from ``seed`` (engine.pregame.draw_game) with these rules, tiles and list."""
    rules = rules or Rules()
    words = _lexicon(lexicon)
    game = draw_game(seed, words, load_tileset(tileset), rules, max_rounds=max_rounds)
    return GameFile(game, rules, tileset, labelling, words.name, words.sha256)


def game_file_from_record(record: dict) -> GameFile:
    """A game from a game record (``record.json``): its settings, and its played rounds (closed, in order;
    cancelled ones left out) with their racks and masters, each checked again by the engine. The record is
    read by the restore's own checks (tournaments/exports/restore.py); its seal, when it has one, must match."""
    from tournaments.exports.restore import check_record, check_seal

    check_record(record)
    check_seal(record)
    settings = record["tournament"]
    try:
        from engine.rules import variant_rules

        rules = variant_rules(settings.get("variant") or "duplicate", ruleset=settings.get("ruleset") or "fisf",
                              timing=settings.get("timing") or "normal",
                              **{"round_seconds": settings.get("round_seconds") or 180,
                                 **(settings.get("rule_overrides") or {})})
        tileset = load_tileset(settings.get("tileset") or "english")
    except (ValueError, LookupError) as error:
        raise ServiceError("bad_game_file", params={"detail": str(error)}) from None
    labelling = settings.get("coordinates") or "rows-letters"
    words = _lexicon(settings.get("lexicon") or "TWL06")
    played = sorted((r for r in record["rounds"] if r.get("status") == "closed"), key=lambda r: r["number"])
    try:
        game = replay_game([(r["rack"], r.get("master"), r.get("rejected") or ()) for r in played], words,
                           tileset, rules, labelling)
    except PregameError as error:
        raise ServiceError("bad_game_file", params={"detail": str(error)}) from None
    return GameFile(game, rules, tileset.name, labelling, words.name, words.sha256)


def read_game_file(data: dict) -> GameFile:
    """A game file read back (``GameFile.as_dict``); 400 ``bad_game_file`` when it is not one."""
    try:
        if data.get("format") != GAME_FORMAT or data.get("version") != VERSION:
            raise ValueError(f"not a game file of version {VERSION}")
        return GameFile(pregame_of(data["game"], Rules(**data["rules"]), str(data["tileset"])), Rules(**data["rules"]),
                        str(data["tileset"]),
                        str(data["labelling"]), str(data["lexicon"]["name"]), str(data["lexicon"]["sha256"]))
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise ServiceError("bad_game_file", params={"detail": str(error)}) from None


# --------------------------------------------------------------------------------------------------
# The key


def _symbols(value: int, count: int) -> str:
    return "".join(CROCKFORD[(value >> (5 * (count - 1 - i))) & 31] for i in range(count))


def _check(key: bytes) -> int:
    return int.from_bytes(hashlib.sha256(KDF_INFO + b" key check" + key).digest()[:2], "big") >> (16 - KEY_CHECK_BITS)


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def key_text(key: bytes) -> str:
    """The key to read out or type: 7 groups of 4 symbols (``7K2M-...``), its last 12 bits a check."""
    value = (int.from_bytes(key, "big") << KEY_CHECK_BITS) | _check(key)
    symbols = _symbols(value, KEY_SYMBOLS)
    return "-".join(symbols[i:i + KEY_GROUP] for i in range(0, KEY_SYMBOLS, KEY_GROUP))


def key_qr_text(key: bytes, pack_sha256: str) -> str:
    """The QR code's text (QR alphanumeric characters only): the key and the pack it opens."""
    return f"{QR_PREFIX}:{key_text(key).replace('-', '')}:{pack_sha256[:16].upper()}"


def read_key(text: str, pack_sha256: str | None = None) -> bytes:
    """The key from what was typed or scanned. Case, O/0, I/1, L/1, spaces and dashes do not matter.
    400 ``bad_pack_key`` (not 28 symbols, or a character no key holds), ``pack_key_check`` (mistyped: the
    check does not match), ``wrong_pack_key`` (a scanned key naming another pack)."""
    text = str(text or "").strip().upper()
    if text.startswith(QR_PREFIX + ":"):
        _, text, *named = text.split(":")
        if pack_sha256 and named and named[0] and not pack_sha256.upper().startswith(named[0]):
            raise ServiceError("wrong_pack_key", params={"why": "other_pack", "pack": named[0]})
    symbols = "".join(_TYPED.get(ch, ch) for ch in text if ch not in " -\t\n")
    wrong = sorted({ch for ch in symbols if ch not in CROCKFORD})
    if wrong:
        raise ServiceError("bad_pack_key", params={"why": "characters", "characters": " ".join(wrong)})
    if len(symbols) != KEY_SYMBOLS:
        raise ServiceError("bad_pack_key", params={"why": "length", "count": len(symbols), "size": KEY_SYMBOLS})
    value = 0
    for ch in symbols:
        value = value * 32 + CROCKFORD.index(ch)
    key = (value >> KEY_CHECK_BITS).to_bytes(KEY_BYTES, "big")
    if value & ((1 << KEY_CHECK_BITS) - 1) != _check(key):
        raise ServiceError("pack_key_check")
    return key


def _aes_key(key: bytes, salt: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=KDF_INFO).derive(key)


# --------------------------------------------------------------------------------------------------
# Signing keys


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    text = str(text).strip()
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return _b64(public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def fingerprint(public: str) -> str:
    """A public key's fingerprint to compare by phone: 16 Crockford symbols in groups of 4 (80 bits of the
    SHA-256 of the raw key)."""
    try:
        raw = _unb64(public)
    except (binascii.Error, ValueError):
        raw = str(public).encode()
    symbols = _symbols(int.from_bytes(hashlib.sha256(raw).digest()[:10], "big"), 16)
    return "-".join(symbols[i:i + 4] for i in range(0, 16, 4))


def typed_fingerprint(text: str) -> str:
    """A fingerprint as typed or read out, compared as the key is typed: case, O for 0, I and L for 1, spaces
    and dashes do not matter."""
    return "".join(_TYPED.get(ch, ch) for ch in str(text or "").upper() if ch not in " -\t\n")


def trust_value(text: str) -> tuple[str, str]:
    """What a centre was given to trust an organiser, sorted out: ("key", the 43-character public key) or
    ("fingerprint", its 16 symbols as ``typed_fingerprint`` compares them); ValueError for anything else."""
    text = str(text or "").strip()
    try:
        raw = _unb64(text)
        if len(raw) == 32:
            Ed25519PublicKey.from_public_bytes(raw)
            return "key", text.rstrip("=")
    except (binascii.Error, ValueError):
        pass
    typed = typed_fingerprint(text)
    if len(typed) == 16 and all(ch in CROCKFORD for ch in typed):
        return "fingerprint", typed
    raise ValueError(f"{text[:60]!r} is neither an organiser's public key (43 characters) nor its fingerprint "
                     "(16 symbols, e.g. TZZS-RS6M-RVQJ-AS31)")


def trusted_keys() -> set[str]:
    """The organisers this installation trusts: its own key and ``ARBITER_TRUSTED_ORGANISER_KEYS``."""
    from django.conf import settings

    listed = getattr(settings, "ARBITER_TRUSTED_ORGANISER_KEYS", ()) or ()
    if isinstance(listed, str):
        listed = listed.split(",")
    return {seal.public_key(), *(str(key).strip().rstrip("=") for key in listed if str(key).strip())}


# --------------------------------------------------------------------------------------------------
# The pack


def pack_bytes(pack: dict) -> bytes:
    """The pack's file: its canonical JSON, whose SHA-256 is the pack's."""
    return seal.canonical(pack)


def pack_sha256(pack: dict) -> str:
    return hashlib.sha256(pack_bytes(pack)).hexdigest()


def seal_pack(game_file: GameFile, *, event: str, game_id: str, key: bytes | None = None,
              signer: Ed25519PrivateKey | None = None) -> tuple[dict, bytes]:
    """The sealed pack of a game and the key that opens it (made here unless given). Signed by ``signer``,
    by default this installation's key (tournaments/seal.py)."""
    for name, value in (("event", event), ("game_id", game_id)):
        if not isinstance(value, str) or not value.strip():
            raise ServiceError("bad_pack", params={"why": "required", "field": name})
    key = key or new_key()
    if len(key) != KEY_BYTES:
        raise ValueError(f"a pack's key is {KEY_BYTES} bytes")
    header = {
        "format": PACK_FORMAT, "version": VERSION, "event": event.strip(), "game_id": game_id.strip(),
        "lexicon": {"name": game_file.lexicon, "sha256": game_file.lexicon_sha256},
        "tileset": game_file.tileset, "labelling": game_file.labelling, "rules": game_file.rules.as_dict(),
        "sealed_at": timezone.now().isoformat(),
    }
    salt, nonce = os.urandom(16), os.urandom(12)
    text = seal.canonical(game_payload(game_file.game, game_file.labelling))
    text += b" " * (-len(text) % PADDING)
    secret = AESGCM(_aes_key(key, salt)).encrypt(nonce, text, seal.canonical(header))
    body = {**header, "cipher": {"alg": CIPHER, "kdf": "HKDF-SHA256", "salt": _b64(salt), "nonce": _b64(nonce),
                                 "rounds": _b64(secret)}}
    signer = signer or seal.server_key()[0]
    pack = {**body, SEAL_KEY: {"alg": seal.ALGORITHM, "key": public_text(signer),
                               "sig": _b64(signer.sign(seal.canonical(body)))}}
    return pack, key


@dataclass(frozen=True)
class VerifiedPack:
    pack: dict
    sha256: str
    signer: str  # the organiser's public key
    fingerprint: str

    @property
    def header(self) -> dict:
        return {name: self.pack[name] for name in CLEAR}


def _parse(raw) -> dict:
    if isinstance(raw, bytes | bytearray | str):
        try:
            raw = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise ServiceError("bad_pack", params={"why": "json"}) from None
    if not isinstance(raw, dict) or raw.get("format") != PACK_FORMAT:
        raise ServiceError("bad_pack", params={"why": "format"})
    if raw.get("version") != VERSION:
        raise ServiceError("bad_pack", params={"why": "version", "version": VERSION})
    if (any(name not in raw for name in CLEAR) or not isinstance(raw.get("cipher"), dict)
            or not isinstance(raw.get("lexicon"), dict) or not isinstance(raw.get(SEAL_KEY), dict)):
        raise ServiceError("bad_pack", params={"why": "format"})
    return raw


def verify_pack(raw, *, trusted: set[str] | None = None, lexicon_sha256=None,
                fingerprints=frozenset()) -> VerifiedPack:
    """Check a pack before anything else: a pack (bytes, text or parsed) changed since it was signed is
    refused (``pack_altered``), one signed by a key not ``trusted`` (default ``trusted_keys()``) too
    (``pack_untrusted``, with the key's fingerprint), and one whose word list is not the one this
    installation holds under that name (``pack_wrong_lexicon``; ``lexicon_sha256(name)`` gives this
    installation's, None when it holds none). A signer whose fingerprint is one of ``fingerprints`` (as
    ``typed_fingerprint`` gives them: read out by the organiser on the phone) is trusted too. Nothing is
    decrypted."""
    pack = _parse(raw)
    body = {name: value for name, value in pack.items() if name != SEAL_KEY}
    mark = pack[SEAL_KEY]
    try:
        if mark.get("alg") != seal.ALGORITHM:
            raise ValueError("not an ed25519 seal")
        public = Ed25519PublicKey.from_public_bytes(_unb64(mark.get("key", "")))
        public.verify(_unb64(mark.get("sig", "")), seal.canonical(body))
    except (InvalidSignature, ValueError, TypeError, binascii.Error):
        raise ServiceError("pack_altered") from None
    signer = public_text(public)
    if (signer not in (trusted_keys() if trusted is None else {str(k).strip().rstrip("=") for k in trusted})
            and typed_fingerprint(fingerprint(signer)) not in fingerprints):
        raise ServiceError("pack_untrusted", params={"fingerprint": fingerprint(signer), "key": signer})
    name, wanted = str(pack["lexicon"].get("name", "")), str(pack["lexicon"].get("sha256", ""))
    if lexicon_sha256 is None:
        held = _lexicon(name).sha256
    else:
        held = lexicon_sha256(name)
        if held is None:
            raise ServiceError("pack_wrong_lexicon", params={"lexicon": name, "why": "missing"})
    if held != wanted:
        raise ServiceError("pack_wrong_lexicon", params={"lexicon": name, "sha256": wanted[:16]})
    return VerifiedPack(pack, pack_sha256(pack), signer, fingerprint(signer))


def unlock_pack(raw, key, *, trusted: set[str] | None = None, lexicon_sha256=None,
                fingerprints=frozenset()) -> GameFile:
    """The game of a pack, verified (``verify_pack``) then decrypted with the key (bytes, or the text typed
    or scanned: ``read_key``). 400 ``wrong_pack_key`` when the key does not open it."""
    verified = verify_pack(raw, trusted=trusted, lexicon_sha256=lexicon_sha256, fingerprints=fingerprints)
    pack = verified.pack
    if not isinstance(key, bytes):
        key = read_key(key, verified.sha256)
    cipher = pack["cipher"]
    try:
        if cipher.get("alg") != CIPHER:
            raise ValueError("unknown cipher")
        text = AESGCM(_aes_key(key, _unb64(cipher["salt"]))).decrypt(
            _unb64(cipher["nonce"]), _unb64(cipher["rounds"]), seal.canonical({n: pack[n] for n in CLEAR}))
    except (InvalidTag, KeyError, ValueError, TypeError, binascii.Error):
        raise ServiceError("wrong_pack_key") from None
    try:
        rules = Rules(**pack["rules"])
        game = pregame_of(json.loads(text), rules, str(pack["tileset"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ServiceError("bad_pack", params={"why": "format"}) from error
    return GameFile(game, rules, str(pack["tileset"]), str(pack["labelling"]), str(pack["lexicon"]["name"]),
                    str(pack["lexicon"]["sha256"]))


# --------------------------------------------------------------------------------------------------
# Which game goes to which event (docs/packs.md)


def commitment(pack_hashes, events) -> str:
    """The text the organiser publishes before the draw: the events in their order, then the packs'
    SHA-256 sorted, one a line; its SHA-256 is the commitment."""
    lines = ["duplicate-arbiter assignment v1", *(f"event {event}" for event in events),
             *(f"pack {sha.lower()}" for sha in sorted(pack_hashes))]
    return "\n".join(lines) + "\n"


def assign(pack_hashes, events, beacon: str) -> list[tuple[str, str]]:
    """[(event, pack SHA-256)]: the packs (sorted) shuffled by Fisher–Yates with numbers drawn from
    SHA-256(commitment's SHA-256, beacon, counter), by rejection so each is uniform; event ``i`` gets the
    ``i``-th pack of the shuffle. Anyone holding the published list and the beacon gets the same."""
    hashes = sorted(sha.lower() for sha in pack_hashes)
    events = list(events)
    if len(set(hashes)) != len(hashes) or len(set(events)) != len(events) or len(events) > len(hashes):
        raise ServiceError("bad_pack", params={"why": "assignment"})
    seed = hashlib.sha256(commitment(hashes, events).encode()).hexdigest() + ":" + beacon.strip().lower()
    counter = 0

    def below(bound: int) -> int:
        nonlocal counter
        limit = (1 << 256) - (1 << 256) % bound
        while True:
            value = int.from_bytes(hashlib.sha256(f"{seed}:{counter}".encode()).digest(), "big")
            counter += 1
            if value < limit:
                return value % bound

    order = list(hashes)
    for i in range(len(order) - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    return list(zip(events, order, strict=False))
