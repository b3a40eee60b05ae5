"""MCP tool listings in: one catalog over many servers, tools named ``server__tool``.

Accepts what the ``mcp`` SDK returns (``ListToolsResult``, ``mcp.types.Tool``), the raw
``tools/list`` JSON (the result, the whole JSON-RPC response, or the list of tools), and any
server object exposing ``.name`` and ``.tools``. The SDK is never imported: attributes are read
as they come (``input_schema`` or ``inputSchema``).

Names are made valid for model APIs (``[A-Za-z0-9_-]``, at most 64 characters): other characters
become ``_``, and a name too long is cut with a short hash of the full name, so long names stay
unique. Two tools whose names still meet raise ``ToolNameCollisionError`` naming both. Each
tool's server and original name stay on the tool (``mcp_origin``) to route the call back.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.adapters._source import CatalogOptions, Entry, build_catalog, read_fields
from toolret.errors import CatalogSourceError, ToolNameCollisionError

__all__ = ["McpOrigin", "catalog_from_mcp", "mcp_origin", "mcp_tool_name"]

MAX_NAME_LENGTH = 64
SEPARATOR = "__"
_INVALID = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LENGTH = 8


@dataclass(frozen=True)
class McpOrigin:
    """Where an MCP tool came from; the ``Tool.definition`` of tools from ``catalog_from_mcp``."""

    server: str
    name: str
    """The tool's name on its server: the one to send in ``tools/call``."""
    tool: Any
    """The listing entry as given (an ``mcp.types.Tool`` or its JSON)."""


def mcp_tool_name(server: str, tool: str) -> str:
    """The catalog name of an MCP tool: ``server__tool``, made valid for model APIs."""
    raw = f"{server}{SEPARATOR}{tool}"
    name = _INVALID.sub("_", raw)
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha256(raw.encode()).hexdigest()[:_HASH_LENGTH]
        name = f"{name[: MAX_NAME_LENGTH - _HASH_LENGTH - 1]}_{digest}"
    return name


def mcp_origin(tool: Tool) -> tuple[str, str] | None:
    """``(server, original tool name)`` of a tool built from an MCP listing, else None."""
    origin = tool.definition
    return (origin.server, origin.name) if isinstance(origin, McpOrigin) else None


def catalog_from_mcp(
    servers: Mapping[str, Any] | Iterable[Any],
    **options: Unpack[CatalogOptions],
) -> Catalog:
    """A catalog over the tools of several MCP servers.

    ``servers`` maps a server name to its listing, or is an iterable of server objects with
    ``.name`` and ``.tools``. Keys of ``examples``/``domain``/``category``/``keywords`` and
    ``core`` names may be the final name, ``server__tool`` with the tool's original name, or
    the original name alone when one server lists it (a name several list raises
    ``AmbiguousToolNameError`` naming the candidates). The other options are
    ``build_catalog``'s: ``domain_rank``, ``min_description_length``, ``third_party``.
    """
    pairs = servers.items() if isinstance(servers, Mapping) else map(_server_pair, servers)
    read: list[tuple[str, Tool, str]] = []
    taken: dict[str, tuple[str, str]] = {}
    for server, listing in pairs:
        if not isinstance(server, str) or not server:
            raise CatalogSourceError(f"MCP server name {server!r} is not a non-empty string")
        for index, item in enumerate(_listing(listing, server)):
            where = f"server {server!r} tools[{index}]"
            original, description, schema = read_fields(_fields(item), where, _SCHEMA_KEYS)
            name = mcp_tool_name(server, original)
            _claim(taken, name, server, original)
            definition = McpOrigin(server, original, item)
            tool = Tool(name, description, input_schema=schema, definition=definition)
            read.append((f"{where} ({original!r})", tool, original))
    by_bare: dict[str, list[str]] = {}
    for _, tool, original in read:
        by_bare.setdefault(original, []).append(tool.name)
    entries: list[Entry] = []
    for where, tool, original in read:
        server = tool.definition.server
        aliases = [f"{server}{SEPARATOR}{original}"]
        if len(by_bare[original]) == 1:
            aliases.append(original)  # a bare name one server alone lists
        entries.append(Entry(where, tool, tuple(a for a in aliases if a != tool.name)))
    ambiguous = {bare: names for bare, names in by_bare.items() if len(names) > 1}
    return build_catalog(entries, ambiguous=ambiguous, **options)


_SCHEMA_KEYS = ("inputSchema", "input_schema")


def _server_pair(server: Any) -> tuple[Any, Any]:
    if isinstance(server, Mapping):
        return server.get("name"), server.get("tools")
    if not hasattr(server, "name") or not hasattr(server, "tools"):
        raise CatalogSourceError(f"MCP server {server!r} has no .name and .tools")
    return server.name, server.tools


def _listing(listing: Any, server: str) -> Sequence[Any]:
    """The tools of one server's listing, in whichever form it came."""
    if isinstance(listing, Mapping):
        if "error" in listing:
            raise CatalogSourceError(f"MCP server {server!r} answered tools/list with an error")
        listing = listing.get("result", listing)
        cursor = listing.get("nextCursor") if isinstance(listing, Mapping) else None
        tools = listing.get("tools") if isinstance(listing, Mapping) else None
    elif isinstance(listing, Sequence) and not isinstance(listing, str):
        cursor, tools = None, listing
    else:
        cursor = _attribute(listing, "next_cursor", "nextCursor")
        tools = getattr(listing, "tools", None)
    if cursor:
        raise CatalogSourceError(
            f"MCP server {server!r}: the listing is one page of several (nextCursor is set); "
            "pass the tools of every page"
        )
    if not isinstance(tools, Sequence) or isinstance(tools, str):
        raise CatalogSourceError(
            f"MCP server {server!r}: expected a tools/list result, a list of tools or an "
            f"object with .tools, got {type(listing).__name__}"
        )
    return tools


def _fields(item: Any) -> Mapping[str, Any]:
    if isinstance(item, Mapping):
        return item
    fields = {key: getattr(item, key) for key in ("name", "description") if hasattr(item, key)}
    return fields | {"input_schema": _attribute(item, "input_schema", "inputSchema")}


def _attribute(item: Any, name: str, old_name: str) -> Any:
    """``item.name``, else ``item.old_name`` (the MCP SDK before v2), else None: the old name
    is read only when the new one is absent, since with FastMCP imported each read of it warns."""
    return getattr(item, name) if hasattr(item, name) else getattr(item, old_name, None)


def _claim(taken: dict[str, tuple[str, str]], name: str, server: str, original: str) -> None:
    """Reserve ``name``; the same tool listed twice is left to the duplicate check."""
    other = taken.setdefault(name, (server, original))
    if other == (server, original):
        return
    first = f"server {other[0]!r} tool {other[1]!r}"
    second = f"server {server!r} tool {original!r}"
    raise ToolNameCollisionError(
        f"MCP tools {first} and {second} both become {name!r} once made valid for model APIs "
        "([A-Za-z0-9_-], at most 64 characters); rename one of them or its server",
        tool=name,
        originals=(f"{other[0]}{SEPARATOR}{other[1]}", f"{server}{SEPARATOR}{original}"),
    )
