"""OpenAI Responses API: ``tool_search`` executed by the client, with toolret answering it.

What the API allows (Responses API; ``openai`` SDK ``ToolSearchToolParam``,
``NamespaceToolParam``, ``FunctionToolParam``, ``ResponseToolSearchCall``,
``ResponseToolSearchOutputItemParamParam``):

- ``{"type": "tool_search", "execution": "client", "description", "parameters"}`` in ``tools``
  makes the model emit a ``tool_search_call`` item (``call_id``, ``arguments`` in the schema
  you gave) instead of searching on the server. The client answers with a
  ``tool_search_output`` item (same ``call_id``, ``execution: "client"``) whose ``tools`` are
  the definitions to load: functions, or namespaces of functions.
- Functions, and functions inside a ``namespace``, may carry ``defer_loading: true``: the model
  sees a deferred function's name and description, and of a namespace only its name and
  description, until a search loads them. Loaded tools are injected at the end of the context,
  so the cached prefix holds.
- A call to a namespaced function comes back as a ``function_call`` with ``namespace`` and
  ``name``; ``called_tool_name`` maps it back to the catalog's ``server__tool`` name.

MCP tools (``catalog_from_mcp``) are grouped into one namespace per server, named as the server
and holding each tool under its own name; other tools are deferred functions.

    tools = responses_tools(catalog)
    response = client.responses.create(model=..., input=items, tools=tools)
    for item in response.output:
        if item.type == "tool_search_call":
            items += [item, await answer_responses_search(retriever, catalog, item)]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolret.adapters.mcp import SEPARATOR, McpOrigin
from toolret.adapters.openai import to_openai
from toolret.catalog import Catalog
from toolret.find_tools import ToolFinder
from toolret.selection import MAX_DISCOVERED_TOOLS
from toolret.tool import Tool

__all__ = [
    "SEARCH_PARAMETERS",
    "answer_responses_search",
    "called_tool_name",
    "namespace_of",
    "responses_tools",
    "tool_search_definition",
]

SEARCH_DESCRIPTION = (
    "Search for more tools. Most tools are not loaded yet; search when you need a capability "
    "none of your loaded tools offers. Describe it in plain language, in any language: what you "
    "want to do, not a tool name. Up to 5 matching tools are loaded."
)
SEARCH_PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "The capability you need, in plain language (any language).",
        }
    },
    "required": ["query"],
    "additionalProperties": False,
}
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def tool_search_definition() -> dict[str, Any]:
    """toolret's search, as a client-executed ``tool_search`` tool."""
    return {
        "type": "tool_search",
        "execution": "client",
        "description": SEARCH_DESCRIPTION,
        "parameters": json.loads(json.dumps(SEARCH_PARAMETERS)),
    }


def namespace_of(tool: Tool) -> tuple[str, str] | None:
    """``(namespace, function name)`` of an MCP tool: its server and its own name, made valid
    for the API; None for any other tool."""
    origin = tool.definition
    if not isinstance(origin, McpOrigin):
        return None
    namespace = _INVALID.sub("_", origin.server)
    prefix = f"{namespace}{SEPARATOR}"
    name = tool.name[len(prefix) :] if tool.name.startswith(prefix) else tool.name
    return namespace, name


def responses_tools(
    catalog: Catalog,
    *,
    loaded: Iterable[str] = (),
    namespaces: bool = True,
    namespace_descriptions: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The ``tools`` array: core tools (and ``loaded``) as functions, the client-executed
    ``tool_search``, then every other tool deferred: MCP tools in one namespace per server
    (``namespaces=True``), the rest as deferred functions. Stable bytes for a catalog: send it
    unchanged for the whole conversation.

    A namespace's description is ``namespace_descriptions[server]``, else one naming its tools.
    """
    keep = {tool.name for tool in catalog.core} | set(loaded)
    eager = [
        _top_level(definition)
        for definition in to_openai([t for t in catalog.tools if t.name in keep], "responses")
    ]
    rest = [tool for tool in catalog.tools if tool.name not in keep]
    descriptions = _descriptions(catalog, namespace_descriptions)
    deferred = _definitions(rest, namespaces, descriptions, defer=True)
    return [*eager, tool_search_definition(), *deferred]


async def answer_responses_search(
    finder: ToolFinder,
    catalog: Catalog,
    call: Any,
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
    namespaces: bool = True,
    namespace_descriptions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``tool_search_output`` item for a ``tool_search_call``: the best matches for its
    query (any language), none core or already ``bound``, as definitions to load (MCP tools
    inside their server's namespace). ``call`` is the SDK's ``ResponseToolSearchCall`` or its
    dict. No match, bad arguments or a failing finder load nothing; this never raises."""
    query = _query(_get(call, "arguments"))
    skip = {*bound, *(tool.name for tool in catalog.core)}
    found: list[Tool] = []
    if query:
        try:
            found = await finder.find_tools(catalog, query, bound=skip, limit=limit)
        except Exception:
            found = []
    tools = [t for t in found if t.name in catalog and t.name not in skip][:limit]
    return {
        "type": "tool_search_output",
        "call_id": _get(call, "call_id"),
        "execution": "client",
        "status": "completed",
        "tools": _definitions(
            tools, namespaces, _descriptions(catalog, namespace_descriptions), defer=False
        ),
    }


def called_tool_name(catalog: Catalog, call: Any) -> str | None:
    """The catalog name of the tool a ``function_call`` item calls (``namespace`` + ``name``,
    or a plain ``name``); None when the catalog has no such tool."""
    name, namespace = _get(call, "name"), _get(call, "namespace")
    if not isinstance(name, str):
        return None
    if isinstance(namespace, str) and namespace:
        for tool in catalog.tools:
            if namespace_of(tool) == (namespace, name):
                return tool.name
        return None
    return name if name in catalog else None


def _definitions(
    tools: Sequence[Tool], namespaces: bool, descriptions: Mapping[str, str], *, defer: bool
) -> list[dict[str, Any]]:
    flag = {"defer_loading": True} if defer else {}
    plain: list[dict[str, Any]] = []
    grouped: dict[str, list[dict[str, Any]]] = {}
    for tool, definition in zip(tools, to_openai(tools, "responses"), strict=True):
        place = namespace_of(tool) if namespaces else None
        if place is None:
            plain.append({**_top_level(definition), **flag})
            continue
        namespace, name = place
        grouped.setdefault(namespace, []).append({**definition, "name": name, **flag})
    spaces = [
        {
            "type": "namespace",
            "name": namespace,
            "description": descriptions.get(namespace, namespace),
            "tools": functions,
        }
        for namespace, functions in grouped.items()
    ]
    return [*plain, *spaces]


def _descriptions(catalog: Catalog, given: Mapping[str, str] | None) -> dict[str, str]:
    """Each namespace's description: the one given, else one naming all its tools (the same
    text whether the namespace is declared deferred or loaded by a search)."""
    members: dict[str, list[str]] = {}
    for tool in catalog.tools:
        place = namespace_of(tool)
        if place is not None:
            members.setdefault(place[0], []).append(place[1])
    out = {
        space: f"Tools of the {space} server: {', '.join(names)}."
        for space, names in members.items()
    }
    out.update(given or {})
    return out


def _top_level(definition: dict[str, Any]) -> dict[str, Any]:
    """A top-level function states ``strict`` (the SDK's ``FunctionToolParam`` requires the key;
    null leaves the choice to the API)."""
    return {**definition, "strict": definition.get("strict")}


def _query(arguments: Any) -> str | None:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    query = arguments.get("query") if isinstance(arguments, Mapping) else None
    return query.strip() if isinstance(query, str) and query.strip() else None


def _get(value: Any, key: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)
