"""Refusals are said from their code and params (tournaments/refusals.py): every code the services and the
engine raise has a text, in English and French; the API answers in the language the request asks for, on the
fast slip path as through Django; the console never reads the English message back."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

from tournaments import services
from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.refusals import TEXTS, api_message, error_text, refusal_text

from .api_support import asgi_post, assert_error

ROOT = Path(__file__).resolve().parents[2]
# Every refusal built in tournaments/ and engine/: a call of one of these with its code first, then (the
# services' errors) its message only where it has one of its own, and its params (``why`` says which text).
RAISING = {"ServiceError", "Conflict", "NotFound", "Forbidden", "StaleSlip", "RackError", "RefError", "WordError",
           "PlayError"}
ENGINE_ERRORS = {"RackError", "RefError", "WordError"}
FIELDS = ("name",)  # the fields whose refusals the services name f"{field}_required", f"{field}_too_long"


def _constant(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _why(node: ast.Call) -> str | None:
    """The ``why`` a refusal is raised with: ``why=`` (the engine's errors) or a literal in ``params={...}``."""
    for keyword in node.keywords:
        if keyword.arg == "why":
            return _constant(keyword.value)
        if keyword.arg == "params" and isinstance(keyword.value, ast.Dict):
            for key, value in zip(keyword.value.keys, keyword.value.values, strict=True):
                if key is not None and _constant(key) == "why":
                    return _constant(value)
    return None


def _raise_sites():
    """(path, line, codes, why, message node or None) of every refusal built in tournaments/ and engine/."""
    for folder in ("tournaments", "engine"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in RAISING
                        and node.args):
                    continue
                first = node.args[0]
                if isinstance(first, ast.JoinedStr):  # f"{field}_required"
                    template = "".join(_constant(part) or "{field}" for part in first.values)
                    codes = [template.replace("{field}", field) for field in FIELDS]
                else:
                    codes = [code] if (code := _constant(first)) else []
                message = next((kw.value for kw in node.keywords if kw.arg == "message"), None)
                if node.func.id not in ENGINE_ERRORS and len(node.args) > 1:
                    message = node.args[1]
                yield path.relative_to(ROOT).as_posix(), node.lineno, codes, _why(node), message


def raised_codes() -> set[str]:
    """The codes of every refusal written in tournaments/ and engine/ (``f"{field}_required"`` for each field
    the services name)."""
    return {code for _, _, codes, _, _ in _raise_sites() for code in codes}


# The engine's reasons for judging a play (checking.PlayError) are results, not refusals: the pages show them
# through their own reason texts.
JUDGING_REASONS = {"does_not_fit", "not_centre", "not_connected", "not_in_rack", "invalid_word"}


def test_every_refusal_code_has_a_text():
    codes = raised_codes() - JUDGING_REASONS
    assert len(codes) > 40, codes  # the scan finds the refusals
    assert sorted(code for code in codes if code not in {key if isinstance(key, str) else key[0] for key in TEXTS}) == []


def test_every_why_a_refusal_is_raised_with_has_its_text():
    """A ``why`` picks the refusal's text: one without a text of its own would say the code's general text."""
    from engine.refusals import TEXTS as ENGINE_TEXTS
    whys = {(code, why) for _, _, codes, why, _ in _raise_sites() if why for code in codes} - {
        (code, why) for code, why in ((key if isinstance(key, tuple) else (key, None)) for key in TEXTS)}
    assert len([site for site in _raise_sites() if site[3]]) > 40  # the scan finds the whys
    assert sorted(whys) == []
    assert set(ENGINE_TEXTS) <= set(TEXTS)


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
    ("table_taken", {"table": 4, "name": "Ann"}, "Ann already sits at table 4", "Ann"),
    ("table_taken", {"table": 4}, "table 4 is taken: choose another, or none to get the next free one",
     "La table 4"),
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


# Written once: a refusal's English is its text in tournaments/refusals.py (the engine's in engine/refusals.py);
# the raise sites give the code and params only. A message is still passed where it is the words of another
# error (a rule's, a word list's, a parser's: not a sentence written here), and for second_slip, whose page
# text asks the console's question with its buttons.
WRITTEN_ONCE = ("engine", "tournaments/services", "tournaments/setting.py")
MESSAGE_OF_ITS_OWN = {"second_slip"}
JUDGING = "engine/checking.py"  # PlayError: a play's judgement, said through the reasons' texts (see above)


def _pattern(parts) -> re.Pattern:
    """A regular expression for a sentence made of literal parts and values (None)."""
    return re.compile("".join(".+" if part is None else re.escape(part) for part in parts), re.S)


def _literal_parts(node) -> list | None:
    """A string literal or f-string as its literal parts and values (None); None when it is no literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [part.value if isinstance(part, ast.Constant) else None for part in node.values]
    return None


def _english_texts() -> list[str]:
    with translation.override("en"):
        return [str(template) for template in TEXTS.values()]


def test_no_raise_site_writes_again_a_refusal_text():
    texts = _english_texts()
    written = []
    for path, line, code, _, message in _raise_sites():
        parts = _literal_parts(message)
        if parts is None:
            continue
        sentence = _pattern(parts)
        if any(sentence.fullmatch(re.sub(r"%\(\w+\)[sr]", "X", text)) for text in texts):
            written.append(f"{path}:{line} {code}")
    assert written == []


def test_the_services_and_the_engine_refuse_with_a_code_and_params_only():
    sites = [(path, line, codes) for path, line, codes, _, message in _raise_sites()
             if path.startswith(WRITTEN_ONCE) and path != JUDGING and _literal_parts(message) is not None
             and not MESSAGE_OF_ITS_OWN.intersection(codes)]
    assert sites == []
    assert len([site for site in _raise_sites() if site[0].startswith(WRITTEN_ONCE)]) > 80  # the scan finds them


def test_the_engine_texts_are_translated_not_written_again():
    from engine.refusals import TEXTS as ENGINE_TEXTS
    with translation.override("en"):
        assert {key: str(TEXTS[key]) for key in ENGINE_TEXTS} == ENGINE_TEXTS
    with translation.override("fr"):
        assert all(str(TEXTS[key]) != text for key, text in ENGINE_TEXTS.items())


@pytest.mark.parametrize("error", [
    lambda: Conflict("round_closed", params={"late_by": 2.5, "why": "slip"}),
    lambda: Conflict("table_taken", params={"table": 4, "name": "Ann"}),
    lambda: ServiceError("bad_table", params={"table": 0, "max": 999}),
    lambda: NotFound("unknown_player", params={"player": 12}),
    lambda: ServiceError("bad_letters", params={"why": "rejected"}),
])
def test_a_service_error_says_its_text_in_english(error):
    refused = error()
    with translation.override("fr"):
        french = error_text(refused)
        assert api_message(refused) == french
    with translation.override("en"):
        assert refused.message == refusal_text(refused.code, refused.params) == str(refused) != french


def test_an_engine_error_says_its_text_in_english():
    from engine.drawing import RackError
    from engine.notation import RefError, WordError
    for error in (RackError("not_in_bag", rack="ZZEIRST", letters="Z"), RefError("bad_ref", ref="H", why="no_number"),
                  WordError("bad_word", word="", why="empty"), RackError("wrong_size", rack="", size=7, count=0,
                                                                          why="no_letters")):
        with translation.override("en"):
            assert error.message == refusal_text(error.code, error.params) == str(error)
    assert RackError("wrong_size", rack="", size=7, count=0, why="no_letters").message == (
        "the rack: the rack must have 7 letters, not 0")


def test_a_real_refusal_answers_the_api_with_its_one_text(api_game):
    game = api_game(players=1)
    game.arbitrator.post(game.url("/rounds"), {}, format="json")
    english = assert_error(game.arbitrator.post(game.url("/rounds/1/slips"), {"word": "ZO", "ref": "H8", "score": 11,
                                                                               "key": "k1", "table": 77}, format="json"),
                           404, "unknown_table")
    assert english["message"] == "no player at table 77 in this game"
    with translation.override("en"):
        assert english["message"] == refusal_text("unknown_table", {"table": 77})
