"""The words the projector and the phone add for the last move and the end of the game, in French too."""

from __future__ import annotations

from django.utils import translation

from tournaments.web.views import phone_texts, projector_texts

ADDED = {
    "from_top": ("Behind the sum of tops", "Écart à la somme des tops"),
    "final": ("Final standings", "Classement final"),
    "top_line": ("Top: %(points)s", "Top : %(points)s"),
    "final_result": ("Your game: %(total)s points of %(tops)s, %(percent)s of the top",
                     "Votre partie : %(total)s points sur %(tops)s, %(percent)s du top"),
}


def test_the_end_of_game_words_are_said_in_english_and_french():
    for language, index in (("en", 0), ("fr", 1)):
        with translation.override(language):
            texts = {**phone_texts(), **projector_texts()}
        for key, words in ADDED.items():
            assert texts[key] == words[index], (language, key)
