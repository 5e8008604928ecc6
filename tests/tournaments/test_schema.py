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
