"""The refusals every API operation can give, added to the OpenAPI schema where a view does not list them.

Any operation under /api/ may answer 503 (the database pool exhausted past its wait, or a service out of
reach: arbiter/middleware.py). One with a body may answer 400 (not JSON, or nested too deep), 413 (a body
too large), 415 (not application/json). One that needs credentials may answer 401 and 403. Each view
lists what its own business refuses (409 for a state conflict, 429 where a rate limit applies).
"""

from __future__ import annotations

ERROR_REF = {"$ref": "#/components/schemas/Error"}
COMMON = {
    "400": "Bad input: not JSON, nested too deep, or a field not valid",
    "401": "No or unknown credentials",
    "403": "Not allowed",
    "413": "The body is too large",
    "415": "The body is not application/json",
    "503": "The server is busy or a service it needs is out of reach: nothing was saved, retry after Retry-After",
}
METHODS = ("get", "post", "put", "patch", "delete")


def document_refusals(result, generator, request, public):
    """drf-spectacular postprocessing hook: the common refusals on every operation under /api/."""
    for path, item in result.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for method, operation in item.items():
            if method not in METHODS:
                continue
            codes = ["503"]
            if "requestBody" in operation:
                codes += ["400", "413", "415"]
            if operation.get("security") and {} not in operation["security"]:
                codes += ["401", "403"]
            responses = operation.setdefault("responses", {})
            for code in codes:
                if code not in responses:
                    responses[code] = {"content": {"application/json": {"schema": ERROR_REF}},
                                       "description": COMMON[code]}
                    if code == "503":
                        responses[code]["headers"] = {
                            "Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait"}}
    return result


# A paper slip's hand-in time goes only with late: true (views.SlipsView): absent, null, or with late true.
RECEIVED_AT_ONLY_LATE = {
    "anyOf": [
        {"not": {"required": ["received_at"], "properties": {"received_at": {"type": "string"}}}},
        {"required": ["late"], "properties": {"late": {"type": "boolean", "enum": [True]}}},
    ],
}


def document_slip_rules(result, generator, request, public):
    """drf-spectacular postprocessing hook: what a slip request's fields say of each other, which a serializer's
    fields cannot say (received_at only with late: true)."""
    slip = result.get("components", {}).get("schemas", {}).get("SlipRequest")
    if slip is not None:
        slip.update(RECEIVED_AT_ONLY_LATE)
    return result
