"""Anthropic tool JSON in, Anthropic tool JSON out.

Client tools look like ``{"name", "description", "input_schema"}`` (``"type": "custom"`` is
optional). Server and built-in tools (``web_search_20250305``, ``bash_20250124``, ...) have no
description to rank: they are skipped with a warning, and the caller sends them alongside every
selection.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Unpack

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.adapters._source import (
    EMPTY_SCHEMA,
    CatalogOptions,
    Entry,
    build_catalog,
    read_fields,
    tools_of,
)
from toolret.errors import CatalogSourceError
from toolret.retrieval._selection import Selection

__all__ = ["catalog_from_anthropic", "to_anthropic"]

log = logging.getLogger("toolret.catalog")

_CLIENT_TYPES = (None, "custom")


def catalog_from_anthropic(
    tools: Iterable[Mapping[str, Any]],
    **options: Unpack[CatalogOptions],
) -> Catalog:
    """A catalog from Anthropic client tools.

    Keyword arguments as ``catalog_from_openai``. Each ``Tool`` keeps its original JSON in
    ``definition`` and its ``input_schema``. Malformed entries raise ``CatalogSourceError``
    naming their index.
    """
    entries: list[Entry] = []
    for index, entry in enumerate(tools):
        where = f"tools[{index}]"
        if not _is_client_tool(entry, where):
            continue
        definition = copy.deepcopy(dict(entry))
        name, description, schema = read_fields(definition, where, ("input_schema",))
        tool = Tool(name, description, input_schema=schema, definition=definition)
        entries.append(Entry(where, tool))
    return build_catalog(entries, **options)


def to_anthropic(tools: Selection | Iterable[Tool]) -> list[dict[str, Any]]:
    """The Anthropic definitions to send the model for these tools, in order.

    A tool's original Anthropic JSON is reused as it is (``cache_control`` included); any other
    tool is built from its name, description and input schema.
    """
    return [_definition(tool) for tool in tools_of(tools)]


def _is_client_tool(entry: object, where: str) -> bool:
    if not isinstance(entry, Mapping):
        raise CatalogSourceError(f"{where} is a {type(entry).__name__}, not a tool object")
    kind = entry.get("type")
    if kind == "function" or "function" in entry or "parameters" in entry:
        raise CatalogSourceError(f"{where} is OpenAI tool JSON; use catalog_from_openai")
    if kind in _CLIENT_TYPES:
        return True
    if not isinstance(kind, str):
        raise CatalogSourceError(f'{where} has a "type" that is not a string')
    log.warning("toolret: %s is a built-in %r tool, not a client tool: skipped", where, kind)
    return False


def _definition(tool: Tool) -> dict[str, Any]:
    original = tool.definition
    if (
        isinstance(original, Mapping)
        and original.get("type") in _CLIENT_TYPES
        and original.get("name") == tool.name
        and "input_schema" in original
    ):
        return dict(original)
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": dict(tool.input_schema or EMPTY_SCHEMA),
    }
