"""The arbitration log chained by hash: each entry of a game holds the SHA-256 of the entry before it (the
genesis value for the first) and its own SHA-256 over a canonical form of its content and that link.

The database refuses UPDATE, DELETE and TRUNCATE on the log (migrations 0002 and 0012), but whoever owns the
tables can drop a trigger. The chain makes such an edit visible: an entry changed no longer matches its
hash, an entry removed breaks the link or the numbering (``seq`` counts 1, 2, 3… per game), and a log
rewritten from scratch with fresh hashes no longer passes through the heads printed on a game record made
before (the record's ``log_chain``; ``selectors.log_check`` and ``manage.py verifylog --record``).

The canonical form is JSON with sorted keys, no spaces and UTF-8, so that it reads the same on every
database and in every process. Numbers are written as they read back from either database: PostgreSQL's
jsonb keeps a number as a decimal, so a float with no fraction comes back an integer (1e20, 5.0), -0.0 comes
back 0, and 1e300 comes back 10**300; every whole number is therefore written as an integer below 10**15 and
in normalised exponent form above (1E+20), whether it was stored as a float or an int. Changing the form
breaks every chain stored: ``CHAIN_VERSION`` names it.

The rows that decide a score are chained too. An entry may carry ``rows``: the digest of each slip, result
and late slip it wrote (``row_digest``: the SHA-256 of the row's canonical content, its id included), keyed
by kind and id. The entry's hash covers them (an entry without rows hashes exactly as before), so a row
rewritten afterwards no longer matches the digest last chained for it. The round's close chains every slip,
result and late slip of the round; each later change (a slip judged after the close, a correction, a ruling,
a late slip admitted) chains the rows it wrote.

The chain's head (its last entry's place and hash) is printed where it cannot be quietly rewritten: on each
receipt (the head at the slip's arrival), each sheet, the public results and every results file, as
``head_text``: ``chain GAME/SEQ/HASH``. Any one of them held outside the database vouches for the log up to
that place.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from decimal import Decimal

CHAIN_VERSION = 1
GENESIS = "0" * 64


def canonical_at(at: datetime) -> str:
    """A stored time as the chain reads it: UTC, to the microsecond (what both databases keep)."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


SMALL = 10**15  # whole numbers below it are written as integers


def _number(value: int | float) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("the log holds no NaN or infinity")
        if not value.is_integer():
            return repr(value)  # the shortest text that reads back as the same float, on either database
        if abs(value) < SMALL:
            return str(int(value))
        return str(Decimal(repr(value)).normalize())
    if abs(value) < SMALL:
        return str(value)
    return str(Decimal(value).normalize())


def _write(value, out: list[str]) -> None:
    if value is None or isinstance(value, bool):
        out.append(json.dumps(value))
    elif isinstance(value, int | float):
        out.append(_number(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, dict):
        out.append("{")
        for index, key in enumerate(sorted(value, key=str)):
            if index:
                out.append(",")
            out.append(json.dumps(str(key), ensure_ascii=False))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"the log holds no {type(value).__name__}")


def canonical_json(value) -> str:
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def normalised(value):
    """A ``before``/``after`` value as it is stored (tuples become lists, keys strings); refuses what JSON
    cannot hold."""
    return None if value is None else json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))


def entry_hash(*, game_id: int, seq: int, round_id, slip_id, player_id, actor_id, at: datetime, action: str,  # noqa: PLR0913 - keyword-only: each argument is named at the call
               before, after, reason: str, prev_hash: str, rows: dict | None = None) -> str:
    content = {
        "v": CHAIN_VERSION,
        "game": game_id,
        "seq": seq,
        "round": round_id,
        "slip": slip_id,
        "player": player_id,
        "actor": actor_id,
        "at": canonical_at(at),
        "action": action,
        "before": before,
        "after": after,
        "reason": reason,
        "prev": prev_hash,
    }
    if rows is not None:  # the rows the entry wrote (absent from an entry without: its hash as before)
        content["rows"] = rows
    return hashlib.sha256(canonical_json(content).encode("utf-8", "surrogatepass")).hexdigest()


def hash_of(entry) -> str:
    """The hash an entry (a LogEntry, or any object with its fields) should hold."""
    return entry_hash(
        game_id=entry.game_id, seq=entry.seq, round_id=entry.round_id, slip_id=entry.slip_id,
        player_id=entry.player_id, actor_id=entry.actor_id, at=entry.at, action=entry.action,
        before=entry.before, after=entry.after, reason=entry.reason, prev_hash=entry.prev_hash,
        rows=getattr(entry, "rows", None),
    )


# The rows that decide a score: the fields of each kind that its digest covers. A slip's ``current`` (set
# when a newer slip replaces it, itself chained) and who typed a row (a user, who may be deleted) are not.
ROW_FIELDS = {
    "slip": ("round_id", "player_id", "word", "ref", "claimed", "key", "seq", "received_at", "replaces_id",
             "several", "chain_seq", "chain_hash"),
    "result": ("round_id", "player_id", "slip_id", "paid", "outcome", "reason", "message", "placement",
               "corrected"),
    "late": ("round_id", "player_id", "word", "ref", "claimed", "key", "seq", "received_at", "late_by",
             "sent_at", "admitted_id"),
}


def row_digest(kind: str, row) -> str:
    """The SHA-256 of a row's canonical content (``ROW_FIELDS[kind]`` and its id): what the chain keeps of it."""
    content = {"kind": kind, "id": row.pk}
    for name in ROW_FIELDS[kind]:
        value = getattr(row, name)
        content[name] = canonical_at(value) if isinstance(value, datetime) else value
    return hashlib.sha256(canonical_json(content).encode("utf-8", "surrogatepass")).hexdigest()


def rows_of(*, slips=(), results=(), lates=()) -> dict:
    """The ``rows`` of an entry: each row's digest, by kind and id (ids as text, as JSON keeps them)."""
    rows: dict[str, dict[str, str]] = {}
    for kind, items in (("slip", slips), ("result", results), ("late", lates)):
        for row in items:
            if row is not None:
                rows.setdefault(kind, {})[str(row.pk)] = row_digest(kind, row)
    return rows


HEAD_PATTERN = re.compile(r"chain (\d{1,12})/(\d{1,12})/([0-9a-f]{64})")


def head_text(game_id: int, seq: int, digest: str) -> str:
    """The chain's head as printed on a sheet, a results file or a receipt: ``chain GAME/SEQ/HASH`` (an empty
    log: place 0 and the genesis value)."""
    return f"chain {game_id}/{seq}/{digest}"


def heads_in(text: str) -> list[tuple[int, int, str]]:
    """Every printed head (game, seq, hash) found in ``text``, in order."""
    return [(int(game), int(seq), digest) for game, seq, digest in HEAD_PATTERN.findall(text)]


# A file whose format has no room for the head (the standings CSV, the federation's results file: read by other
# software, line by line) carries it in its name instead, as ``chain-GAME-SEQ-HASH`` (the whole hash: a file
# name holds it, and a prefix would vouch for less). A browser's " (1)" after a second download keeps it whole.
NAME_HEAD_PATTERN = re.compile(r"chain-(\d{1,12})-(\d{1,12})-([0-9a-f]{64})")


def name_head_text(game_id: int, seq: int, digest: str) -> str:
    """The chain's head as a file's name carries it: ``chain-GAME-SEQ-HASH``."""
    return f"chain-{game_id}-{seq}-{digest}"


def heads_in_name(name: str) -> list[tuple[int, int, str]]:
    """Every head (game, seq, hash) a file's name carries, in order."""
    return [(int(game), int(seq), digest) for game, seq, digest in NAME_HEAD_PATTERN.findall(name)]
