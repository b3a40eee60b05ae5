"""Reading a request's JSON body within its limits, and errors as JSON that name the field.

Every refusal is a 4xx with ``{"error": <code>, "detail": <what to do>, "field": <where>}``:
``unsupported_media_type`` (415, the ``Content-Type`` is not JSON), ``body_too_large`` (413,
over ``TOOLRET_SERVE_MAX_BODY_BYTES``), ``malformed_json`` (400), ``invalid_request`` (422, a
field that does not validate, with every problem under ``errors``), ``unknown_catalog`` (404),
``invalid_catalog`` (422, tool JSON a catalog cannot be built from), ``unauthorized`` and
``invalid_token`` (401), ``forbidden`` (403). What the router refuses has the same shape:
``not_found`` (404, no such path) and ``method_not_allowed`` (405, with ``Allow``); and so has a
failure of the service itself, ``internal_error`` (500), whose cause goes to the log only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

__all__ = ["ApiError", "http_error", "internal_error", "parse", "read_json"]

M = TypeVar("M", bound=BaseModel)


class ApiError(Exception):
    """A request the service refuses: its status, a stable code, and what to do about it."""

    def __init__(
        self,
        status: int,
        error: str,
        detail: str,
        *,
        field: str | None = None,
        errors: list[dict[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.error = error
        self.detail = detail
        self.field = field
        self.errors = errors
        self.headers = dict(headers or {})

    def response(self) -> JSONResponse:
        """The JSON response for this error."""
        body: dict[str, Any] = {"error": self.error, "detail": self.detail}
        if self.field is not None:
            body["field"] = self.field
        if self.errors is not None:
            body["errors"] = self.errors
        return JSONResponse(body, status_code=self.status, headers=self.headers)


async def read_json(request: Request, limit: int) -> Any:
    """The request's body as JSON: 415 unless it says JSON, 413 past ``limit`` bytes (checked
    on ``Content-Length`` and again while reading, so a body that lies is cut off), 400 when it
    does not parse."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise ApiError(
            415,
            "unsupported_media_type",
            "send the body as JSON with Content-Type: application/json",
            field="Content-Type",
        )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, "malformed_json", f"the body is not valid JSON: {error}") from error


def parse(model: type[M], data: Any) -> M:
    """Validate ``data`` as ``model``; a 422 naming the first bad field (all under ``errors``)."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = [
            {"field": _dotted(problem["loc"]), "detail": problem["msg"]}
            for problem in error.errors(include_url=False, include_input=False)
        ]
        first = problems[0] if problems else {"field": "", "detail": "invalid request"}
        raise ApiError(
            422,
            "invalid_request",
            f"{first['field'] or 'the body'}: {first['detail']}",
            field=first["field"] or None,
            errors=problems,
        ) from error


async def http_error(request: Request, error: Exception) -> Response:
    """The router's refusals (an unknown path, a method a path does not take) as JSON."""
    assert isinstance(error, HTTPException)
    headers = dict(error.headers or {})
    if error.status_code == 404:
        refusal = ApiError(
            404, "not_found", f"no such path: {request.url.path}; the API is at /openapi.json"
        )
    elif error.status_code == 405:
        allow = headers.get("Allow") or headers.get("allow") or ""
        refusal = ApiError(
            405,
            "method_not_allowed",
            f"{request.method} is not allowed on {request.url.path}; use {allow or 'another'}",
            headers=headers,
        )
    else:
        code = f"http_{error.status_code}"
        refusal = ApiError(error.status_code, code, str(error.detail), headers=headers)
    return refusal.response()


async def internal_error(request: Request, error: Exception) -> Response:
    """A failure of the service itself: the JSON shape, with nothing of the cause (which the
    server logs)."""
    return ApiError(
        500, "internal_error", "the service failed on this request; its log says why"
    ).response()


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        "body_too_large",
        f"the body is larger than {limit} bytes (TOOLRET_SERVE_MAX_BODY_BYTES)",
        field="body",
    )


def _dotted(location: tuple[int | str, ...]) -> str:
    """``("tools", 3, "name")`` → ``tools[3].name``."""
    out = ""
    for part in location:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
