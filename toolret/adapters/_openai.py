"""OpenAI tool JSON in, OpenAI tool JSON out.

Chat Completions tools look like ``{"type": "function", "function": {"name", "description",
"parameters"}}``; Responses tools like ``{"type": "function", "name", "description",
"parameters"}``. One list may mix both. Built-in tools (``web_search``, ``file_search``, ...) have
no description to rank and are bound by the provider: they are skipped with a warning, and the
caller sends them alongside every selection.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Unpack

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

__all__ = ["OpenAIShape", "catalog_from_openai", "to_openai"]

log = logging.getLogger("toolret.catalog")

OpenAIShape = Literal["chat", "responses"]


def catalog_from_openai(
    tools: Iterable[Mapping[str, Any]],
    **options: Unpack[CatalogOptions],
) -> Catalog:
    """A catalog from OpenAI function tools (Chat Completions or Responses shape).

    ``examples``, ``domain``, ``category`` and ``keywords`` are keyed by tool name (``domain``
    and ``category`` may also be one string for every tool); ``examples`` may be the path of a
    side file (see ``load_examples``). Each ``Tool`` keeps its original JSON in ``definition``
    and its ``parameters`` in ``input_schema``. Malformed entries raise ``CatalogSourceError``
    naming their index.
    """
    entries: list[Entry] = []
    for index, entry in enumerate(tools):
        where = f"tools[{index}]"
        if not _is_function(entry, where):
            continue
        definition = copy.deepcopy(dict(entry))
        fields = definition.get("function", definition)
        name, description, schema = read_fields(fields, where, ("parameters",))
        tool = Tool(name, description, input_schema=schema, definition=definition)
        entries.append(Entry(where, tool))
    return build_catalog(entries, **options)


def to_openai(
    tools: Selection | Iterable[Tool], shape: OpenAIShape = "chat"
) -> list[dict[str, Any]]:
    """The OpenAI definitions to send the model for these tools, in order.

    A tool's original OpenAI JSON is reused (converted between the Chat Completions and
    Responses shapes when needed, keeping fields such as ``strict``); any other tool is built
    from its name, description and input schema.
    """
    if shape not in ("chat", "responses"):
        raise ValueError(f"unknown OpenAI tool shape {shape!r}; use 'chat' or 'responses'")
    return [_definition(tool, shape) for tool in tools_of(tools)]


def _is_function(entry: object, where: str) -> bool:
    """Whether an entry is a function tool; False for a built-in tool (skipped)."""
    if not isinstance(entry, Mapping):
        raise CatalogSourceError(f"{where} is a {type(entry).__name__}, not a tool object")
    kind = entry.get("type")
    if kind is None:
        hint = 'OpenAI tools look like {"type": "function", "function": {"name": ...}}'
        if "input_schema" in entry:
            hint = "this is Anthropic tool JSON: use catalog_from_anthropic"
        raise CatalogSourceError(f'{where} has no "type"; {hint}')
    if kind != "function":
        if not isinstance(kind, str):
            raise CatalogSourceError(f'{where} has a "type" that is not a string')
        log.warning("toolret: %s is a built-in %r tool, not a function: skipped", where, kind)
        return False
    if not isinstance(entry.get("function", entry), Mapping):
        raise CatalogSourceError(f'{where} has a "function" that is not an object')
    return True


def _definition(tool: Tool, shape: OpenAIShape) -> dict[str, Any]:
    original = tool.definition
    if isinstance(original, Mapping) and original.get("type") == "function":
        function = original.get("function")
        if isinstance(function, Mapping):
            return dict(original) if shape == "chat" else {"type": "function", **function}
        if "name" in original:
            if shape == "responses":
                return dict(original)
            fields = {key: value for key, value in original.items() if key != "type"}
            return {"type": "function", "function": fields}
    fields = {
        "name": tool.name,
        "description": tool.description,
        "parameters": dict(tool.input_schema or EMPTY_SCHEMA),
    }
    if shape == "chat":
        return {"type": "function", "function": fields}
    return {"type": "function", **fields}
