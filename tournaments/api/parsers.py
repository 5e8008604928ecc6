"""JSON bodies with a size cap: a slip or a form is a few hundred bytes, so anything large is refused."""

from __future__ import annotations

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils import json

from tournaments.api.exceptions import RequestTooLarge

DEFAULT_MAX_BODY_BYTES = 64 * 1024


def max_body_bytes() -> int:
    return int(getattr(settings, "ARBITER_API_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES))


class LimitedJSONParser(JSONParser):
    """Reads at most the cap (plus one byte to notice an overflow) before decoding; 413 beyond it."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"The request body is larger than {limit} bytes.")
        try:
            text = raw.decode(get_encoding(parser_context))
            return json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"The body is not valid JSON: {exc}") from exc


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")
