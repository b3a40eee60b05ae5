"""Reading a model transcript: which messages a human wrote.

Accepts the shapes agent loops actually hold: OpenAI Chat Completions and Responses messages,
Anthropic messages (where tool results travel in ``user`` messages), and message objects with a
``type``/``role`` and ``content`` attribute (LangChain's ``HumanMessage``).
Anything else is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["content_text", "is_human_message", "last_human_index", "latest_human_text"]

_TEXT_PART_TYPES = {"text", "input_text"}
_TOOL_RESULT_TYPES = {"tool_result", "function_call_output"}


def _field(message: Any, name: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable) and not isinstance(content, (bytes, Mapping)):
        texts = [
            part if isinstance(part, str) else str(_field(part, "text") or "")
            for part in content
            if isinstance(part, str) or _field(part, "type") in _TEXT_PART_TYPES
        ]
        return "\n".join(text for text in texts if text)
    return ""


def is_human_message(message: Any) -> bool:
    """True for a message a person wrote; False for tool results sent in a ``user`` message."""
    role = _field(message, "role") or _field(message, "type")
    if role not in ("user", "human"):
        return False
    content = _field(message, "content")
    if isinstance(content, list) and content:
        return not all(_field(part, "type") in _TOOL_RESULT_TYPES for part in content)
    return True


def last_human_index(messages: Sequence[Any]) -> int | None:
    """The index of the most recent human message, or None."""
    for index in range(len(messages) - 1, -1, -1):
        if is_human_message(messages[index]):
            return index
    return None


def latest_human_text(messages: Sequence[Any]) -> str:
    """The text of the most recent human message ('' when there is none)."""
    index = last_human_index(messages)
    return "" if index is None else content_text(_field(messages[index], "content"))
