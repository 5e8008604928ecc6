"""The arbitration log chained by hash: each entry of a game holds the SHA-256 of the entry before it (the
genesis value for the first) and its own SHA-256 over a canonical form of its content and that link.

The database refuses UPDATE, DELETE and TRUNCATE on the log (migrations 0002 and 0012), but whoever owns the
tables can drop a trigger. The chain makes such an edit visible: an entry changed no longer matches its
hash, an entry removed breaks the link or the numbering (``seq`` counts 1, 2, 3… per game), and a log
rewritten from scratch with fresh hashes no longer passes through the heads printed on a game record made
before (the record's ``log_chain``; ``selectors.log_check`` and ``manage.py verifylog --record``).

The canonical form is JSON with sorted keys, no spaces and UTF-8, so that it reads the same on every
database and in every process. Changing it breaks every chain stored: ``CHAIN_VERSION`` names it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

CHAIN_VERSION = 1
GENESIS = "0" * 64


def canonical_at(at: datetime) -> str:
    """A stored time as the chain reads it: UTC, to the microsecond (what both databases keep)."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def normalised(value):
    """A ``before``/``after`` value as the database gives it back (tuples become lists, keys strings)."""
    return None if value is None else json.loads(canonical_json(value))


def entry_hash(*, game_id: int, seq: int, round_id, slip_id, player_id, actor_id, at: datetime, action: str,
               before, after, reason: str, prev_hash: str) -> str:
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
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


def hash_of(entry) -> str:
    """The hash an entry (a LogEntry, or any object with its fields) should hold."""
    return entry_hash(
        game_id=entry.game_id, seq=entry.seq, round_id=entry.round_id, slip_id=entry.slip_id,
        player_id=entry.player_id, actor_id=entry.actor_id, at=entry.at, action=entry.action,
        before=entry.before, after=entry.after, reason=entry.reason, prev_hash=entry.prev_hash,
    )
