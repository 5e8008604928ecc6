"""Refusals are said from their code and params (tournaments/refusals.py): every code the services and the
engine raise has a text, in English and French; the API answers in the language the request asks for, on the
fast slip path as through Django; the console never reads the English message back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.refusals import TEXTS, api_message, error_text, refusal_text

from .api_support import asgi_post, assert_error

ROOT = Path(__file__).resolve().parents[2]
RAISED = re.compile(
    r"\b(?:ServiceError|Conflict|NotFound|Forbidden|RackError|RefError|WordError|PlayError)\(\s*\n?\s*(f?)\"([a-z_{}]+)\"")


def raised_codes() -> set[str]:
    """The codes of every refusal written in tournaments/ and engine/ (``f"{field}_required"`` for each field
    the services name)."""
    codes = set()
    for folder in ("tournaments", "engine"):
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for is_f, code in RAISED.findall(path.read_text(encoding="utf-8")):
                if is_f:
                    codes.update(code.replace("{field}", field) for field in ("name",))
                else:
                    codes.add(code)
    return codes


# The engine's reasons for judging a play (checking.PlayError) are results, not refusals: the pages show them
# through their own reason texts.
JUDGING_REASONS = {"does_not_fit", "not_centre", "not_connected", "not_in_rack", "invalid_word"}


def test_every_refusal_code_has_a_text():
    codes = raised_codes() - JUDGING_REASONS
    assert len(codes) > 40, codes  # the scan finds the refusals
    assert sorted(code for code in codes if code not in {key if isinstance(key, str) else key[0] for key in TEXTS}) == []


def test_every_text_reads_in_french():
    untranslated = []
    for key, template in TEXTS.items():
        with translation.override("en"):
            english = str(template)
        with translation.override("fr"):
            french = str(template)
        if french == english or set(re.findall(r"%\(\w+\)s", french)) != set(re.findall(r"%\(\w+\)s", english)):
            untranslated.append(key)
    assert untranslated == []


@pytest.mark.parametrize("code, params, english, french", [
    ("not_in_bag", {"rack": "ZZEIRST", "letters": "ZZ"}, "ZZEIRST: ZZ not in the bag", "ZZEIRST"),
    ("bad_ref", {"ref": "H", "why": "no_number"}, "H: a reference needs a number (e.g. H4 or 4H)", "il manque"),
    ("table_taken", {"table": 4, "name": "Ann"}, "Ann already sits at table 4: choose another table.", "Ann"),
    ("table_taken", {"table": 4}, "Table 4 is taken: choose another table.", "La table 4"),
    ("too_few_vowels", {"rack": "BCDFGHA", "vowels": 2, "consonants": 2},
     "BCDFGHA: at least 2 vowels and 2 consonants are needed", "BCDFGHA"),
])
def test_texts_name_what_the_params_carry(code, params, english, french):
    with translation.override("en"):
        assert refusal_text(code, params) == english
    with translation.override("fr"):
        text = refusal_text(code, params)
    assert french in text and text != english


def test_a_refusal_without_a_text_or_its_params_keeps_the_service_message():
    assert refusal_text("no_such_code", {}, "the service's words") == "the service's words"
    with translation.override("en"):  # not_in_bag names letters the refusal does not carry
        assert refusal_text("not_in_bag", {"rack": "ABC"}, "ABC: Q not in the bag") == "ABC: Q not in the bag"


def test_a_real_refusal_carries_its_params(make_game):
    game = make_game()
    with pytest.raises(ServiceError) as refused:
        services.round_draw(game=game, rack="ZZEIRST")
    assert refused.value.code == "not_in_bag" and refused.value.params["letters"] == "Z"
    with translation.override("fr"):
        french = error_text(refused.value)
    assert french != refused.value.message and "ZZEIRST" in french and "sac" in french
    with translation.override("en"):
        assert api_message(refused.value) == refused.value.message  # English: the service's own words


def test_the_api_answers_a_refusal_in_the_language_asked(api_game):
    game = api_game(players=1)
    seat = game.players[0]
    body = {"word": "ZO", "ref": "H8", "score": 11, "key": "k1"}
    # Round 1 is drawn but its clock has not started: the slip is refused.
    game.arbitrator.post(game.url("/rounds"), {}, format="json")
    english = assert_error(seat.client.post(game.url("/rounds/1/slips"), body, format="json"), 409,
                           "round_not_open")
    french = assert_error(seat.client.post(game.url("/rounds/1/slips"), body, format="json",
                                           HTTP_ACCEPT_LANGUAGE="fr"), 409, "round_not_open")
    assert english["message"] == "the round has not started yet"
    with translation.override("fr"):
        assert french["message"] == str(TEXTS["round_not_open"]) != english["message"]


@pytest.mark.django_db(transaction=True)
def test_the_fast_slip_path_answers_in_the_language_asked(make_game, make_player, settings, isolated_cache):
    settings.ALLOWED_HOSTS = ["localhost"]
    game = make_game()
    _, token = make_player(game, "Ann")
    services.round_draw(game=game)  # drawn, not started
    url = f"/api/games/{game.pk}/rounds/1/slips"
    body = {"word": "ZO", "ref": "H8", "score": 11, "key": "k1"}
    status, _, answer = asgi_post(url, body, f"Bearer {token}", headers=[(b"accept-language", b"fr-FR,fr;q=0.9")])
    status_en, _, answer_en = asgi_post(url, body, f"Bearer {token}")
    assert (status, answer["error"]["code"], status_en) == (409, "round_not_open", 409)
    with translation.override("fr"):
        assert answer["error"]["message"] == str(TEXTS["round_not_open"])
    assert answer_en["error"]["message"] == "the round has not started yet"
