"""A player's slip served straight from the ASGI application, before Django's request machinery.

At a festival's deadline a thousand phones hand in their slips within seconds. Through Django's handler,
its middleware and DRF, a slip costs about three times the server time of the work itself (reading the
token, the round, writing the slip); here it costs the work. Only the common case is served here: a
well-formed ``POST /api/games/{id}/rounds/{n}/slips`` with a player's bearer token and a JSON body of the
contract's fields, valid as SlipSubmitSerializer would find it. Anything else — another path, a paper slip,
an unknown token, a malformed body, a reference that names no square, a throttled phone — goes on to Django
untouched (the body replayed), which answers it exactly as before. The answers given here are the API's:
the same bodies (slip_body, the error shape) and statuses, from the same services.
"""

from __future__ import annotations

import json
import logging
import re
from types import SimpleNamespace

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import OperationalError, close_old_connections, connections
from django.http.request import split_domain_port, validate_host

from tournaments.arriving import SLIPS_PATH
from tournaments.limits import REF_MAX, SCORE_MAX, SENT_MS_MAX, SEQ_MAX, SLIP_KEY_MAX, WORD_MAX

logger = logging.getLogger(__name__)

PATH = SLIPS_PATH  # a round's slips: the path the web processes note from arrival to answer too
FIELDS = {"word", "ref", "score", "key", "seq", "sent_ms"}
WORD = re.compile(r"[A-Za-z]+")
HEADERS = [
    (b"content-type", b"application/json"),
    (b"vary", b"Accept"),
    (b"allow", b"POST, OPTIONS"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
served = {"fast": 0}  # how many slips were answered here (read by the tests)


def fast_slips(app):
    """Wrap the Django ASGI application: serve a player's well-formed slip here, pass anything else on."""

    async def application(scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") != "POST":
            return await app(scope, receive, send)
        match = PATH.fullmatch(scope.get("path", ""))
        if match is None:
            return await app(scope, receive, send)
        messages, body = await _read(receive)
        replay = _replaying(messages, receive)
        request = _parse(scope, body)
        if request is None:
            return await app(scope, replay, send)
        token, data = request
        arrived = scope.get("arbiter.received_at")
        answer = await sync_to_async(_submit, thread_sensitive=False)(
            int(match.group(1)), int(match.group(2)), token, data, arrived, _language(scope))
        if answer is None:
            return await app(scope, replay, send)
        status, payload, extra = answer
        content = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
        headers = [*HEADERS, *extra, (b"content-length", str(len(content)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})
        served["fast"] += 1

    return application


async def _read(receive) -> tuple[list[dict], bytes]:
    """The request's body messages (kept to be replayed to Django) and the body, up to the API's cap."""
    from tournaments.api.parsers import max_body_bytes

    messages, chunks, size = [], [], 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= max_body_bytes():
            chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return messages, (b"".join(chunks) if size <= max_body_bytes() else b"")


def _replaying(messages: list[dict], receive):
    pending = list(messages)

    async def replay():
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


def _parse(scope, body: bytes) -> tuple[str, dict] | None:
    """(token, fields) of a player's well-formed slip; None for anything Django must look at."""
    headers = {}
    for name, value in scope.get("headers", []):
        headers.setdefault(name.lower(), value)
    host = headers.get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    if headers.get(b"content-type", b"").split(b";")[0].strip().lower() != b"application/json":
        return None
    scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if scheme.lower() != "bearer" or not token or " " in token or len(token) > 200 or not token.isascii():
        return None
    from tournaments.api.parsers import load_json

    try:
        data = load_json(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):  # not JSON, or nested too deep: Django says which
        return None
    if not isinstance(data, dict) or not set(data) <= FIELDS or not _valid(data):
        return None
    return token, data


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _valid(data: dict) -> bool:
    """As SlipSubmitSerializer would accept it, without any of its conversions (those cases go to Django).
    Text that cannot be stored (NUL, a lone surrogate) is found by the serializers' own check, text_fault:
    Django then answers 400 naming the field."""
    from tournaments.api.text import text_fault

    if any(isinstance(value, str) and text_fault(value) is not None for value in data.values()):
        return False
    word, key, ref = data.get("word"), data.get("key"), data.get("ref")
    if not isinstance(word, str) or word != word.strip() or not 0 < len(word) <= WORD_MAX:
        return False
    if not WORD.fullmatch(word):
        return False
    if not isinstance(key, str) or key != key.strip() or not 0 < len(key) <= SLIP_KEY_MAX:
        return False
    if ref is not None and (not isinstance(ref, str) or len(ref) > REF_MAX):
        return False
    if data.get("score") is not None and not _whole(data["score"], 0, SCORE_MAX):
        return False
    if data.get("sent_ms") is not None and not _whole(data["sent_ms"], 0, SENT_MS_MAX):
        return False
    return data.get("seq") is None or _whole(data["seq"], 0, SEQ_MAX)


def _language(scope) -> str:
    """The language LocaleMiddleware would choose for this request: its language cookie, else its
    Accept-Language, else the default."""
    from django.http.cookie import parse_cookie
    from django.utils.translation import get_language_from_request

    meta, cookies = {}, {}
    for name, value in scope.get("headers", []):
        if name.lower() == b"accept-language":
            meta["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin-1")
        elif name.lower() == b"cookie":
            cookies.update(parse_cookie(value.decode("latin-1")))
    return get_language_from_request(SimpleNamespace(META=meta, COOKIES=cookies))


def _submit(game_id: int, number: int, token: str, data: dict, arrived: float | None, language: str = "en"):
    """(status, body, extra headers) of the slip, or None to let Django answer. Runs in a thread; the
    database connection goes back to the pool at the end, as at the end of a request."""
    from django.utils import translation

    close_old_connections()
    try:
        with translation.override(language):  # a refusal's message in the request's language, as Django's
            return _answer(game_id, number, token, data, arrived)
    except OperationalError as error:  # the pool exhausted past its wait, or the database out of reach
        from arbiter.middleware import RETRY_AFTER_SECONDS, unavailable_response

        logger.warning("503 for a slip of game %s: %s", game_id, error)
        response = unavailable_response(SimpleNamespace(path="/api/", headers={}), str(error))
        return 503, json.loads(response.content), [(b"retry-after", str(RETRY_AFTER_SECONDS).encode())]
    except Exception:
        logger.exception("slip of game %s round %s", game_id, number)
        from tournaments.errors import error_body

        return 500, error_body("server_error", "The server failed; the error was logged."), []
    finally:
        connections["default"].close()


def _answer(game_id: int, number: int, token: str, data: dict, arrived: float | None):
    from arbiter.arrival import received_at
    from engine.notation import RefError
    from tournaments import selectors, services
    from tournaments.api.serializers import canonical_ref
    from tournaments.api.throttles import SlipRateThrottle
    from tournaments.api.views import slip_answer, slip_body
    from tournaments.errors import ServiceError, error_body
    from tournaments.refusals import api_message
    from tournaments.services import StaleSlip

    found = selectors.player_and_round(game_id=game_id, number=number, token=token)
    if found is None:
        return None  # 401, 403 or 404: Django says which
    player, round = found
    try:
        ref = canonical_ref(data.get("ref"), round.game.tournament.coordinates)
    except RefError:
        return None
    principal = SimpleNamespace(user=SimpleNamespace(player=player))
    if not SlipRateThrottle().allow_request(principal, None):
        return None  # 429 in the user's language, with its wait: Django's throttle says it
    try:
        slip, created = services.slip_submit(
            round=round, player=player, word=data["word"], ref=ref, score=data.get("score"), key=data["key"],
            seq=data.get("seq"), now=received_at(SimpleNamespace(scope={"arbiter.received_at": arrived})),
            sent_ms=data.get("sent_ms"),
        )
    except StaleSlip as stale:
        fields = {**stale.fields, "slip": slip_body(stale.held)}
        return stale.status, error_body(stale.code, api_message(stale), fields), []
    except ServiceError as error:
        return error.status, error_body(error.code, api_message(error), error.fields), []
    from tournaments.services.topping import topping_answer

    if slip.entered_by_id is None and (created or slip.current):
        body = _slip_answer(slip, replayed=not created)
    else:
        body = slip_answer(slip, created)
    if (tried := topping_answer(slip, round)) is not None:
        body["topping"] = tried  # topping: whether this try found the top, and in how many seconds
    return (201 if created else 200), body, []


def _slip_answer(slip, *, replayed: bool) -> dict:
    """slip_answer's body (SlipAnswerSerializer) for a phone's slip that counts, written out: the fields in
    the serializer's order, its receipt. A slip an arbitrator typed, or a replayed key's slip replaced since,
    goes through slip_answer."""
    from tournaments.formats import iso
    from tournaments.receipts import receipt_for

    return {"id": slip.pk, "round": slip.round.number, "player": slip.player_id, "word": slip.word,
            "ref": None if slip.ref is None else str(slip.ref), "score": slip.claimed, "key": slip.key,
            "seq": slip.seq, "received_at": iso(slip.received_at), "entered_by": None, "replayed": replayed,
            "replaced": None, "receipt": receipt_for(slip)}
