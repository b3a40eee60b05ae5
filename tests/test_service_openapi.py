"""``/openapi.json``: it documents every route, and what the service answers matches it.

The document is read from the running service; real answers (200s and each kind of 4xx) are
validated against the schema it gives for that path and status, so the document cannot drift
from the service.
"""

from __future__ import annotations

from typing import Any

import httpx
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support.http_serving import serving
from tests.support.service_catalog import MESSAGES, registration
from toolret.service._app import create_app
from toolret.service._settings import ServiceSettings


def check(document: dict[str, Any], method: str, path: str, response: httpx.Response) -> None:
    """``response`` is documented for ``path`` with its status, and its body validates."""
    responses = document["paths"][path][method]["responses"]
    status = str(response.status_code)
    assert status in responses, f"{method.upper()} {path} answered {status}, not documented"
    schema = responses[status]["content"]["application/json"]["schema"]
    registry = Registry().with_resource(
        "urn:toolret", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    validator = Draft202012Validator({"$ref": f"urn:toolret{schema['$ref']}"}, registry=registry)
    errors = [error.message for error in validator.iter_errors(response.json())]
    assert not errors, f"{method.upper()} {path} {status}: {errors}"


async def test_the_document_covers_every_route_and_the_answers_match_it(
    database_url: str,
) -> None:
    app = create_app(ServiceSettings(tokens={"tok": ("crm",)}), database_url=database_url)
    auth = {"authorization": "Bearer tok"}
    async with serving(app) as server, httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        document = (await http.get("/openapi.json")).json()
        assert document["openapi"].startswith("3.1")
        # the console's pages (docs/console.md) are HTML with JSON twins, not the API
        routes = {route.path for route in app.routes} - {"/openapi.json", "/console"}  # type: ignore[attr-defined]
        assert routes == set(document["paths"])
        Draft202012Validator.check_schema(document["components"]["schemas"]["SelectRequest"])

        calls: list[tuple[str, str, dict[str, Any] | None]] = [
            ("post", "/v1/catalogs/crm", registration()),
            ("post", "/v1/catalogs/crm", registration()),
            ("post", "/v1/select", {"catalog": "crm", "message": MESSAGES[0]}),
            ("post", "/v1/select", {"catalog": "crm", "message": "x", "resume": True}),
            ("post", "/v1/select", {"catalog": "crm"}),
            ("post", "/v1/select", {"catalog": "other", "message": "x"}),
            ("post", "/v1/find_tools", {"catalog": "crm", "query": "add a field"}),
            ("post", "/v1/find_tools", {"catalog": "crm", "query": ""}),
            ("post", "/v1/feedback", {"catalog": "crm", "message": "m", "bound": [], "called": []}),
            ("post", "/v1/catalogs/crm", {"format": "openai", "tools": [{"type": "function"}]}),
            ("get", "/healthz", None),
            ("get", "/readyz", None),
        ]
        statuses = set()
        for method, path, body in calls:
            response = await http.request(method, path, json=body, headers=auth)
            statuses.add(response.status_code)
            documented = "/v1/catalogs/{name}" if path.startswith("/v1/catalogs/") else path
            check(document, method, documented, response)
        unauthorized = await http.post("/v1/select", json={"catalog": "crm", "message": "x"})
        check(document, "post", "/v1/select", unauthorized)
        wrong_type = await http.post(
            "/v1/select", content=b"{}", headers={**auth, "content-type": "text/plain"}
        )
        check(document, "post", "/v1/select", wrong_type)
        statuses |= {unauthorized.status_code, wrong_type.status_code}
    assert statuses == {200, 201, 401, 403, 415, 422}
