"""find_tools: the model widens its own tool set when a plan needs more than it was sent.

Bind ``find_tools_definition(shape)`` with the selection. When the model calls it with a
capability phrase (any language), ``answer_find_tools`` returns up to ``MAX_DISCOVERED_TOOLS``
matching tools not already bound, as the JSON of the tool result. On the next step the agent
binds the tools ``discovered_tool_names(messages)`` reads back from the transcript: discoveries
are a pure function of the current turn's messages, so they reset with every human message and
never accumulate in stored state.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.retrieval._base import Retriever
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS, FoundTools, Reason
from toolret.retrieval._transcript import (
    current_turn,
    field,
    result_payload,
    tool_calls,
    tool_results,
)

__all__ = [
    "FIND_TOOLS_NAME",
    "MAX_DISCOVERED_TOOLS",
    "FindToolsShape",
    "answer_find_tools",
    "discovered_tool_names",
    "find_tools_definition",
    "unavailable_message",
]

log = logging.getLogger("toolret.selection")

FIND_TOOLS_NAME = "find_tools"
FindToolsShape = Literal["openai", "openai_responses", "anthropic", "gemini", "mcp"]

FIND_TOOLS_DESCRIPTION = (
    "Find more tools. The tools you have are a selection from a larger set; call this when you "
    "need a capability none of them offers. Describe the capability in plain language, in any "
    "language: what you want to do, not a tool name (for example 'link two records' or "
    f"'أضف حقلا إلى الكائن'). Up to {MAX_DISCOVERED_TOOLS} matching tools are returned, and they "
    "become callable from your next step."
)
_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "capability": {
            "type": "string",
            "description": "The capability you need, in plain language (any language).",
        }
    },
    "required": ["capability"],
    "additionalProperties": False,
}


def find_tools_definition(shape: FindToolsShape = "openai") -> dict[str, Any]:
    """The find_tools definition to bind: ``openai`` (Chat Completions), ``openai_responses``,
    ``anthropic``, ``gemini`` (a ``FunctionDeclaration``, its schema as JSON Schema) or ``mcp``
    (a ``tools/list`` entry). A fresh dict each call."""
    schema = json.loads(json.dumps(_SCHEMA))
    fields = {"name": FIND_TOOLS_NAME, "description": FIND_TOOLS_DESCRIPTION}
    if shape == "openai":
        return {"type": "function", "function": {**fields, "parameters": schema}}
    if shape == "openai_responses":
        return {"type": "function", **fields, "parameters": schema}
    if shape == "anthropic":
        return {**fields, "input_schema": schema}
    if shape == "gemini":
        return {**fields, "parameters_json_schema": schema}
    if shape == "mcp":
        return {**fields, "inputSchema": schema}
    raise ValueError(
        f"unknown shape {shape!r}; use openai, openai_responses, anthropic, gemini or mcp"
    )


def unavailable_message(found: list[Tool]) -> str | None:
    """What to tell the model when no search could run (``FoundTools.reason``), or None when
    one did: a catalog still being indexed is "not available yet", anything else "unavailable
    right now". Either way the model should go on with the tools it has."""
    reason = found.reason if isinstance(found, FoundTools) else None
    if reason is None:
        return None
    if reason is Reason.NOT_INDEXED:
        return (
            "tool search is not available yet: the tools are still being indexed; "
            "continue with the tools you have"
        )
    return "tool search is unavailable right now; continue with the tools you have"


async def answer_find_tools(
    finder: Retriever,
    catalog: Catalog,
    arguments: str | Mapping[str, Any],
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
) -> str:
    """The tool result for a find_tools call: ``{"tools": [{"name", "description"}, ...]}``.

    ``arguments`` is the call's arguments (JSON text or a dict). At most ``limit``
    (≤ ``MAX_DISCOVERED_TOOLS``) tools, none already ``bound``, none core. Bad arguments or a
    failing finder give a JSON ``{"error": ...}`` the model can read and act on; this never
    raises.
    """
    capability = _capability(arguments)
    if capability is None:
        return _error('call find_tools with {"capability": "<what you need, in plain language>"}')
    skip = set(bound)
    limit = max(0, min(limit, MAX_DISCOVERED_TOOLS))
    try:
        found = await finder.find_tools(catalog, capability, bound=skip, limit=limit)
    except Exception as error:
        log.warning("toolret: find_tools failed: %r", error)
        found = FoundTools(reason=Reason.INTERNAL_ERROR)
    unavailable = unavailable_message(found)
    if unavailable is not None:
        return _error(unavailable)
    tools = [
        t for t in found if t.name in catalog and t.name not in skip and not catalog[t.name].core
    ]
    payload: dict[str, Any] = {
        "tools": [{"name": t.name, "description": t.description} for t in tools[:limit]]
    }
    if not payload["tools"]:
        payload["note"] = (
            "no further tools match; rephrase the capability or use the tools you have"
        )
    return json.dumps(payload, ensure_ascii=False)


def discovered_tool_names(messages: Iterable[Any]) -> list[str]:
    """The tools find_tools returned in the current turn, in order, without duplicates.

    The current turn starts after the last human message (a user message that is not only
    tool results). Any transcript ``toolret.retrieval._transcript`` reads: OpenAI Chat Completions
    and
    Responses, Anthropic, Gemini and LangChain, as dicts or SDK objects. A result answers a
    find_tools call by its id, or by name where the shape has no ids (Gemini). Anything
    malformed is skipped; this never raises.
    """
    turn = current_turn(messages)
    finds = [call for call in tool_calls(turn) if call.name == FIND_TOOLS_NAME]
    ids = {call.id for call in finds if call.id is not None}
    names: dict[str, None] = {}
    for result in tool_results(turn):
        by_id = result.call_id is not None and result.call_id in ids
        by_name = result.call_id is None and result.name == FIND_TOOLS_NAME and bool(finds)
        if by_id or by_name:
            names.update(dict.fromkeys(_names_in(result_payload(result.content))))
    return list(names)


def _capability(arguments: str | Mapping[str, Any]) -> str | None:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return None
    if not isinstance(arguments, Mapping):
        return None
    capability = arguments.get("capability")
    return capability.strip() if isinstance(capability, str) and capability.strip() else None


def _error(message: str) -> str:
    return json.dumps({"error": message, "tools": []}, ensure_ascii=False)


def _names_in(payload: Any) -> list[str]:
    tools = field(payload, "tools") if isinstance(payload, Mapping) else None
    if not isinstance(tools, list):
        return []
    return [name for tool in tools if isinstance(name := field(tool, "name"), str) and name]
