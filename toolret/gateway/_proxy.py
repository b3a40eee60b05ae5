"""The rest of MCP through the gateway: every upstream's resources, resource templates and prompts.

Lists are gathered from the servers that are up and declared the feature, concurrently, every
page, each server bounded by ``LIST_SECONDS`` (a slow or failing one is left out and logged,
never failing the list). Names are namespaced like tools (``server__name``); a prompt is got
from the server its name starts with. Resource URIs are kept as their servers wrote them, so
a URI a tool result links to reads as listed: ``resources/read`` asks the server that listed
the URI, else each server offering resources in turn, and answers the first that has it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from toolret.adapters._mcp import SEPARATOR
from toolret.gateway._upstream import LIST_PAGES, Upstream, UpstreamUnavailable

if TYPE_CHECKING:
    import mcp
    from mcp import types

__all__ = [
    "LIST_SECONDS",
    "get_prompt",
    "list_prompts",
    "list_resource_templates",
    "list_resources",
    "read_resource",
]

log = logging.getLogger("toolret.gateway")

LIST_SECONDS = 10.0
"""How long one server may take to list its resources, templates or prompts."""

_T = TypeVar("_T")


async def list_resources(upstreams: Sequence[Upstream]) -> list[types.Resource]:
    """Every resource of the servers that are up, named ``server__name``."""
    listed = await _gather(
        upstreams, "resources", lambda c, cursor: c.list_resources(cursor=cursor)
    )
    out: list[types.Resource] = []
    for upstream, page in listed:
        resources = [item for result in page for item in result.resources]
        upstream.resource_uris = {resource.uri for resource in resources}
        out.extend(_namespaced(upstream, resource) for resource in resources)
    return out


async def list_resource_templates(upstreams: Sequence[Upstream]) -> list[types.ResourceTemplate]:
    """Every resource template of the servers that are up, named ``server__name``."""
    listed = await _gather(
        upstreams, "resources", lambda c, cursor: c.list_resource_templates(cursor=cursor)
    )
    return [
        _namespaced(upstream, template)
        for upstream, page in listed
        for result in page
        for template in result.resource_templates
    ]


async def read_resource(upstreams: Sequence[Upstream], uri: str) -> types.ReadResourceResult:
    """The resource at ``uri``, from the server that listed it, else the first server offering
    resources that has it; the last server's error when none has it."""
    offering = [u for u in upstreams if u.offers("resources")]
    ordered = sorted(offering, key=lambda u: uri not in u.resource_uris)  # stable: config order
    if not ordered:
        raise UpstreamUnavailable(
            f"no server that is up offers resources, so {uri!r} cannot be read"
        )
    failure: Exception | None = None
    for upstream in ordered:
        try:
            return await upstream.ask(lambda client: client.read_resource(uri))
        except Exception as error:  # this server has no such resource: ask the next
            failure = error
    assert failure is not None
    raise failure


async def list_prompts(upstreams: Sequence[Upstream]) -> list[types.Prompt]:
    """Every prompt of the servers that are up, named ``server__prompt``."""
    listed = await _gather(upstreams, "prompts", lambda c, cursor: c.list_prompts(cursor=cursor))
    return [
        _namespaced(upstream, prompt)
        for upstream, page in listed
        for result in page
        for prompt in result.prompts
    ]


async def get_prompt(
    upstreams: Sequence[Upstream], name: str, arguments: dict[str, str] | None
) -> types.GetPromptResult:
    """The prompt ``server__prompt`` from its server; ``UpstreamUnavailable`` saying why when
    no server that is up has it."""
    fits = [u for u in upstreams if name.startswith(f"{u.name}{SEPARATOR}")]
    if not fits:
        raise UpstreamUnavailable(f"no prompt is named {name!r}; list the prompts to find one")
    upstream = max(fits, key=lambda u: len(u.name))
    original = name[len(upstream.name) + len(SEPARATOR) :]
    return await upstream.ask(lambda client: client.get_prompt(original, arguments))


def _namespaced(upstream: Upstream, item: _T) -> _T:
    named: Any = item
    copy: _T = named.model_copy(update={"name": f"{upstream.name}{SEPARATOR}{named.name}"})
    return copy


async def _gather(
    upstreams: Sequence[Upstream],
    feature: str,
    page: Callable[[mcp.Client, str | None], Awaitable[Any]],
) -> list[tuple[Upstream, list[Any]]]:
    """Every page of one list from each server that is up and offers ``feature``."""
    offering = [u for u in upstreams if u.offers(feature)]

    async def pages(upstream: Upstream) -> list[Any] | None:
        results: list[Any] = []
        cursor: str | None = None
        try:
            async with asyncio.timeout(LIST_SECONDS):
                for _ in range(LIST_PAGES):
                    result = await page(upstream.client, cursor)
                    results.append(result)
                    cursor = result.next_cursor
                    if not cursor:
                        break
        except Exception as error:  # one server's failure leaves it out of the list
            if upstream.said.first(f"listing {feature}: {error!r}"):  # once per cause
                log.warning(
                    "toolret gateway: listing %s of %s failed: %r", feature, upstream.name, error
                )
            return None
        return results

    answers = await asyncio.gather(*(pages(upstream) for upstream in offering))
    return [(u, answer) for u, answer in zip(offering, answers, strict=True) if answer is not None]
