"""A player's signed receipt: the slip the server holds, the moment it arrived (its last byte) and the round,
sealed by the server (tournaments/seal.py, Ed25519).

The phone keeps the receipt of its slip. In a dispute ("I handed in MELANIC in time"), the player shows it and
the console checks it: whether the seal is this server's (or a server it trusts) and sound, and whether the
slip it names is on record as it says. A receipt cannot be made or altered without the server's key, so a
sound one proves what the server accepted, and when.

A receipt carries too the head of the game's log chain at the slip's arrival (``log_seq``, ``log_hash``:
tournaments/logchain.py): whoever holds it holds a proof of the log up to that place, which ``manage.py
verifylog --held`` checks (a log cut at its end, emptied or written again no longer passes through it). A slip
kept before heads were has a receipt without them (version 1).
"""

from __future__ import annotations

from tournaments import seal
from tournaments.formats import iso
from tournaments.models import Game, Slip

VERSION = 2
# A check's verdict in one word (besides these, the seal's own: ``unknown_key``, ``forged``).
ON_RECORD, ANOTHER_GAME, NOT_ON_RECORD, FORGED = "on_record", "another_game", "not_on_record", "forged"
VERDICTS = (ON_RECORD, ANOTHER_GAME, NOT_ON_RECORD, seal.UNKNOWN_KEY, FORGED)
FIELDS_V1 = ("v", "game", "round", "player", "slip", "word", "ref", "score", "key", "seq", "received_at")
FIELDS = (*FIELDS_V1, "log_seq", "log_hash")


def _fields(version) -> tuple[str, ...]:
    """The fields a receipt of this version seals."""
    return FIELDS_V1 if version == 1 else FIELDS


def _content(slip: Slip) -> dict:
    if slip.chain_seq is None:  # kept before heads were: the receipt it always had
        return _content_v1(slip)
    return {**_content_v1(slip), "v": VERSION, "log_seq": slip.chain_seq, "log_hash": slip.chain_hash}


def _content_v1(slip: Slip) -> dict:
    return {
        "v": 1,
        "game": slip.round.game_id,
        "round": slip.round.number,
        "player": slip.player_id,
        "slip": slip.pk,
        "word": slip.word,
        "ref": slip.ref,
        "score": slip.claimed,
        "key": slip.key,
        "seq": slip.seq,
        "received_at": iso(slip.received_at),
    }


def receipt_for(slip: Slip) -> dict:
    """The receipt of a slip held by the server: its content and the server's seal over it."""
    content = _content(slip)
    return {**content, "seal": seal.sign(content)}


def receipt_check(*, game: Game, receipt) -> dict:
    """What a receipt shown in a dispute proves, for the game's arbitrators.

    ``valid``: the seal is sound, the signer is this server or one it trusts, and the receipt is of this game;
    ``signer``: ``this_server``, ``trusted``, ``unknown_key`` or ``forged`` (malformed, or the content does not
    match its seal); ``on_record``: the slip it names is held for the same player, round, word, reference,
    score and arrival (``differences`` lists the fields that differ; a slip since replaced by the player's
    newer one, or corrected, is still on record as it was handed in, with ``current`` false).

    ``verdict`` says it in one word: ``on_record``; ``another_game`` (a sound seal over a receipt of another
    game: it proves nothing in this one, ``valid`` false); ``not_on_record`` (sound, of this game, but the
    slip differs or is not held); ``unknown_key``; ``forged``.
    """
    if not isinstance(receipt, dict):
        return {"valid": False, "signer": "forged", "verdict": FORGED, "on_record": False, "differences": [],
                "receipt": None, "current": None}
    content = {name: receipt.get(name) for name in _fields(receipt.get("v"))}
    try:
        signer = seal.verify(content, receipt.get("seal"))
    except seal.BadSeal:
        signer = "forged"
    sound = signer in (seal.THIS_SERVER, seal.TRUSTED)
    answer = {"valid": sound, "signer": signer, "verdict": signer if not sound else NOT_ON_RECORD,
              "on_record": False, "differences": [], "current": None, "receipt": content}
    if not sound:
        return answer
    if content["game"] != game.pk:
        answer.update(valid=False, verdict=ANOTHER_GAME, differences=["game"])
        return answer
    slip = (Slip.objects.filter(pk=content["slip"] if isinstance(content["slip"], int) else None,
                                round__game=game).select_related("round").first())
    if slip is None:
        answer["differences"] = ["slip"]
        return answer
    held = _content(slip)
    answer["differences"] = [name for name in content if held.get(name) != content[name]]
    answer["on_record"] = not answer["differences"]
    answer["verdict"] = ON_RECORD if answer["on_record"] else NOT_ON_RECORD
    answer["current"] = slip.current
    return answer
