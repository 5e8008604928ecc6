"""The one check of text that both doors of the API apply: no NUL character and no lone surrogate.

Neither can be stored (PostgreSQL refuses NUL in text, and a lone surrogate, U+D800 to U+DFFF, has no UTF-8
form: the database driver fails to encode it), yet JSON can carry both (``"\\u0000"``, ``"\\ud800"``). A
slip's fields come in through two doors: the fast path of a player's slip (tournaments/api/fast.py) and
the serializers behind Django (every StrictCharField). Both ask ``text_fault``, so that what one lets
through the other cannot refuse, and neither hands the database a text it fails on (a 500): the fast path
passes such a body on to Django, whose serializer answers 400 ``invalid`` naming the field.
"""

from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def text_fault(value: str) -> str | None:
    """Why ``value`` cannot be stored, in the request's language (DRF's own wording), or None when it can."""
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    from django.core.validators import ProhibitNullCharactersValidator
    from rest_framework.validators import ProhibitSurrogateCharactersValidator

    if found.group() == "\x00":
        return str(ProhibitNullCharactersValidator.message)
    return str(ProhibitSurrogateCharactersValidator.message).format(code_point=ord(found.group()))
