"""Anthropic Messages API: deferred loading, with toolret answering the tool search.

What the API allows (Messages API; ``anthropic`` SDK ``ToolParam``, ``ToolResultBlockParam``,
``ToolReferenceBlockParam``, ``BetaRequestToolAdditionBlockParam``):

- A tool with ``"defer_loading": true`` is not rendered into the prompt; it is loaded when a
  tool search returns a ``{"type": "tool_reference", "tool_name": ...}`` block for it. A client
  tool may do the search: its ``tool_result`` carries ``tool_reference`` blocks, and every
  referenced tool must be in ``tools`` with ``defer_loading: true``. So the ``tools`` array
  loads exactly the catalog's core tools and the search tool; every other tool is deferred,
  and a search never returns a core tool (to keep more tools always loaded, make them core).
- Deferred tools are not part of the cached prefix (tools, then system, then messages), and a
  deferred tool may not carry ``cache_control``: the breakpoint goes on the last tool that is
  not deferred, the search tool (``anthropic_tools(..., cache=True)``).
- Every ``tool_use`` of a reply is answered in the next user message, search or not: a reply
  that calls the search tool and another tool needs both results.
- The cache-safe way to offer a turn's pre-selection is in the conversation, never in ``tools``:
  ``anthropic_preselection`` appends a search round (an assistant ``tool_use`` of the search
  tool and its ``tool_result`` of references). With extended thinking that round is refused
  (an assistant turn the model did not write has no thinking block), so the alternative,
  behind ``tool_changes=True``, is one ``role: "system"`` message of ``tool_addition`` blocks,
  a beta (``TOOL_CHANGES_BETA``) offering the tools from that point on; ``anthropic_headers``
  gives the header a conversation needs.

    tools = anthropic_tools(catalog, cache=True)                      # once per conversation
    reply = client.messages.create(model=..., tools=tools, messages=messages, max_tokens=1024)
    loaded = loaded_tool_names(messages)
    results = [await answer_anthropic_search(retriever, catalog, block, bound=loaded)
               if block.name == SEARCH_TOOL_NAME else run_your_tool(block)
               for block in reply.content if block.type == "tool_use"]
    messages += [{"role": "assistant", "content": reply.content},
                 {"role": "user", "content": results}]

The SDK is not imported here: blocks are read as dicts or SDK objects, and plain dicts are
returned (they are the SDK's request types).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolret._catalog import Catalog
from toolret.adapters._anthropic import to_anthropic
from toolret.errors import ConfigurationError
from toolret.retrieval._base import Retriever
from toolret.retrieval._find_tools import (
    CAPABILITIES_SCHEMA,
    MAX_CAPABILITIES,
    capabilities_of,
    check_search_name,
    find_each,
    tools_behind,
    unavailable_message,
)
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, Selection
from toolret.retrieval._transcript import blocks, field, loaded_by_anthropic

__all__ = [
    "SEARCH_TOOL_NAME",
    "TOOL_CHANGES_BETA",
    "answer_anthropic_search",
    "anthropic_headers",
    "anthropic_preselection",
    "anthropic_tools",
    "loaded_tool_names",
    "search_tool_definition",
]

SEARCH_TOOL_NAME = "search_tools"
TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"
"""The ``anthropic-beta`` value ``tool_addition`` blocks need."""

SEARCH_TOOL_DESCRIPTION = (
    "Search for more tools. Most of your tools are not loaded yet; call this when you need a "
    "capability none of your loaded tools offers. Describe each capability in plain language, "
    "in any language: what you want to do, not a tool name (for example 'link two records' or "
    f"'أضف حقلا إلى الكائن'). Ask for every capability your plan still needs in one call, up to "
    f"{MAX_CAPABILITIES}; up to {MAX_DISCOVERED_TOOLS} matching tools each are loaded and "
    "callable from your next step."
)
_NO_MATCH = "No further tools match; rephrase the capability, or use the tools you have."
_CACHE = {"type": "ephemeral"}


def search_tool_definition(
    name: str = SEARCH_TOOL_NAME, catalog: Catalog | None = None
) -> dict[str, Any]:
    """toolret's search tool, as an Anthropic client tool (never deferred): find_tools'
    arguments (``capabilities``), and with ``catalog`` what lies behind it in its
    description (``toolret.retrieval._find_tools.tools_behind``); a catalog with a tool of its
    own called ``name`` raises ``CatalogError``."""
    if catalog is not None:
        check_search_name(catalog.names, name, instead="give toolret's another search_tool_name")
    behind = "" if catalog is None else f" {tools_behind(catalog)}"
    return {
        "name": name,
        "description": SEARCH_TOOL_DESCRIPTION + behind,
        "input_schema": json.loads(json.dumps(CAPABILITIES_SCHEMA)),
    }


def anthropic_tools(
    catalog: Catalog, *, cache: bool = False, search_tool_name: str = SEARCH_TOOL_NAME
) -> list[dict[str, Any]]:
    """The ``tools`` array: the core tools loaded, toolret's search tool, then every other tool
    with ``defer_loading: true``. The same catalog gives the same bytes, so send it unchanged
    for the whole conversation. ``cache=True`` puts the prompt-cache breakpoint
    (``cache_control``) on the search tool, the last tool that is not deferred: the API
    refuses it on a deferred tool."""
    eager = to_anthropic(catalog.core)
    deferred = [
        {**definition, "defer_loading": True} for definition in to_anthropic(catalog.candidates)
    ]
    search = search_tool_definition(search_tool_name, catalog)
    if cache:
        search["cache_control"] = dict(_CACHE)
    return [*eager, search, *deferred]


async def answer_anthropic_search(
    finder: Retriever,
    catalog: Catalog,
    tool_use: Any,
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
) -> dict[str, Any]:
    """The ``tool_result`` block for a ``tool_use`` of the search tool: ``tool_reference``
    blocks for the best matches of each capability asked (any language), capability by
    capability, none core or already ``bound`` (the tools the conversation has loaded:
    ``loaded_tool_names(messages)``), none twice.

    ``tool_use`` is the SDK's ``ToolUseBlock`` or its dict. No capability, no match, a catalog
    not indexed yet or a failing finder give a text result the model can act on; this never
    raises.
    """
    tool_use_id = str(field(tool_use, "id") or "")
    arguments = field(tool_use, "input")
    capabilities = capabilities_of(arguments if isinstance(arguments, Mapping) else None)
    if not capabilities:
        return _text_result(
            tool_use_id, 'call with {"capabilities": ["<a capability you need>", ...]}', True
        )
    skip = {*bound, *(tool.name for tool in catalog.core)}
    found = await find_each(
        finder, catalog, capabilities[:MAX_CAPABILITIES], bound=skip, limit=limit
    )
    names = [tool.name for tools in found for tool in tools]
    if names:
        return _references(tool_use_id, names)
    unavailable = next((m for m in map(unavailable_message, found) if m is not None), None)
    if unavailable is not None:
        return _text_result(tool_use_id, unavailable[0].upper() + unavailable[1:] + ".", True)
    return _text_result(tool_use_id, _NO_MATCH)


def anthropic_preselection(
    selection: Selection,
    query: str,
    *,
    bound: Iterable[str] = (),
    tool_changes: bool = False,
    thinking: bool = False,
    search_tool_name: str = SEARCH_TOOL_NAME,
) -> list[dict[str, Any]]:
    """The turn's pre-selection, as messages to append after the user's message.

    By default two messages: an assistant ``tool_use`` of the search tool for ``query`` and the
    user ``tool_result`` referencing the selection's tools (core and ``bound`` ones left out),
    with a fresh id each call. With ``tool_changes=True``: one ``role: "system"`` message of
    ``tool_addition`` blocks (send ``extra_headers=anthropic_headers(messages)``). Either only
    appends to the conversation, so the cached prefix holds. Empty when there is nothing to
    load (a full-roster or pass-through selection).

    ``thinking=True`` says the request has extended thinking on: the API refuses a search round
    the model did not write there, so it raises ``ConfigurationError`` unless ``tool_changes``.
    """
    if thinking and not tool_changes:
        raise ConfigurationError(
            "with extended thinking on, the API refuses a search round the model did not write "
            "(it has no thinking block): pass tool_changes=True, or let the model search"
        )
    if not selection.narrowed:
        return []
    skip = {*bound, *(tool.name for tool in selection.tools if tool.core)}
    names = [name for name in selection.names if name not in skip]
    if not names:
        return []
    if tool_changes:
        additions = [
            {"type": "tool_addition", "tool": {"type": "tool_reference", "name": name}}
            for name in names
        ]
        return [{"role": "system", "content": additions}]
    tool_use_id = f"toolu_toolret_{uuid.uuid4().hex[:24]}"
    call = {
        "type": "tool_use",
        "id": tool_use_id,
        "name": search_tool_name,
        "input": {"capabilities": [query]},
    }
    return [
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [_references(tool_use_id, names)]},
    ]


def anthropic_headers(messages: Sequence[Any]) -> dict[str, str]:
    """The request headers a conversation needs: ``anthropic-beta: TOOL_CHANGES_BETA`` once it
    holds a ``tool_addition`` or ``tool_removal`` block (and on every later request, as the
    block stays in the history), else none. Pass as ``extra_headers=`` to ``messages.create``
    or ``messages.stream``."""
    for message in messages:
        for block in blocks(message):
            if field(block, "type") in ("tool_addition", "tool_removal"):
                return {"anthropic-beta": TOOL_CHANGES_BETA}
    return {}


def loaded_tool_names(messages: Sequence[Any], *, whole_conversation: bool = True) -> list[str]:
    """The tools the conversation has loaded so far (``tool_reference`` blocks of tool results,
    and ``tool_addition`` blocks), in order, without duplicates.

    Pass them as ``bound`` so a search does not return what is already loaded. With
    ``whole_conversation=False`` only the current turn (after the last human message) counts.
    """
    return loaded_by_anthropic(messages, whole_conversation=whole_conversation)


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
