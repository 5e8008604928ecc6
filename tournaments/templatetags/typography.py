"""Template filters and tags of ``tournaments.typography``: ``{% load typography %}``.

- ``{{ text|typeset }}``: French spaces before ``:`` ``;`` ``?`` ``!`` on a French page;
- ``{{ value|percent }}`` / ``{{ value|percent:2 }}``: ``87,5 %`` on a French page, ``87.5%`` on an English one;
- ``{{ value|decimal:2 }}``: the number alone with the page's decimal mark;
- ``{% colon %}``: the colon after a label (``Bulletins reçus : 2 / 5``, ``Slips received: 2 / 5``);
- ``{{ text|elided:name }}``: French elision before the name (``le bulletin d'Alice``), e.g. after
  ``{% blocktranslate with name=player.name asvar text %}``.
"""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, mark_safe

from tournaments import typography

register = template.Library()


@register.filter(is_safe=True)
def typeset(text):
    if text is None:
        return ""
    result = typography.typeset(str(text))
    return mark_safe(result) if isinstance(text, SafeData) else conditional_escape(result)


@register.filter(is_safe=True)
def elided(text, name):
    """``text`` (a translated text holding the name, escaped when the text is HTML) with the French elision
    before the name."""
    if text is None:
        return ""
    if isinstance(text, SafeData):
        return mark_safe(typography.elided(str(text), str(conditional_escape(name))))
    return conditional_escape(typography.elided(str(text), str(name)))


@register.filter
def percent(value, places=1):
    try:
        return typography.percent(float(value), int(places))
    except (TypeError, ValueError):
        return ""


@register.filter
def decimal(value, places=1):
    try:
        return typography.decimal(float(value), int(places))
    except (TypeError, ValueError):
        return ""


@register.simple_tag
def colon():
    return typography.colon()
