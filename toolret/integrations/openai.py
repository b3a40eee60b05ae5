"""OpenAI Responses API: ``tool_search`` executed by the client, with toolret answering it.

What the API allows (Responses API; ``openai`` SDK ``ToolSearchToolParam``,
``NamespaceToolParam``, ``FunctionToolParam``, ``ResponseToolSearchCall``,
``ResponseToolSearchOutputItemParamParam``):

- ``{"type": "tool_search", "execution": "client", "description", "parameters"}`` in ``tools``
  makes the model emit a ``tool_search_call`` item (``call_id``, ``arguments`` in the schema
  you gave) instead of searching on the server. The client answers with a
  ``tool_search_output`` item (same ``call_id``, ``execution: "client"``) whose ``tools`` are
  the definitions to load: functions, or namespaces of functions, each function with
  ``defer_loading: true`` as in every example of the documentation. Only gpt-5.4 and later
  models support ``tool_search``, and they are reasoning models.
- Functions, and functions inside a ``namespace``, may carry ``defer_loading: true``: the model
  sees a deferred function's name and description, and of a namespace only its name and
  description, until a search loads them. Loaded tools are injected at the end of the context,
  so the cached prefix holds.
- The next request re-sends the whole ``response.output``: the reasoning items a call came
  with must come back with it, and every ``function_call`` and ``tool_search_call`` needs its
  output item.
- A call to a namespaced function comes back as a ``function_call`` with ``namespace`` and
  ``name`` (a plain function loaded by a search may come back with ``namespace`` equal to its
  name); ``called_tool_name`` maps it back to the catalog's name.

MCP tools (``catalog_from_mcp``) are grouped into one namespace per server, named as the server
and holding each tool under its own name; other tools are deferred functions.

    tools = responses_tools(catalog)
    response = client.responses.create(model="gpt-5.4", input=items, tools=tools)
    items += response.output
    loaded = responses_loaded_tool_names(catalog, items)
    for item in response.output:
        if item.type == "tool_search_call":
            items.append(await answer_responses_search(retriever, catalog, item, bound=loaded))
        elif item.type == "function_call":
            ...  # run called_tool_name(catalog, item), append its function_call_output
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.adapters._mcp import SEPARATOR, McpOrigin
from toolret.adapters._openai import to_openai
from toolret.retrieval._base import Retriever
from toolret.retrieval._find_tools import unavailable_message
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, FoundTools, Reason
from toolret.retrieval._transcript import field, search_outputs

__all__ = [
    "SEARCH_PARAMETERS",
    "answer_responses_search",
    "called_tool_name",
    "namespace_of",
    "responses_loaded_tool_names",
    "responses_tools",
    "tool_search_definition",
]

SEARCH_DESCRIPTION = (
    "Search for more tools. Most tools are not loaded yet; search when you need a capability "
    "none of your loaded tools offers. Describe it in plain language, in any language: what you "
    f"want to do, not a tool name. Up to {MAX_DISCOVERED_TOOLS} matching tools are loaded."
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
    namespaces: bool = True,
    namespace_descriptions: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The ``tools`` array: the core tools as functions, the client-executed ``tool_search``,
    then every other tool deferred: MCP tools in one namespace per server
    (``namespaces=True``), the rest as deferred functions. Stable bytes for a catalog: send it
    unchanged for the whole conversation. A search never returns a core tool, so whatever it
    loads was deferred here.

    A namespace's description is ``namespace_descriptions[server]``, else one naming its tools.
    """
    eager = [_top_level(definition) for definition in to_openai(catalog.core, "responses")]
    descriptions = _descriptions(catalog, namespace_descriptions)
    deferred = _definitions(catalog.candidates, namespaces, descriptions)
    return [*eager, tool_search_definition(), *deferred]


async def answer_responses_search(
    finder: Retriever,
    catalog: Catalog,
    call: Any,
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
    namespaces: bool = True,
    namespace_descriptions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ``tool_search_output`` item for a ``tool_search_call``: the best matches for its
    query (any language), none core or already ``bound`` (the tools the conversation has
    loaded: ``responses_loaded_tool_names``), as deferred definitions to load (MCP tools inside
    their server's namespace). ``call`` is the SDK's ``ResponseToolSearchCall`` or its dict.
    No match, bad arguments, a catalog not indexed yet or a failing finder load nothing (the
    item has no field to say why; the finder logs it); this never raises."""
    query = _query(field(call, "arguments"))
    skip = {*bound, *(tool.name for tool in catalog.core)}
    found: list[Tool] = []
    if query:
        try:
            found = await finder.find_tools(catalog, query, bound=skip, limit=limit)
        except Exception:
            found = FoundTools(reason=Reason.INTERNAL_ERROR)
    if unavailable_message(found) is not None:
        found = []
    tools = [t for t in found if t.name in catalog and t.name not in skip][:limit]
    return {
        "type": "tool_search_output",
        "call_id": field(call, "call_id"),
        "execution": "client",
        "status": "completed",
        "tools": _definitions(tools, namespaces, _descriptions(catalog, namespace_descriptions)),
    }


def called_tool_name(catalog: Catalog, call: Any) -> str | None:
    """The catalog name of the tool a ``function_call`` item calls (``namespace`` + ``name``,
    or a plain ``name``, which a plain function loaded by a search may carry as its own
    ``namespace`` too); None when the catalog has no such tool."""
    name, namespace = field(call, "name"), field(call, "namespace")
    if not isinstance(name, str):
        return None
    if isinstance(namespace, str) and namespace:
        for tool in catalog.tools:
            if namespace_of(tool) == (namespace, name):
                return tool.name
        if namespace != name:
            return None
    return name if name in catalog else None


def responses_loaded_tool_names(catalog: Catalog, items: Sequence[Any]) -> list[str]:
    """The catalog tools the conversation's ``tool_search_output`` items have loaded, in order,
    without duplicates: pass them as ``bound`` so a search does not load them again (loaded
    tools stay in the context for the rest of the conversation)."""
    names: dict[str, None] = {}
    for tools in search_outputs(items):
        for definition in tools:
            inner = field(definition, "tools")
            space = field(definition, "name")
            for function in inner if isinstance(inner, list) else [definition]:
                name = _catalog_name(catalog, space if inner is not None else None, function)
                if name is not None:
                    names.setdefault(name, None)
    return list(names)


def _catalog_name(catalog: Catalog, namespace: Any, function: Any) -> str | None:
    name = field(function, "name")
    if not isinstance(name, str):
        return None
    if isinstance(namespace, str):
        return called_tool_name(catalog, {"namespace": namespace, "name": name})
    return name if name in catalog else None


def _definitions(
    tools: Sequence[Tool], namespaces: bool, descriptions: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Deferred definitions: plain functions, and one namespace per MCP server."""
    flag = {"defer_loading": True}
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
