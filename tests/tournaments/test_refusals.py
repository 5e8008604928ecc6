"""Refusals carry a code and parameters; the pages say them in their reader's language from those, never by
reading the English message back."""

from __future__ import annotations

import pytest
from django.utils import translation

from tournaments import services
from tournaments.errors import Conflict, ServiceError
from tournaments.refusals import error_text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("rack", "code", "params"), [
    ("ZZZEEAI", "not_in_bag", {"rack": "ZZZEEAI", "letters": "ZZ"}),
    ("AEI", "wrong_size", {"rack": "AEI", "size": 7, "count": 3}),
    ("BCDFGHJ", "too_few_vowels", {"rack": "BCDFGHJ", "vowels": 2}),
    ("AEIOUAB", "too_few_consonants", {"rack": "AEIOUAB", "consonants": 2}),
])
def test_a_refused_rack_carries_what_it_names(make_game, rack, code, params):
    game = make_game()
    with pytest.raises(ServiceError) as refused:
        services.round_draw(game=game, rack=rack)
    assert (refused.value.code, refused.value.params) == (code, params)


def test_the_console_text_comes_from_the_code_and_parameters_not_the_message():
    error = Conflict("not_in_bag", "any English sentence at all", params={"rack": "ZZZEEAI", "letters": "ZZ"})
    with translation.override("fr"):
        assert error_text(error) == "ZZZEEAI\u00a0: ZZ absentes du sac"  # French typography: a no-break space
    with translation.override("en"):
        assert error_text(error) == "ZZZEEAI: ZZ not in the bag"
    shared = Conflict("shared_table", "whatever", params={"table": 4})
    with translation.override("fr"):
        assert "4" in error_text(shared) and error_text(shared) != "whatever"
    over = Conflict("game_over", "whatever", params={"why": "no_valid_rack"})
    with translation.override("en"):
        assert error_text(over) == "the letters left cannot make a valid rack: the game is over"  # the engine's one text
