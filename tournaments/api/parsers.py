"""JSON bodies with a size cap and a nesting cap: a slip or a form is a few hundred bytes and two levels
deep, so anything large or deep is refused (413 ``too_large``, 400 ``too_deep``) before it costs anything."""

from __future__ import annotations

import json as stdlib_json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding

from tournaments.api.exceptions import RequestTooLarge

DEFAULT_MAX_BODY_BYTES = 64 * 1024
MAX_DEPTH = 32  # arrays and objects inside one another; the deepest valid body (a game record) needs 5


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH (or deeper than the decoder's own recursion allows)."""

    def __init__(self, limit: int = MAX_DEPTH):
        super().__init__(f"The body is nested more than {limit} levels deep.")


def max_body_bytes() -> int:
    return int(getattr(settings, "ARBITER_API_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES))


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def depth(value) -> int:
    """How many arrays and objects are nested at the deepest point (0 for a number or a string),
    measured without recursion."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        pending.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def load_json(text: str | bytes, limit: int = MAX_DEPTH):
    """The decoded body; ValueError when it is not JSON (NaN and Infinity are not), TooDeep when nested
    more than ``limit`` levels. A body nested thousands deep stops the decoder's recursion: TooDeep too."""
    try:
        value = stdlib_json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise TooDeep(limit) from None
    if depth(value) > limit:
        raise TooDeep(limit)
    return value


class LimitedJSONParser(JSONParser):
    """Reads at most the cap (plus one byte to notice an overflow) before decoding; 413 beyond it, 400
    ``too_deep`` when nested more than MAX_DEPTH levels."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"The request body is larger than {limit} bytes.")
        try:
            return load_json(raw.decode(get_encoding(parser_context)))
        except TooDeep as exc:
            raise ParseError(str(exc), code="too_deep") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"The body is not valid JSON: {exc}") from exc

