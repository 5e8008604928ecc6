"""The OpenAPI schema served at /api/schema/ lists every path and method of the contract (docs/api.md)."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

CONTRACT = [
    ("post", "/api/auth/token"),
    ("post", "/api/tournaments"),
    ("post", "/api/tournaments/{}/games"),
    ("post", "/api/games/{}/players"),
    ("post", "/api/join"),
    ("post", "/api/games/{}/rounds"),
    ("post", "/api/games/{}/rounds/{}/start"),
    ("post", "/api/games/{}/rounds/{}/slips"),
    ("post", "/api/games/{}/rounds/{}/close"),
    ("get", "/api/games/{}/rounds/{}"),
    ("post", "/api/games/{}/rounds/{}/master"),
    ("post", "/api/games/{}/rounds/{}/slips/{}/correct"),
    ("get", "/api/games/{}"),
    ("get", "/api/games/{}/standings"),
    ("get", "/api/games/{}/sheets/standings.pdf"),
    ("get", "/api/games/{}/sheets/record.pdf"),
    ("get", "/api/games/{}/players/{}/scoresheet.pdf"),
]
PAGES = [
    ("get", "/api/games/{}/progress"),
    ("get", "/api/games/{}/live"),
    ("get", "/api/games/{}/me"),
    ("get", "/api/tournaments/{}/standings"),
]


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def operations(schema) -> set[tuple[str, str]]:
    return {
        (method, re.sub(r"\{[^}]+\}", "{}", path))
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    }


@pytest.mark.parametrize(("method", "path"), CONTRACT + PAGES)
def test_the_schema_lists_the_path(schema, method, path):
    assert (method, path) in operations(schema)


def test_the_schema_is_openapi_3(schema):
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"]


def test_contract_operations_document_their_bodies(schema):
    paths = {re.sub(r"\{[^}]+\}", "{}", path): item for path, item in schema["paths"].items()}
    for method, path in CONTRACT + PAGES:
        if path.endswith(".pdf"):
            continue
        operation = paths[path][method]
        ok = [code for code in operation["responses"] if code.startswith("2")]
        assert ok, (method, path)
        assert "application/json" in operation["responses"][ok[0]]["content"], (method, path)
        if method == "post" and not path.endswith(("/start", "/close")):
            assert "requestBody" in operation, (method, path)
    slip = paths["/api/games/{}/rounds/{}/slips"]["post"]
    assert {"200", "201", "400", "409", "429"} <= set(slip["responses"])
    body = schema["components"]["schemas"][slip["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                                            .rsplit("/", 1)[1]]
    assert {"word", "ref", "score", "key"} <= set(body["properties"])
    error = schema["components"]["schemas"]["ErrorDetail"]
    assert set(error["properties"]) == {"code", "message", "fields"}


def test_the_docs_page_is_served(db):
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


def _component(schema, ref_holder: dict) -> dict:
    return schema["components"]["schemas"][ref_holder["$ref"].rsplit("/", 1)[1]]


def _paths(schema) -> dict:
    return {re.sub(r"\{[^}]+\}", "{}", path): item for path, item in schema["paths"].items()}


def test_the_game_record_is_documented_as_a_json_object(schema):
    answer = _paths(schema)["/api/games/{}/exports/record.json"]["get"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"]["type"] == "object"
    assert "format" not in answer["content"]["application/json"]["schema"]  # not "binary"


def test_error_fields_document_their_values(schema):
    fields = schema["components"]["schemas"]["ErrorDetail"]["properties"]["fields"]
    assert fields["properties"]["seconds"] == {"type": "integer"}  # too_soon
    assert fields["properties"]["late_by"] == {"type": "number"}  # round_closed
    assert fields["properties"]["slip"] == {"$ref": "#/components/schemas/Slip"}  # stale_slip
    assert fields["additionalProperties"] == {"type": "array", "items": {"type": "string"}}


def test_slip_answers_document_replays(schema):
    slip = _paths(schema)["/api/games/{}/rounds/{}/slips"]["post"]
    replay = _component(schema, slip["responses"]["200"]["content"]["application/json"]["schema"])
    assert replay["properties"]["replayed"]["type"] == "boolean"
    assert replay["properties"]["replaced"]["nullable"] is True
    request = _component(schema, slip["requestBody"]["content"]["application/json"]["schema"])
    assert {"word", "key"} <= set(request["required"])


def test_every_operation_documents_the_refusals_it_can_give(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            assert "503" in codes, (method, path)
            if "requestBody" in operation:
                assert {"400", "413", "415"} <= codes, (method, path)
            if {} not in operation.get("security", [{}]):
                assert {"401", "403"} <= codes, (method, path)
    paths = _paths(schema)
    # A well-formed request the game's state refuses is a conflict: a rack the bag cannot give, a master
    # that is not a top, a round already closed; rate limits where they apply.
    for path in ("/api/games/{}/rounds", "/api/games/{}/rejections", "/api/games/{}/rounds/{}/master",
                 "/api/games/{}/rounds/{}/slips"):
        assert "409" in paths[path]["post"]["responses"], path
    for path in ("/api/games/{}/rounds/{}/slips", "/api/join", "/api/auth/token"):
        assert "429" in paths[path]["post"]["responses"], path


def _property(schema, path: str, name: str) -> dict:
    operation = _paths(schema)[path]["post"]
    field = _component(schema, operation["requestBody"]["content"]["application/json"]["schema"])["properties"][name]
    return field.get("oneOf", [field])[0]  # a field that may be blank: its non-blank form first


def _ref_language():
    """Every string REF_PATTERN matches (a finite language)."""
    import itertools

    letters = [chr(c) for c in range(ord("A"), ord("P"))]
    letters += [ch.lower() for ch in letters]
    numbers = [str(n) for n in range(1, 16)] + [f"0{n}" for n in range(1, 10)]
    for letter, number, space in itertools.product(letters, numbers, ("", " ")):
        yield letter + space + number
        yield number + space + letter


def test_the_notation_patterns_are_what_the_engine_reads(schema):
    from engine.notation import LABELLINGS, format_ref, parse_ref
    from engine.tiles import load_tileset

    ref = re.compile(_property(schema, "/api/games/{}/rounds/{}/slips", "ref")["pattern"])
    assert ref.pattern == _property(schema, "/api/games/{}/rounds/{}/master", "ref")["pattern"]
    language = set(_ref_language())
    for text in language:
        assert ref.search(text), text
        for labelling in LABELLINGS:
            parse_ref(text, labelling)  # every reference the pattern admits names a square
    for labelling in LABELLINGS:  # and every square, both ways, is written as the pattern says
        for row in range(15):
            for col in range(15):
                for horizontal in (True, False):
                    assert format_ref(row, col, horizontal, labelling) in language
    for text in ("", "P4", "H16", "H0", "4-H", "HH", "44", "H 4 "):
        assert not ref.search(text), text

    word = re.compile(_property(schema, "/api/games/{}/rounds/{}/slips", "word")["pattern"])
    assert word.search("MELANIc") and word.search("A" * 15)
    for text in ("", "A" * 16, "TAR3S", "TA RES", "ÉTÉ", "?"):
        assert not word.search(text), text

    for path in ("/api/games/{}/rounds", "/api/games/{}/rejections"):
        rack = re.compile(_property(schema, path, "rack")["pattern"])
        for tileset in ("english", "french"):
            letters = {ch for ch in load_tileset(tileset).full_bag()}
            assert all(rack.search(ch) for ch in letters), tileset
        assert rack.search("EIRST?A") and not rack.search("eirst") and rack.search("AEINORST") and not rack.search("ABCDEFGHIJKLMNOP")


def test_the_name_pattern_admits_exactly_the_names_with_a_visible_character(schema):
    from tournaments.names import clean_name

    name = _property(schema, "/api/games/{}/players", "name")
    assert name["pattern"] == _property(schema, "/api/join", "name")["pattern"]
    pattern = re.compile(name["pattern"])
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        assert bool(pattern.search(f" {ch} ")) == bool(clean_name(f" {ch} ")), hex(code)
    assert not pattern.search("Ann\x00")


def test_text_patterns_follow_pythons_idea_of_a_space(schema):
    key = re.compile(_property(schema, "/api/games/{}/rounds/{}/slips", "key")["pattern"])
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF or code == 0:
            continue
        ch = chr(code)
        assert bool(key.search(ch)) == bool(ch.strip()), hex(code)


def _answer(schema, path: str, method: str, status: str) -> dict:
    return _component(schema, _paths(schema)[path][method]["responses"][status]["content"]["application/json"]
                      ["schema"])


def test_the_game_the_slip_answer_and_me_document_the_variant_and_topping(schema):
    handed_in = _paths(schema)["/api/games/{}/rounds/{}/slips"]["post"]["responses"]["201"]
    one_of = _component(schema, handed_in["content"]["application/json"]["schema"])["oneOf"]
    assert "#/components/schemas/SlipAnswer" in [ref["$ref"] for ref in one_of]  # 201 and 200: the same answer
    game = _answer(schema, "/api/games/{}", "get", "200")
    assert {"variant", "timing"} <= set(game["required"]), game.get("required")
    assert "topping" in game["properties"]["variant"]["description"]
    for path, method, status in (("/api/games/{}/rounds/{}/slips", "post", "200"), ("/api/games/{}/me", "get", "200")):
        answer = _answer(schema, path, method, status)
        assert "topping" not in answer.get("required", ()), path  # absent in every other game
        topping = answer["properties"]["topping"]
        tried = _component(schema, topping["allOf"][0] if "allOf" in topping else topping)
        assert set(tried["properties"]) == {"found", "found_after"}, path
        assert tried["properties"]["found_after"]["nullable"] is True
