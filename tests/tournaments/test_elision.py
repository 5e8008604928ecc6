"""French elision before a player's name: "le bulletin d'Alice", never "le bulletin de Alice", by one rule
(tournaments.typography.elided) in every French text that puts "de", "que", "le"... before a name: the
console's round page and its messages."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from tournaments import services
from tournaments.models import Slip
from tournaments.typography import elided, elides_before


@pytest.mark.parametrize("name", ["Alice", "alice", "Élodie", "Ève", "Îlona", "Ophélie", "Ursule", "Œdipe", "Hugo",
                                  "Hélène", "hélène", "Yves", "Ysé", "  Anne"])
def test_names_starting_with_a_vowel_an_h_or_a_y_before_a_consonant_elide(name):
    assert elides_before(name)


@pytest.mark.parametrize("name", ["Bruno", "Chloé", "Yannick", "Yolande", "Zoé", "42", "", "-Anne", "Wanda"])
def test_other_names_do_not(name):
    assert not elides_before(name)


def test_de_que_le_la_before_the_name_are_elided_in_french_only():
    assert elided("le bulletin de Alice corrigé", "Alice", lang="fr") == "le bulletin d'Alice corrigé"
    assert elided("Bulletin de Hélène ajouté : ARBRE H4.", "Hélène", lang="fr") == "Bulletin d'Hélène ajouté : ARBRE H4."
    assert elided("De Hugo et que Yves", "Hugo", "Yves", lang="fr") == "D'Hugo et qu'Yves"
    assert elided("jusque Ève, le Olivier, la Anne", "Ève", "Olivier", "Anne", lang="fr") == "jusqu'Ève, l'Olivier, l'Anne"
    # Only right before the name: other words, other names and English stay as they are.
    assert elided("la table de Bruno, de Yannick", "Bruno", "Yannick", lang="fr") == "la table de Bruno, de Yannick"
    assert elided("le bulletin de Alice", "Bob", lang="fr") == "le bulletin de Alice"
    assert elided("Décidé par le arbitre de Alice", "Alice", lang="fr") == "Décidé par le arbitre d'Alice"
    assert elided("the slip of Alice de Alice", "Alice", lang="en") == "the slip of Alice de Alice"
    with translation.override("fr"):
        assert elided("bulletin de Ursule", "Ursule") == "bulletin d'Ursule"


def test_the_template_filter_elides_an_escaped_name_and_keeps_the_html():
    template = Template('{% load i18n typography %}{% blocktranslate with name=name asvar text %}'
                        'Correct<span class="visually-hidden"> the slip of {{ name }}</span>'
                        '{% endblocktranslate %}{{ text|elided:name }}')
    with translation.override("fr"):
        html = template.render(Context({"name": "Hélène <b>"}))
        assert html == 'Corriger<span class="visually-hidden"> le bulletin d\'Hélène &lt;b&gt;</span>'
        assert template.render(Context({"name": "Bruno"})) == \
            'Corriger<span class="visually-hidden"> le bulletin de Bruno</span>'
    with translation.override("en"):
        assert template.render(Context({"name": "Alice"})) == \
            'Correct<span class="visually-hidden"> the slip of Alice</span>'


@pytest.mark.django_db
@pytest.mark.usefixtures("isolated_cache")
def test_the_french_console_says_the_slip_of_alice_with_an_elision(make_game, make_player, console):
    game = make_game(language="fr")
    round = services.round_start(round=services.round_draw(game=game, rack="AEINRST"))
    alice, _ = make_player(game, name="Alice")
    bruno, _ = make_player(game, name="Bruno")
    for player in (alice, bruno):
        services.slip_submit(round=round, player=player, word="RETAINS", ref="H2", score=70, key=f"k{player.pk}")
    services.round_close(round=round)
    slip = Slip.objects.get(round=round, player=alice, current=True)
    answer = console.post(reverse("console-slip-correct", args=[game.pk, slip.pk]),
                          {"word": "RETAINS", "ref": "H8", "score": "70", "reason": "typing error"},
                          HTTP_ACCEPT_LANGUAGE="fr", follow=True)
    html = answer.content.decode()
    assert "Bulletin d&#x27;Alice corrigé" in html  # the message (escaped as every message)
    assert "bulletin d'Alice corrigé" in html  # the log of the round
    assert "le bulletin d'Alice</span>" in html and "le bulletin de Bruno</span>" in html  # the buttons
    assert "de Alice" not in html


@pytest.mark.django_db
@pytest.mark.usefixtures("isolated_cache")
def test_a_late_paper_slip_entered_for_eve_says_d_eve(make_game, make_player, console):
    game = make_game(language="fr")
    round = services.round_start(round=services.round_draw(game=game, rack="AEINRST"))
    make_player(game, name="Ève", table=3)
    services.round_close(round=round)
    answer = console.post(reverse("console-late-enter", args=[game.pk, round.number]),
                          {"table": "3", "word": "RETAINS", "ref": "H2", "score": "70"}, follow=True,
                          HTTP_ACCEPT_LANGUAGE="fr")
    html = answer.content.decode()
    assert "Bulletin en retard d&#x27;Ève (table 3) saisi" in html and "de Ève" not in html
