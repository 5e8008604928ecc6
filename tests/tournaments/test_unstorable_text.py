"""Text no database stores (NUL, a lone surrogate), sent as JSON escapes in a slip: refused with 400 in the
error shape, naming the field, whether the slip comes through the fast path (tournaments/api/fast.py) or
through Django; both ask the one check, tournaments.api.text.text_fault. It was a 500 on the fast path."""

from __future__ import annotations

import json

import pytest

from tournaments.api import fast
from tournaments.api.serializers import SlipSubmitSerializer
from tournaments.api.text import text_fault
from tournaments.models import Slip

from . import test_fast_slips
from .test_fast_slips import TOP, post, served

pytestmark = pytest.mark.django_db(transaction=True)
hall = test_fast_slips.hall  # the fixture: a round in play, Ann and Bob with their tokens

UNSTORABLE = {"NUL": "\\u0000", "lone surrogate": "\\ud800", "low surrogate": "\\udfff"}


def raw_slip(field: str, escape: str, **fields) -> bytes:
    """A slip's JSON with ``escape`` (as written in JSON) inside ``field``'s text."""
    body = {**TOP, "key": "k1", **fields}
    text = json.dumps(body)
    value = json.dumps(body[field])
    return text.replace(value, value[:-2] + escape + value[-2:], 1).encode()


@pytest.mark.parametrize("escape", list(UNSTORABLE.values()), ids=list(UNSTORABLE))
@pytest.mark.parametrize("field", ["key", "ref", "word"])
def test_unstorable_text_is_refused_with_400_through_the_fast_path(hall, field, escape):
    _, token = hall["ann"]
    raw = raw_slip(field, escape)
    assert "\\u" in raw.decode() and json.loads(raw)[field] != {**TOP, "key": "k1"}[field]
    (status, _, error), fast_count = served(lambda: post(hall["url"], None, token, raw=raw))
    assert (status, error["error"]["code"], list(error["error"]["fields"]), fast_count) == (400, "invalid", [field], 0)
    assert set(error["error"]) == {"code", "message", "fields"}
    assert not Slip.objects.exists()
    # The same slip without the fault is served on the fast path: only the text was at fault.
    (status, _, _), fast_count = served(lambda: post(hall["url"], {**TOP, "key": "k1"}, token))
    assert (status, fast_count) == (201, 1)


@pytest.mark.parametrize("escape", list(UNSTORABLE.values()), ids=list(UNSTORABLE))
def test_unstorable_text_is_refused_with_400_through_django(hall, escape):
    """A body the fast path leaves to Django anyway (a word with spaces around it): the same answer."""
    _, token = hall["bob"]
    raw = raw_slip("key", escape, word=" MELANIC ")
    (status, _, error), fast_count = served(lambda: post(hall["url"], None, token, raw=raw))
    assert (status, error["error"]["code"], list(error["error"]["fields"]), fast_count) == (400, "invalid", ["key"], 0)
    assert not Slip.objects.exists()


@pytest.mark.parametrize("data", [
    {**TOP, "key": "k"}, {**TOP, "key": "k\x00"}, {**TOP, "key": "k\ud800"}, {**TOP, "key": "\udc00"},
    {**TOP, "key": "k", "ref": "H4\x00"}, {**TOP, "key": "k", "word": "MEL\x00ANIC"},
    {**TOP, "key": "ké"}, {**TOP, "key": "k\U0001F600"},
])
def test_the_fast_path_serves_only_what_the_serializer_accepts(data):
    """One check: whatever the fast path would serve, SlipSubmitSerializer accepts too; text_fault says
    why the rest cannot be stored."""
    accepted = SlipSubmitSerializer(data=data).is_valid()
    assert not fast._valid(data) or accepted, data
    faulty = any(text_fault(value) for value in data.values() if isinstance(value, str))
    assert accepted is not faulty, data
