"""find_tools: the model widens its own tool set when a plan needs more than it was sent.

Bind ``find_tools_definition(shape)`` with the selection. When the model calls it with a
capability phrase (any language), ``answer_find_tools`` returns up to five matching tools not
already bound, as the JSON of the tool result. On the next step the agent binds the tools
``discovered_tool_names(messages)`` reads back from the transcript: discoveries are a pure function
of the current turn's messages, so they reset with every human message and never accumulate in
stored state.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

from toolret.catalog import Catalog
from toolret.selection import MAX_DISCOVERED_TOOLS
from toolret.tool import Tool
from toolret.transcript import last_human_index

__all__ = [
    "FIND_TOOLS_NAME",
    "MAX_DISCOVERED_TOOLS",
    "FindToolsShape",
    "ToolFinder",
    "answer_find_tools",
    "discovered_tool_names",
    "find_tools_definition",
]

log = logging.getLogger("toolret.selection")

FIND_TOOLS_NAME = "find_tools"
FindToolsShape = Literal["openai", "openai_responses", "anthropic", "mcp"]

FIND_TOOLS_DESCRIPTION = (
    "Find more tools. The tools you have are a selection from a larger set; call this when you "
    "need a capability none of them offers. Describe the capability in plain language, in any "
    "language: what you want to do, not a tool name (for example 'link two records' or "
    "'أضف حقلا إلى الكائن'). Up to 5 matching tools are returned, and they become callable from "
    "your next step."
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


class ToolFinder(Protocol):
    """What answers find_tools: ``InMemoryRetriever`` and the database client."""

    async def find_tools(
        self, catalog: Catalog, capability: str, *, bound: Iterable[str] = (), limit: int = 5
    ) -> list[Tool]: ...


def find_tools_definition(shape: FindToolsShape = "openai") -> dict[str, Any]:
    """The find_tools definition to bind: ``openai`` (Chat Completions), ``openai_responses``,
    ``anthropic`` or ``mcp`` (a ``tools/list`` entry). A fresh dict each call."""
    schema = json.loads(json.dumps(_SCHEMA))
    fields = {"name": FIND_TOOLS_NAME, "description": FIND_TOOLS_DESCRIPTION}
    if shape == "openai":
        return {"type": "function", "function": {**fields, "parameters": schema}}
    if shape == "openai_responses":
        return {"type": "function", **fields, "parameters": schema}
    if shape == "anthropic":
        return {**fields, "input_schema": schema}
    if shape == "mcp":
        return {**fields, "inputSchema": schema}
    raise ValueError(f"unknown shape {shape!r}; use openai, openai_responses, anthropic or mcp")


async def answer_find_tools(
    finder: ToolFinder,
    catalog: Catalog,
    arguments: str | Mapping[str, Any],
    *,
    bound: Iterable[str] = (),
    limit: int = MAX_DISCOVERED_TOOLS,
) -> str:
    """The tool result for a find_tools call: ``{"tools": [{"name", "description"}, ...]}``.

    ``arguments`` is the call's arguments (JSON text or a dict). At most ``limit`` (≤ 5) tools,
    none already ``bound``, none core. Bad arguments or a failing finder give a JSON
    ``{"error": ...}`` the model can read and act on; this never raises.
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
        return _error("tool search is unavailable right now; continue with the tools you have")
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

    The current turn starts after the last human message (``toolret.transcript``: a user
    message that is not only tool results). Reads OpenAI Chat Completions (``tool_calls`` +
    ``role: "tool"``), Responses (``function_call`` + ``function_call_output``), Anthropic
    (``tool_use`` + ``tool_result``) and LangChain (``AIMessage.tool_calls`` + ``ToolMessage``)
    transcripts, as dicts or objects with ``model_dump()``. Anything malformed is skipped; this
    never raises.
    """
    transcript = list(messages)
    human = last_human_index(transcript)
    start = 0 if human is None else human + 1
    turn = [item for item in map(_mapping, transcript[start:]) if item is not None]
    calls = {call_id for item in turn for call_id in _find_tools_calls(item)}
    names: dict[str, None] = {}
    for item in turn:
        for text in _results(item, calls):
            names.update(dict.fromkeys(_names_in(text)))
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


def _mapping(message: Any) -> Mapping[str, Any] | None:
    if isinstance(message, Mapping):
        return message
    dump = getattr(message, "model_dump", None)
    try:
        dumped = dump() if callable(dump) else None
    except Exception:
        return None
    return dumped if isinstance(dumped, Mapping) else None


def _find_tools_calls(item: Mapping[str, Any]) -> Iterator[str]:
    """Ids of the find_tools calls an item makes (chat tool_calls, Responses, Anthropic)."""
    if item.get("type") == "function_call" and item.get("name") == FIND_TOOLS_NAME:
        yield from _ids(item.get("call_id"))
    if (item.get("role") or item.get("type")) not in ("assistant", "ai"):
        return
    for call in _list(item.get("tool_calls")):
        name = _get(call, "name") or _get(_get(call, "function"), "name")
        if name == FIND_TOOLS_NAME:
            yield from _ids(_get(call, "id"))
    for block in _list(item.get("content")):
        if _get(block, "type") == "tool_use" and _get(block, "name") == FIND_TOOLS_NAME:
            yield from _ids(_get(block, "id"))


def _results(item: Mapping[str, Any], calls: set[str]) -> Iterator[str]:
    """The texts of the results an item holds for the given call ids."""
    if "tool" in (item.get("role"), item.get("type")) and _answers(item.get("tool_call_id"), calls):
        yield _text(item.get("content"))
    if item.get("type") == "function_call_output" and _answers(item.get("call_id"), calls):
        yield _text(item.get("output"))
    if item.get("role") == "user":
        for block in _list(item.get("content")):
            if _get(block, "type") == "tool_result" and _answers(_get(block, "tool_use_id"), calls):
                yield _text(_get(block, "content"))


def _names_in(text: str) -> list[str]:
    try:
        payload = json.loads(text)
    except ValueError:
        return []
    tools = _list(_get(payload, "tools"))
    return [name for tool in tools if isinstance(name := _get(tool, "name"), str) and name]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(text for part in _list(content) if isinstance(text := _get(part, "text"), str))


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, Mapping) else None


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list) else ()


def _answers(call_id: Any, calls: set[str]) -> bool:
    return isinstance(call_id, str) and call_id in calls


def _ids(value: Any) -> Iterator[str]:
    if isinstance(value, str) and value:
        yield value
