"""The one transcript reader: human messages, calls and results out of OpenAI, Anthropic,
Gemini and LangChain transcripts, as dicts or as the SDKs' own objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from toolret.feedback._signals import called_tool_names, find_tools_call_count
from toolret.retrieval._find_tools import discovered_tool_names
from toolret.retrieval._transcript import (
    content_text,
    current_turn,
    is_human_message,
    latest_human_text,
    tool_calls,
    tool_results,
)


@dataclass
class HumanMessage:
    content: str
    type: str = "human"


def test_content_text_reads_strings_and_text_blocks() -> None:
    assert content_text("plain") == "plain"
    blocks = [
        {"type": "text", "text": "first"},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": "input_text", "text": "second"},
    ]
    assert content_text(blocks) == "first\nsecond"
    assert content_text(None) == ""


def test_tool_results_in_user_messages_are_not_human() -> None:
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
    }
    assert not is_human_message(result)
    assert is_human_message({"role": "user", "content": "hello"})
    assert not is_human_message({"type": "function_call_output", "call_id": "c", "output": "x"})
    assert is_human_message(HumanMessage("hi"))


def test_latest_human_text_across_shapes() -> None:
    transcript = [
        {"role": "user", "content": "old"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "new"}]},
        {"type": "function_call_output", "call_id": "c", "output": "x"},
    ]
    assert latest_human_text(transcript) == "new"
    assert latest_human_text([HumanMessage("objects too")]) == "objects too"
    assert latest_human_text([]) == ""


# --- one reader: calls and results of every shape, as dicts or SDK objects -----------------

FOUND = '{"tools": [{"name": "create_view", "description": "a board"}]}'


def _transcripts() -> dict[str, list[Any]]:
    """One turn in each shape: a find_tools call and a create_view call, find_tools answered
    with create_view; built from the SDKs' own types."""
    from anthropic.types import Message
    from google.genai import types as gemini
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from openai.types.chat import ChatCompletionMessage
    from openai.types.responses import ResponseFunctionToolCall

    ask = "show the deals as a board"
    find = {"capability": "kanban"}
    chat_calls = [
        {"id": "c1", "type": "function", "function": {"name": "find_tools", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "create_view", "arguments": "{}"}},
    ]
    claude = Message.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "x", "stop_reason": "tool_use",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [{"type": "tool_use", "id": "t1", "name": "find_tools", "input": find},
                    {"type": "tool_use", "id": "t2", "name": "create_view", "input": {}}],
    })  # fmt: skip
    responses = [
        ResponseFunctionToolCall(type="function_call", call_id=f"f{i}", name=name, arguments="{}")
        for i, name in ((1, "find_tools"), (2, "create_view"))
    ]
    parts = [gemini.Part(function_call=gemini.FunctionCall(name=n, args={}))
             for n in ("find_tools", "create_view")]  # fmt: skip
    answers = [gemini.Part(function_response=gemini.FunctionResponse(name=n, response=r))
               for n, r in (("find_tools", {"result": FOUND}), ("create_view", {}))]  # fmt: skip
    return {
        "chat": [
            {"role": "user", "content": ask},
            ChatCompletionMessage.model_validate({"role": "assistant", "tool_calls": chat_calls}),
            {"role": "tool", "tool_call_id": "c1", "content": FOUND},
            {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        ],
        "responses": [
            {"role": "user", "content": ask},
            *responses,
            {"type": "function_call_output", "call_id": "f1", "output": FOUND},
            {"type": "function_call_output", "call_id": "f2", "output": "ok"},
        ],
        "anthropic": [
            {"role": "user", "content": ask},
            claude,
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": FOUND},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
                ],
            },
        ],
        "langchain": [
            HumanMessage(ask),
            AIMessage(
                "",
                tool_calls=[
                    {"id": "l1", "name": "find_tools", "args": find},
                    {"id": "l2", "name": "create_view", "args": {}},
                ],
            ),
            ToolMessage(FOUND, tool_call_id="l1", name="find_tools"),
            ToolMessage("ok", tool_call_id="l2", name="create_view"),
        ],
        "gemini": [
            gemini.Content(role="user", parts=[gemini.Part(text=ask)]),
            gemini.Content(role="model", parts=parts),
            gemini.Content(role="user", parts=answers),
        ],
    }


def _dumped(message: Any) -> Any:
    dump = getattr(message, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else message


@pytest.mark.parametrize("shape", ["chat", "responses", "anthropic", "langchain", "gemini"])
def test_every_reader_reads_objects_and_dicts_alike(shape: str) -> None:
    objects = _transcripts()[shape]
    for transcript in (objects, [_dumped(message) for message in objects]):
        assert latest_human_text(transcript) == "show the deals as a board"
        assert [call.name for call in tool_calls(current_turn(transcript))] == [
            "find_tools",
            "create_view",
        ]
        assert len(tool_results(transcript)) == 2
        assert discovered_tool_names(transcript) == ["create_view"]
        assert called_tool_names(transcript) == ["create_view"]
        assert find_tools_call_count(transcript) == 1


def test_pydantic_ai_messages_are_read_as_the_other_shapes() -> None:
    """PydanticAI's own message objects: the prompt of a request is human, a request of tool
    returns is not; calls and returns (retry prompts included) pair by id."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        RetryPromptPart,
        SystemPromptPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    found = '{"results": [{"capability": "board", "tools": [{"name": "create_view"}]}]}'
    messages = [
        ModelRequest(
            parts=[
                SystemPromptPart("You are a CRM assistant."),
                UserPromptPart("Delete the duplicate contact"),
            ]
        ),
        ModelResponse(parts=[ToolCallPart("find_tools", {"capabilities": ["board"]}, "c1")]),
        ModelRequest(parts=[ToolReturnPart("find_tools", found, "c1")]),
        ModelRequest(parts=[UserPromptPart(["Show the deals", "as a kanban board"])]),
        ModelResponse(
            parts=[
                ToolCallPart("create_view", '{"name": "deals"}', "c2"),
                ToolCallPart("nope", "{}", "c3"),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("create_view", "created", "c2"),
                RetryPromptPart("unknown tool", tool_name="nope", tool_call_id="c3"),
            ]
        ),
    ]
    assert [is_human_message(m) for m in messages] == [True, False, False, True, False, False]
    assert latest_human_text(messages) == "Show the deals\nas a kanban board"
    assert latest_human_text(messages[:3]) == "Delete the duplicate contact"
    assert [call.name for call in tool_calls(messages)] == ["find_tools", "create_view", "nope"]
    assert [r.call_id for r in tool_results(messages)] == ["c1", "c2", "c3"]
    assert discovered_tool_names(messages[:3]) == ["create_view"]
    assert discovered_tool_names(messages) == []  # forgotten with the next prompt
