"""Anthropic Messages API: deferred loading, with toolret answering the tool search.

What the API allows (Messages API; ``anthropic`` SDK ``ToolParam``, ``ToolResultBlockParam``,
``ToolReferenceBlockParam``):

- A tool with ``"defer_loading": true`` is not rendered into the prompt; it is loaded only when a
  tool search returns a ``{"type": "tool_reference", "tool_name": ...}`` block for it. Besides
  the built-in regex and BM25 search tools, a client tool may do the search: its ``tool_result``
  carries ``tool_reference`` blocks, and every referenced tool must be in ``tools`` (deferred).
- Deferred tools are not part of the cached prefix (tools, then system, then messages): a
  reference expands inline in the conversation, so the prefix, and the prompt cache, hold.
- So the cache-safe way to offer a turn's pre-selection is in the conversation, never in
  ``tools``: ``anthropic_preselection`` appends a search round (an assistant ``tool_use`` of
  this search tool and its ``tool_result`` of references) after the user's message. Changing
  which tools are loaded in ``tools``, or flipping ``defer_loading``, would change the prefix.
- The SDK also types a beta ``{"type": "tool_addition", "tool": {"type": "tool_reference",
  "name": ...}}`` message block (``BetaRequestToolAdditionBlockParam``: "the tool is offered
  to the model from this point in the conversation onward"), the same idea without a search
  round. It is beta and documented only in the SDK's types, so it is not used here.

    tools = anthropic_tools(catalog)                                  # once per conversation
    reply = client.messages.create(model=..., tools=tools, messages=messages, max_tokens=1024)
    for block in reply.content:
        if block.type == "tool_use" and block.name == SEARCH_TOOL_NAME:
            loaded = loaded_tool_names(messages)
            result = await answer_anthropic_search(retriever, catalog, block, bound=loaded)
            messages += [{"role": "assistant", "content": reply.content},
                         {"role": "user", "content": [result]}]

The SDK is not imported here: blocks are read as dicts or SDK objects, and plain dicts are
returned (they are the SDK's request types).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolret.adapters.anthropic import to_anthropic
from toolret.catalog import Catalog
from toolret.find_tools import ToolFinder
from toolret.selection import MAX_DISCOVERED_TOOLS, Selection
from toolret.transcript import last_human_index

__all__ = [
    "SEARCH_TOOL_NAME",
    "answer_anthropic_search",
    "anthropic_preselection",
    "anthropic_tools",
    "loaded_tool_names",
    "search_tool_definition",
]

SEARCH_TOOL_NAME = "search_tools"

SEARCH_TOOL_DESCRIPTION = (
    "Search for more tools. Most of your tools are not loaded yet; call this when you need a "
    "capability none of your loaded tools offers. Describe the capability in plain language, in "
    "any language: what you want to do, not a tool name (for example 'link two records' or "
    "'أضف حقلا إلى الكائن'). Up to 5 matching tools are loaded and callable from your next step."
)
_NO_MATCH = "No further tools match; rephrase the capability, or use the tools you have."
_UNAVAILABLE = "Tool search is unavailable right now; continue with the tools you have."


def search_tool_definition(name: str = SEARCH_TOOL_NAME) -> dict[str, Any]:
    """toolret's search tool, as an Anthropic client tool (never deferred)."""
    return {
        "name": name,
        "description": SEARCH_TOOL_DESCRIPTION,
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "The capability you need, in plain language (any language).",
                }
            },
            "required": ["query"],
        },
    }


def anthropic_tools(
    catalog: Catalog, *, loaded: Iterable[str] = (), search_tool_name: str = SEARCH_TOOL_NAME
) -> list[dict[str, Any]]:
    """The ``tools`` array: core tools (and ``loaded``) loaded, toolret's search tool, then
    every other tool with ``defer_loading: true``. The same catalog gives the same bytes, so
    send it unchanged for the whole conversation."""
    keep = {tool.name for tool in catalog.core} | set(loaded)
    eager = to_anthropic(tool for tool in catalog.tools if tool.name in keep)
    deferred = [
        {**definition, "defer_loading": True}
        for definition in to_anthropic(tool for tool in catalog.tools if tool.name not in keep)
    ]
    return [*eager, search_tool_definition(search_tool_name), *deferred]


async def answer_anthropic_search(
    finder: ToolFinder,
    catalog: Catalog,
    tool_use: Any,
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
) -> dict[str, Any]:
    """The ``tool_result`` block for a ``tool_use`` of the search tool: ``tool_reference``
    blocks for the best matches (any language), none core or already ``bound``.

    ``tool_use`` is the SDK's ``ToolUseBlock`` or its dict. A blank query, no match or a
    failing finder give a text result the model can act on; this never raises.
    """
    tool_use_id = str(_get(tool_use, "id") or "")
    arguments = _get(tool_use, "input")
    query = arguments.get("query") if isinstance(arguments, Mapping) else None
    if not isinstance(query, str) or not query.strip():
        return _text_result(tool_use_id, 'call with {"query": "<the capability you need>"}', True)
    skip = {*bound, *(tool.name for tool in catalog.core)}
    try:
        found = await finder.find_tools(catalog, query, bound=skip, limit=limit)
    except Exception:
        return _text_result(
            tool_use_id, "Tool search is unavailable; use the tools you have.", True
        )
    names = [tool.name for tool in found if tool.name in catalog and tool.name not in skip]
    return (
        _references(tool_use_id, names[:limit]) if names else _text_result(tool_use_id, _NO_MATCH)
    )


def anthropic_preselection(
    selection: Selection,
    query: str,
    *,
    search_tool_name: str = SEARCH_TOOL_NAME,
    bound: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """The turn's pre-selection as a search round to append after the user's message.

    Two messages: an assistant ``tool_use`` of the search tool for ``query`` and the user
    ``tool_result`` referencing the selection's tools (core and ``bound`` ones left out). They
    only append to the conversation, so the cached prefix holds. Empty when there is nothing to
    load (a full-roster or pass-through selection sends no references).
    """
    if not selection.narrowed:
        return []
    skip = {*bound, *(tool.name for tool in selection.tools if tool.core)}
    names = [name for name in selection.names if name not in skip]
    if not names:
        return []
    digest = hashlib.sha256(json.dumps([query, names], ensure_ascii=False).encode()).hexdigest()
    tool_use_id = f"toolu_toolret_{digest[:20]}"
    call = {
        "type": "tool_use",
        "id": tool_use_id,
        "name": search_tool_name,
        "input": {"query": query},
    }
    return [
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [_references(tool_use_id, names)]},
    ]


def loaded_tool_names(messages: Sequence[Any], *, whole_conversation: bool = True) -> list[str]:
    """The tools ``tool_reference`` blocks have loaded so far, in order, without duplicates.

    Pass them as ``bound`` so a search does not return what is already loaded. With
    ``whole_conversation=False`` only the current turn (after the last human message) counts.
    """
    start = 0
    if not whole_conversation:
        human = last_human_index(messages)
        start = 0 if human is None else human + 1
    names: dict[str, None] = {}
    for message in messages[start:]:
        if _get(message, "role") != "user":
            continue
        for block in _list(_get(message, "content")):
            if _get(block, "type") != "tool_result":
                continue
            for part in _list(_get(block, "content")):
                name = _get(part, "tool_name")
                if _get(part, "type") == "tool_reference" and isinstance(name, str):
                    names.setdefault(name, None)
    return list(names)


def _references(tool_use_id: str, names: Sequence[str]) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "tool_reference", "tool_name": name} for name in names],
    }


def _text_result(tool_use_id: str, text: str, is_error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "text", "text": text}],
    }
    if is_error:
        result["is_error"] = True
    return result


def _get(value: Any, key: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list) else ()
