"""The console's draw help names what may be typed for a set's tiles beyond A-Z (its labels, bracketed
labels and keyboard aliases, read from the set's file), in English and in French."""

from __future__ import annotations

from django.utils import translation

from engine.tiles import load_tileset
from tournaments.web.forms import DrawForm


def _help(name: str) -> str:
    return str(DrawForm(tiles=load_tileset(name)).fields["rack"].help_text)


def test_spanish_and_catalan_help_lists_each_tiles_aliases():
    with translation.override("en"):
        spanish, catalan = _help("spanish"), _help("catalan")
    assert "CH: CH [CH] 1; LL: LL [LL] 2; Ñ: Ñ; RR: RR [RR] 3" in spanish
    assert "L·L: L·L [L·L] W L.L ĿL" in catalan and "NY: NY [NY] Y" in catalan and "QU: QU [QU] Q" in catalan


def test_a_plain_set_keeps_the_a_to_z_help():
    with translation.override("en"):
        english = _help("english")
    assert english.startswith("Leave empty for a random draw. Letters A–Z") and "[" not in english


def test_french_help():
    with translation.override("fr"):
        spanish = _help("spanish")
    assert spanish.startswith("Laissez vide pour un tirage au hasard. Jetons par leurs lettres")
    assert "CH : CH [CH] 1; LL : LL [LL] 2" in spanish
