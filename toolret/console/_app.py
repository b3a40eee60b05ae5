"""The console's routes: each page as HTML (``/console/<page>``) and as its JSON twin
(``/console/<page>.json``), from one dictionary, so the page shows what the JSON says.

A request is let in by the service's own tokens (``toolret.service._auth``): the
``Authorization`` header, or the same token kept in an HttpOnly cookie once typed into the
console's sign-in form (a browser cannot send a header when it follows a link). Without tokens
configured the service listens on loopback only and every page is open, as the API is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from toolret.console._render import render
from toolret.service._http import ApiError, parse

if TYPE_CHECKING:
    from toolret._catalog import Catalog
    from toolret.service._app import Service
    from toolret.service._auth import Grant

__all__ = ["COOKIE", "console_app"]

COOKIE = "toolret_console_token"
"""The cookie holding the token typed into the sign-in form (HttpOnly, SameSite=Strict)."""

Page = Callable[["Service", "Grant", Request], Awaitable[dict[str, Any]]]
CatalogPage = Callable[["Service", str, "Catalog"], Awaitable[dict[str, Any]]]


def console_app(service_of: Callable[[], Service]) -> Starlette:
    """The console as an ASGI app, for ``toolret serve`` to mount at ``/console``;
    ``service_of`` returns the running service (created by the service's lifespan)."""

    def page(name: str, data: Page) -> list[Route]:
        async def endpoint(request: Request) -> Response:
            as_json = request.url.path.endswith(".json")
            service = service_of()
            try:
                grant = service.tokens.grant(_authorization(request))
                body = await data(service, grant, request)
            except ApiError as error:
                if as_json:
                    return error.response()
                if error.status == 401:
                    back = quote(str(request.url.path))
                    return RedirectResponse(f"{_root(request)}/login?next={back}", 303)
                body = {"error": {"status": error.status, "message": error.detail}}
                return HTMLResponse(render("error", body, request), status_code=error.status)
            if as_json:
                return JSONResponse(body)
            return HTMLResponse(render(name, body, request))

        return [Route(f"/{name}", endpoint), Route(f"/{name}.json", endpoint)]

    static = files("toolret.console") / "static"
    return Starlette(
        routes=[
            Route("/", _home),
            Route("/login", _login, methods=["GET", "POST"]),
            Route("/logout", _logout, methods=["POST"]),
            *page("playground", _playground),
            *page("catalogs", _catalogs),
            *page("misses", _misses),
            *page("health", _health),
            Mount("/static", StaticFiles(directory=str(static))),
        ]
    )


def _authorization(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header:
        return header
    token = request.cookies.get(COOKIE)
    return f"Bearer {token}" if token else None


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


async def _home(request: Request) -> Response:
    return RedirectResponse(f"{_root(request)}/playground", 303)


async def _login(request: Request) -> Response:
    target = request.query_params.get("next", "")
    if not target.startswith(_root(request) + "/") or "//" in target:
        target = f"{_root(request)}/playground"
    if request.method == "GET":
        return HTMLResponse(render("login", {"next": target}, request))
    form = await request.form()
    token = str(form.get("token", "")).strip()
    response = RedirectResponse(target, 303)
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path=_root(request) or "/")
    return response


async def _logout(request: Request) -> Response:
    response = RedirectResponse(f"{_root(request)}/login", 303)
    response.delete_cookie(COOKIE, path=_root(request) or "/")
    return response


async def _names(service: Service, grant: Grant) -> list[str]:
    """The registered catalogs this grant may use."""
    try:
        every = await service.registry.names()
    except Exception as error:
        raise ApiError(503, "catalog_unavailable", f"cannot list catalogs: {error}") from error
    return [name for name in every if grant.allows(name)]


async def _chosen(service: Service, grant: Grant, request: Request) -> tuple[list[str], str]:
    names = await _names(service, grant)
    asked = request.query_params.get("catalog") or (names[0] if names else "")
    if asked:
        grant.check(asked)
    return names, asked


async def _playground(service: Service, grant: Grant, request: Request) -> dict[str, Any]:
    from toolret.service._answers import answer_find_tools, answer_select
    from toolret.service._models import FindToolsRequest, SelectRequest

    names, catalog = await _chosen(service, grant, request)
    query = request.query_params
    message = query.get("message", "")
    capabilities = [line.strip() for line in query.get("capabilities", "").splitlines()]
    bound = [n for n in query.get("bound", "").replace(",", " ").split() if n]
    k = query.get("k", "").strip()
    out: dict[str, Any] = {
        "catalogs": names,
        "catalog": catalog,
        "message": message,
        "k": int(k) if k.isdigit() else None,
        "bound": bound,
        "capabilities": [c for c in capabilities if c],
        "select": None,
        "find_tools": None,
        "tools": {},
    }
    if not catalog:
        return out
    tools = grant.cut(await service.registry.get(catalog))
    out["tools"] = {t.name: {"core": t.core, "domain": t.domain} for t in tools.tools}
    if message.strip():
        request_body: dict[str, Any] = {"catalog": catalog, "message": message, "explain": True}
        if out["k"] is not None:
            request_body["k"] = out["k"]
        if bound:
            request_body["bound"] = bound
        out["select"] = await answer_select(service, grant, parse(SelectRequest, request_body))
    if out["capabilities"]:
        asked = {"catalog": catalog, "capabilities": out["capabilities"], "bound": bound}
        out["find_tools"] = await answer_find_tools(service, grant, parse(FindToolsRequest, asked))
    return out


async def _per_catalog(
    service: Service, grant: Grant, request: Request, read: CatalogPage
) -> dict[str, Any]:
    """The chosen catalog's ``read`` (under ``detail``) beside the catalogs to choose from."""
    names, catalog = await _chosen(service, grant, request)
    out: dict[str, Any] = {"catalogs": names, "catalog": catalog, "detail": None}
    if catalog:
        loaded = grant.cut(await service.registry.get(catalog))
        out["detail"] = await read(service, catalog, loaded)
    return out


async def _catalogs(service: Service, grant: Grant, request: Request) -> dict[str, Any]:
    from toolret.console._data import catalog_page

    return await _per_catalog(service, grant, request, catalog_page)


async def _misses(service: Service, grant: Grant, request: Request) -> dict[str, Any]:
    from toolret.console._data import misses_page

    return await _per_catalog(service, grant, request, misses_page)


async def _health(service: Service, grant: Grant, request: Request) -> dict[str, Any]:
    from toolret.console._data import health_page

    return await health_page(service)
