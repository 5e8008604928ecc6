"""Racks and words as players read them (``{% load tiles %}``): ``{{ round.rack|rack_tiles:game.tournament.tileset }}``
(each tile by its label, a label of several letters in brackets: ``ACEOP[CH][RR]``) and
``{{ word|word_tiles:game.tournament.tileset }}`` (``CARRO``, a blank's label in lowercase). A set whose tiles are
their letters (English, French) gives the text back as it is, so those pages are unchanged."""

from __future__ import annotations

from django import template

register = template.Library()


def _tiles(tileset: str):
    from engine.tiles import load_tileset

    try:
        return load_tileset(tileset or "english")
    except ValueError:
        return None


@register.filter
def rack_tiles(rack, tileset: str) -> str:
    tiles = _tiles(tileset)
    if not rack or tiles is None or tiles.plain:
        return rack
    return tiles.typed(str(rack))


@register.filter
def word_tiles(word, tileset: str) -> str:
    tiles = _tiles(tileset)
    if not word or tiles is None or tiles.plain:
        return word
    return tiles.show(str(word))


@register.filter
def tile_label(ch, tileset: str) -> str:
    tiles = _tiles(tileset)
    if not ch or tiles is None or tiles.plain:
        return ch
    return tiles.label(str(ch))
