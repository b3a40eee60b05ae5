"""Reading a model transcript: the one reader of messages for find_tools, feedback and the
provider integrations.

It accepts the shapes agent loops hold, as dicts or SDK objects (pydantic models, LangChain
messages), and reads every field the same way (a mapping's key, else an attribute):

- OpenAI Chat Completions: ``role``, ``tool_calls`` (``id``, ``function.name``/``arguments``),
  ``role: "tool"`` results with ``tool_call_id``.
- OpenAI Responses: ``function_call`` and ``function_call_output`` items (``call_id``),
  ``tool_search_output`` items, messages with ``input_text`` parts.
- Anthropic Messages: ``tool_use`` blocks in assistant messages, ``tool_result`` blocks in user
  messages (tool results travel in ``user`` messages), ``tool_reference`` and
  ``tool_addition`` blocks.
- Gemini ``Content``: ``role: "model"`` parts with ``function_call``, parts with
  ``function_response`` (snake_case or the wire's camelCase), ``text`` parts.
- LangChain: messages with ``type`` (``human``, ``ai``, ``tool``), ``AIMessage.tool_calls``
  (``name``, ``args``, ``id``), ``ToolMessage.tool_call_id``.
- PydanticAI: ``ModelRequest`` (``kind: "request"``) with ``user-prompt``, ``tool-return`` and
  ``retry-prompt`` parts, ``ModelResponse`` (``kind: "response"``) with ``tool-call`` parts
  (``tool_name``, ``args``, ``tool_call_id``). The OpenAI Agents SDK's items are Responses items.
- The AI SDK (TypeScript, sent as JSON to the service's feedback): ``tool-call`` parts
  (``toolCallId``, ``toolName``, ``input``) in assistant messages, ``tool-result`` parts
  (``output``: ``{"type": "text" | "json", "value"}``) in ``role: "tool"`` messages.

Anything malformed is skipped; nothing here raises.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ToolCall",
    "ToolResult",
    "blocks",
    "content_text",
    "current_turn",
    "field",
    "is_human_message",
    "last_human_index",
    "latest_human_text",
    "loaded_by_anthropic",
    "reported_message",
    "result_payload",
    "search_outputs",
    "tool_calls",
    "tool_results",
]

_TEXT_PART_TYPES = {"text", "input_text"}
_TOOL_RESULT_TYPES = {"tool_result", "function_call_output", "tool-result"}
_ASSISTANT = ("assistant", "ai", "model")
_PROMPT, _CALL, _RESULT_PARTS = "user-prompt", "tool-call", ("tool-return", "retry-prompt")


@dataclass(frozen=True)
class ToolCall:
    """One call the model made: its id (None where the shape has none, as Gemini's often),
    the tool's name and its arguments as sent (a dict, or JSON text), and the namespace an
    OpenAI Responses call names (an MCP tool's server, ``toolret.integrations.openai``)."""

    id: str | None
    name: str
    arguments: Any
    namespace: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """One answer to a call: the call's id (None where the shape has none), the tool's name
    where the shape carries it, and the content as sent."""

    call_id: str | None
    name: str | None
    content: Any


def field(value: Any, name: str) -> Any:
    """A mapping's ``name`` key, else the attribute; None when there is neither."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def blocks(message: Any) -> list[Any]:
    """A message's content blocks (``content``) or parts (Gemini's ``parts``) when a list."""
    for name in ("content", "parts"):
        value = field(message, name)
        if isinstance(value, list):
            return value
    return []


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable) and not isinstance(content, (bytes, Mapping)):
        texts = [_part_text(part) for part in content if isinstance(part, str) or _is_text(part)]
        return "\n".join(text for text in texts if text)
    return ""


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if field(part, "part_kind") == _PROMPT:
        return content_text(field(part, "content"))
    return str(field(part, "text") or "")


def _is_text(part: Any) -> bool:
    kind = field(part, "type")
    if field(part, "part_kind") == _PROMPT:
        return True
    return kind in _TEXT_PART_TYPES or (kind is None and isinstance(field(part, "text"), str))


def is_human_message(message: Any) -> bool:
    """True for a message a person wrote; False for tool results sent in a ``user`` message."""
    if field(message, "kind") == "request":  # PydanticAI: a request holding the user's prompt
        return any(field(part, "part_kind") == _PROMPT for part in blocks(message))
    role = field(message, "role") or field(message, "type")
    if role not in ("user", "human"):
        return False
    parts = blocks(message)
    if parts:
        return not all(_is_result_block(part) for part in parts)
    return True


def _is_result_block(part: Any) -> bool:
    return field(part, "type") in _TOOL_RESULT_TYPES or _function_response(part) is not None


def last_human_index(messages: Sequence[Any]) -> int | None:
    """The index of the most recent human message, or None."""
    for index in range(len(messages) - 1, -1, -1):
        if is_human_message(messages[index]):
            return index
    return None


def latest_human_text(messages: Sequence[Any]) -> str:
    """The text of the most recent human message ('' when there is none)."""
    index = last_human_index(messages)
    if index is None:
        return ""
    message = messages[index]
    content = field(message, "content")
    return content_text(content if content is not None else blocks(message))


def reported_message(items: Sequence[Any], message: str | None = None) -> str:
    """What a reported turn was about: ``message`` if given, else the latest human message of
    ``items`` ('' when ``items`` are only the names of the tools called)."""
    if message is not None:
        return message
    return "" if all(isinstance(item, str) for item in items) else latest_human_text(items)


def current_turn(messages: Iterable[Any]) -> list[Any]:
    """The messages after the last human message (all of them when there is none)."""
    transcript = list(messages)
    human = last_human_index(transcript)
    return transcript[0 if human is None else human + 1 :]


def tool_calls(messages: Iterable[Any]) -> list[ToolCall]:
    """Every tool call in ``messages``, in order."""
    return [call for message in messages for call in _calls(message)]


def _calls(item: Any) -> Iterator[ToolCall]:
    """An item's calls; one call listed twice in a message (LangChain keeps an Anthropic
    ``tool_use`` block in ``content`` beside its ``tool_calls`` entry) counts once."""
    seen: set[str] = set()
    for call in _each_call(item):
        if call.id is None or call.id not in seen:
            seen.add(call.id or "")
            yield call


def _each_call(item: Any) -> Iterator[ToolCall]:
    if field(item, "type") == "function_call" and isinstance(field(item, "name"), str):
        namespace = field(item, "namespace")
        yield ToolCall(
            _id(field(item, "call_id")),
            field(item, "name"),
            field(item, "arguments"),
            namespace if isinstance(namespace, str) and namespace else None,
        )
    if field(item, "kind") == "response":
        for part in blocks(item):
            if field(part, "part_kind") == _CALL and isinstance(
                name := field(part, "tool_name"), str
            ):
                yield ToolCall(_id(field(part, "tool_call_id")), name, field(part, "args"))
        return
    if (field(item, "role") or field(item, "type")) not in _ASSISTANT:
        return
    for call in _list(field(item, "tool_calls")):
        function = field(call, "function")
        name = field(call, "name") or field(function, "name")
        if isinstance(name, str) and name:
            arguments = field(call, "args") or field(function, "arguments")
            yield ToolCall(_id(field(call, "id")), name, arguments)
    for block in blocks(item):
        if field(block, "type") == "tool_use" and isinstance(name := field(block, "name"), str):
            yield ToolCall(_id(field(block, "id")), name, field(block, "input"))
        if field(block, "type") == "tool-call" and isinstance(
            name := field(block, "toolName"), str
        ):
            yield ToolCall(_id(field(block, "toolCallId")), name, field(block, "input"))
        call = field(block, "function_call") or field(block, "functionCall")
        if call is not None and isinstance(name := field(call, "name"), str):
            yield ToolCall(_id(field(call, "id")), name, field(call, "args"))


def tool_results(messages: Iterable[Any]) -> list[ToolResult]:
    """Every tool result in ``messages``, in order."""
    return [result for message in messages for result in _results(message)]


def _results(item: Any) -> Iterator[ToolResult]:
    if field(item, "kind") == "request":
        for part in blocks(item):
            if field(part, "part_kind") in _RESULT_PARTS:
                name, content = _name(field(part, "tool_name")), field(part, "content")
                yield ToolResult(_id(field(part, "tool_call_id")), name, content)
        return
    kind, role = field(item, "type"), field(item, "role")
    if "tool" in (kind, role):
        name = field(item, "name")
        content = field(item, "content")
        yield ToolResult(_id(field(item, "tool_call_id")), _name(name), content)
    if kind == "function_call_output":
        yield ToolResult(_id(field(item, "call_id")), None, field(item, "output"))
    if role not in ("user", "human", "function", "tool") and kind != "human":
        return
    for block in blocks(item):
        if field(block, "type") == "tool_result":
            content = field(block, "content")
            yield ToolResult(_id(field(block, "tool_use_id")), None, content)
        if field(block, "type") == "tool-result":
            name = _name(field(block, "toolName"))
            yield ToolResult(_id(field(block, "toolCallId")), name, field(block, "output"))
        response = _function_response(block)
        if response is not None:
            name = _name(field(response, "name"))
            yield ToolResult(_id(field(response, "id")), name, field(response, "response"))


def _function_response(part: Any) -> Any:
    return field(part, "function_response") or field(part, "functionResponse")


def result_payload(content: Any) -> Any:
    """The JSON a tool result carries: parsed from its text (a string, or text blocks), or the
    object itself (a Gemini function response, whose JSON text may sit under ``result`` or
    ``output``; an AI SDK output, ``{"type": "text" | "json", "value"}``). None when it is not
    JSON."""
    if (
        isinstance(content, Mapping)
        and content.get("type") in ("text", "json")
        and "value" in content
    ):
        value = content["value"]
        if content["type"] == "json":
            return value
        return _json(value) if isinstance(value, str) else None
    if isinstance(content, Mapping):
        wrapped = [value for key, value in content.items() if key in ("result", "output")]
        if len(content) == 1 and wrapped and isinstance(wrapped[0], str):
            return _json(wrapped[0])
        return content
    if isinstance(content, str):
        return _json(content)
    text = "".join(t for part in _list(content) if isinstance(t := field(part, "text"), str))
    return _json(text)


def loaded_by_anthropic(messages: Sequence[Any], *, whole_conversation: bool = True) -> list[str]:
    """Tools loaded in an Anthropic conversation: ``tool_reference`` blocks inside tool results
    and ``tool_addition`` blocks, in order, without duplicates (the current turn only when
    ``whole_conversation`` is False)."""
    names: dict[str, None] = {}
    for message in messages if whole_conversation else current_turn(messages):
        for block in blocks(message):
            if field(block, "type") == "tool_addition":
                tool = field(block, "tool")
                if field(tool, "type") == "tool_reference" and isinstance(
                    name := field(tool, "name"), str
                ):
                    names.setdefault(name, None)
            if field(block, "type") != "tool_result":
                continue
            for part in _list(field(block, "content")):
                name = field(part, "tool_name")
                if field(part, "type") == "tool_reference" and isinstance(name, str):
                    names.setdefault(name, None)
    return list(names)


def search_outputs(items: Iterable[Any]) -> list[list[Any]]:
    """The ``tools`` of each OpenAI Responses ``tool_search_output`` item, in order."""
    return [
        _list(field(item, "tools")) for item in items if field(item, "type") == "tool_search_output"
    ]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
