"""The OpenAPI 3.1 document of the service, built from the bodies' pydantic models.

Served at ``/openapi.json``; a client in any language can be generated from it. The schemas
are the models that validate the requests, so the document cannot drift from what the service
accepts.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from toolret.retrieval._selection import MAX_CAPABILITIES, MAX_DISCOVERED_TOOLS
from toolret.service import _models as models

__all__ = ["ERROR_SCHEMA", "openapi_document"]

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error", "detail"],
    "properties": {
        "error": {"type": "string", "description": "A stable code (unknown_catalog, ...)"},
        "detail": {"type": "string", "description": "What went wrong and what to do"},
        "field": {"type": "string", "description": "The request field (or header) at fault"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "detail": {"type": "string"}},
            },
        },
    },
}

_REQUEST_ERRORS = {
    "400": "The body is not JSON",
    "401": "No bearer token, or an unknown one",
    "403": "The token may not use this catalog",
    "413": "The body is larger than TOOLRET_SERVE_MAX_BODY_BYTES",
    "415": "The Content-Type is not application/json",
    "422": "A field does not validate (named in `field`)",
}


_LOOKUP_ERRORS = {
    "404": "No catalog is registered under that name",
    "503": "The database is unreachable and this process has not built the catalog yet",
}


def openapi_document(version: str) -> dict[str, Any]:
    """The whole document, for toolret ``version``."""
    bodies: list[type[BaseModel]] = [
        models.SelectRequest,
        models.SelectResponse,
        models.FindToolsRequest,
        models.FindToolsResponse,
        models.FindToolsDefinition,
        models.CatalogRegistration,
        models.RegistrationResponse,
        models.FeedbackRequest,
        models.FeedbackResponse,
        models.Health,
        models.Readiness,
    ]
    _, top = models_json_schema(
        [(model, "validation") for model in bodies],
        ref_template="#/components/schemas/{model}",
    )
    schemas: dict[str, Any] = dict(top.get("$defs", {}))
    schemas["Error"] = ERROR_SCHEMA
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "toolret",
            "version": version,
            "description": (
                "Semantic tool retrieval over HTTP: the tools to send a model for a message. "
                "A selection never fails: anything that goes wrong answers 200 with mode "
                "`full` (every tool) and the reason."
            ),
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/select": _post(
                "Core tools plus the best k for a message; the full roster on any failure",
                "SelectRequest",
                "SelectResponse",
                extra=_LOOKUP_ERRORS,
            ),
            "/v1/find_tools": _post(
                f"Up to {MAX_DISCOVERED_TOOLS} tools for each capability phrase (up to "
                f"{MAX_CAPABILITIES} of them), none already bound and none repeated across them",
                "FindToolsRequest",
                "FindToolsResponse",
                extra=_LOOKUP_ERRORS,
            ),
            "/v1/catalogs/{name}": {
                **_post(
                    "Register or replace a catalog, and have it indexed (by the worker, or "
                    "inline when no worker is configured)",
                    "CatalogRegistration",
                    "RegistrationResponse",
                    extra={
                        "403": "The token may not use this name, or the service's database "
                        "role may not register catalogs (`read_only`)",
                        "422": "Tool JSON a catalog cannot be built from (see `field`); with "
                        "`third_party: false`, also a thin description or an input schema "
                        "model providers refuse (`detail` names the tool and the JSON pointer)",
                        "503": "The database cannot store or index the catalog now (send it again)",
                    },
                    created=True,
                ),
                "parameters": [
                    {
                        "name": "name",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "pattern": models.CATALOG_NAME},
                    }
                ],
            },
            "/v1/catalogs/{name}/find_tools": _definition_path(),
            "/v1/feedback": _post(
                "Report what a turn called against what its selection bound",
                "FeedbackRequest",
                "FeedbackResponse",
                extra=_LOOKUP_ERRORS,
            ),
            "/healthz": _get("The process is up", "Health"),
            "/readyz": _get(
                "The database answers, its schema is current and the embedder is warm "
                "(503 otherwise)",
                "Readiness",
                unavailable=True,
            ),
            "/metrics": {
                "get": {
                    "summary": "Prometheus text of toolret's OpenTelemetry metrics",
                    "security": [],
                    "responses": {"200": {"description": "text/plain; version=0.0.4"}},
                }
            },
        },
    }


def _post(
    summary: str,
    request: str,
    response: str,
    *,
    extra: dict[str, str] | None = None,
    created: bool = False,
) -> dict[str, Any]:
    errors = {**_REQUEST_ERRORS, **(extra or {})}
    content = {"application/json": {"schema": _ref(response)}}
    ok = {"200": {"description": "OK", "content": content}}
    if created:
        ok = {
            "200": {"description": "Replaced (or unchanged)", "content": content},
            "201": {"description": "Registered under a new name", "content": content},
        }
    return {
        "post": {
            "summary": summary,
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": _ref(request)}},
            },
            "responses": {
                **ok,
                **{
                    status: {
                        "description": description,
                        "content": {"application/json": {"schema": _ref("Error")}},
                    }
                    for status, description in sorted(errors.items())
                },
            },
        }
    }


def _get(summary: str, response: str, *, unavailable: bool = False) -> dict[str, Any]:
    content = {"application/json": {"schema": _ref(response)}}
    responses = {"200": {"description": "OK", "content": content}}
    if unavailable:
        responses["503"] = {"description": "Not ready", "content": content}
    return {"get": {"summary": summary, "security": [], "responses": responses}}


def _definition_path() -> dict[str, Any]:
    """``GET /v1/catalogs/{name}/find_tools?shape=…``."""
    shapes = ["openai", "openai_responses", "anthropic", "gemini", "mcp"]
    errors = {"401": "No valid token", "403": "The token may not use this name", **_LOOKUP_ERRORS}
    errors["422"] = "An unknown shape"
    errors["409"] = "The catalog has a tool of its own named find_tools: rename it"
    return {
        "get": {
            "summary": "The find_tools definition to bind for this catalog, in a provider's "
            "shape; its description names what lies behind it",
            "parameters": [
                {
                    "name": "name",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "pattern": models.CATALOG_NAME},
                },
                {
                    "name": "shape",
                    "in": "query",
                    "required": False,
                    "schema": {"enum": shapes, "default": "openai"},
                },
            ],
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": _ref("FindToolsDefinition")}},
                },
                **{
                    status: {
                        "description": description,
                        "content": {"application/json": {"schema": _ref("Error")}},
                    }
                    for status, description in sorted(errors.items())
                },
            },
        }
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}
