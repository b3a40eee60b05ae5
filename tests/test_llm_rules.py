"""The local provider servers refuse what the real APIs refuse: one test per documented rule,
each request sent through the real SDK, each test naming the page that documents its rule."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from tests.support.fake_llm import (
    CHAT,
    MESSAGES,
    RESPONSES,
    FakeLLM,
    anthropic_message,
    chat_completion,
    responses_response,
)
from tests.support.llm_rules import TOOL_CHANGES_BETA

SCHEMA = {"type": "object", "properties": {}}
CORE = {"name": "find_records", "description": "Find records.", "input_schema": SCHEMA}
SEARCH = {"name": "search_tools", "description": "Search for tools.", "input_schema": SCHEMA}
DEFERRED = {"name": "delete_record", "description": "Delete.", "input_schema": SCHEMA,
            "defer_loading": True}  # fmt: skip
TOOLS = [CORE, SEARCH, DEFERRED]
ASK = {"role": "user", "content": "Delete the duplicate contact"}


def use(call_id: str, name: str = "search_tools") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {}}


def result(call_id: str, *content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": list(content) or "ok"}


def reference(name: str) -> dict[str, Any]:
    return {"type": "tool_reference", "tool_name": name}


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


def claude(server: FakeLLM, messages: list[Any], **options: Any) -> str:
    """Send one Messages request: the API's 400 message, or "" when it was accepted."""
    server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "ok"}]))
    client = anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0)
    request = {"model": "claude-fake", "max_tokens": 64, "messages": messages, **options}
    request.setdefault("tools", TOOLS)
    try:
        client.messages.create(**request)
    except anthropic.BadRequestError as error:
        return str(error.body["error"]["message"])  # type: ignore[index]
    return ""


# -- Anthropic Messages ----------------------------------------------------------------------


def test_every_tool_use_is_answered_in_the_next_message(server: FakeLLM) -> None:
    """A reply that calls two tools needs both results.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use
    """
    reply = {"role": "assistant", "content": [use("toolu_1"), use("toolu_2", "find_records")]}
    refused = claude(server, [ASK, reply, {"role": "user", "content": [result("toolu_1")]}])
    assert "ids were found without `tool_result` blocks immediately after: toolu_2" in refused
    both = {"role": "user", "content": [result("toolu_1"), result("toolu_2")]}
    assert claude(server, [ASK, reply, both]) == ""


def test_tool_results_come_first_in_their_message(server: FakeLLM) -> None:
    """Tool results open the user message that follows the call.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
    """
    reply = {"role": "assistant", "content": [use("toolu_1")]}
    late = {"role": "user", "content": [{"type": "text", "text": "here"}, result("toolu_1")]}
    refused = claude(server, [ASK, reply, late])
    assert "at the beginning of this message" in refused


def test_a_tool_result_answers_a_call_of_the_previous_message(server: FakeLLM) -> None:
    """A tool_result's id is a tool_use of the message before it.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
    """
    stray = {"role": "user", "content": [result("toolu_9")]}
    refused = claude(server, [ASK, {"role": "assistant", "content": "hm"}, stray])
    assert "unexpected `tool_use_id`" in refused


def test_tool_use_ids_are_unique(server: FakeLLM) -> None:
    """Each tool_use id identifies one call in the request.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
    """
    round_ = [
        {"role": "assistant", "content": [use("toolu_same")]},
        {"role": "user", "content": [result("toolu_same")]},
    ]
    refused = claude(server, [ASK, *round_, *round_])
    assert "ids must be unique" in refused


def test_no_cache_breakpoint_on_a_deferred_tool(server: FakeLLM) -> None:
    """Deferred tools are outside the cached prefix.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching
    """
    marked = {**DEFERRED, "cache_control": {"type": "ephemeral"}}
    refused = claude(server, [ASK], tools=[CORE, SEARCH, marked])
    assert "cache_control cannot be set" in refused
    on_search = {**SEARCH, "cache_control": {"type": "ephemeral"}}
    assert claude(server, [ASK], tools=[CORE, on_search, DEFERRED]) == ""


def test_at_least_one_tool_is_not_deferred(server: FakeLLM) -> None:
    """The search tool itself is never deferred.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
    """
    refused = claude(server, [ASK], tools=[DEFERRED])
    assert "At least one tool must be non-deferred" in refused


def test_a_reference_names_a_tool_in_tools(server: FakeLLM) -> None:
    """A tool_reference loads a tool the request defines.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
    """
    reply = {"role": "assistant", "content": [use("toolu_1")]}
    answer = {"role": "user", "content": [result("toolu_1", reference("send_fax"))]}
    refused = claude(server, [ASK, reply, answer])
    assert "'send_fax' not found" in refused


def test_a_reference_names_a_deferred_tool(server: FakeLLM) -> None:
    """Only a deferred tool can be loaded by reference.

    Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
    """
    reply = {"role": "assistant", "content": [use("toolu_1")]}
    answer = {"role": "user", "content": [result("toolu_1", reference("find_records"))]}
    refused = claude(server, [ASK, reply, answer])
    assert "without defer_loading" in refused
    deferred = {"role": "user", "content": [result("toolu_1", reference("delete_record"))]}
    assert claude(server, [ASK, reply, deferred]) == ""


def test_with_thinking_the_open_tool_round_starts_with_its_thinking_block(
    server: FakeLLM,
) -> None:
    """With thinking on, the assistant message of a tool round still open starts with the
    thinking block the API sent.

    Source: https://platform.claude.com/docs/en/build-with-claude/extended-thinking#extended-thinking-with-tool-use
    """
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    reply = {"role": "assistant", "content": [use("toolu_1")]}
    answer = {"role": "user", "content": [result("toolu_1")]}
    refused = claude(server, [ASK, reply, answer], **thinking)
    assert "must start with a thinking block" in refused
    assert claude(server, [ASK, reply, answer]) == ""  # without thinking the round is fine


def test_a_thinking_block_comes_back_unchanged(server: FakeLLM) -> None:
    """Thinking blocks are passed back with the signature the API gave.

    Source: https://platform.claude.com/docs/en/build-with-claude/extended-thinking#extended-thinking-with-tool-use
    """
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    forged = {"type": "thinking", "thinking": "I should search.", "signature": "made-up"}
    reply = {"role": "assistant", "content": [forged, use("toolu_1")]}
    answer = {"role": "user", "content": [result("toolu_1")]}
    refused = claude(server, [ASK, reply, answer], **thinking)
    assert "Invalid `signature`" in refused


def test_tool_changes_need_their_beta(server: FakeLLM) -> None:
    """tool_addition blocks are a beta.

    Source: https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
    """
    addition = {
        "type": "tool_addition",
        "tool": {"type": "tool_reference", "name": "delete_record"},
    }
    change = {"role": "system", "content": [addition]}
    refused = claude(server, [ASK, change])
    assert TOOL_CHANGES_BETA in refused
    beta = {"extra_headers": {"anthropic-beta": TOOL_CHANGES_BETA}}
    assert claude(server, [ASK, change], **beta) == ""


def test_a_tool_change_names_a_declared_tool(server: FakeLLM) -> None:
    """A tool_addition references a tool declared in ``tools``.

    Source: https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
    """
    addition = {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "send_fax"}}
    beta = {"extra_headers": {"anthropic-beta": TOOL_CHANGES_BETA}}
    refused = claude(server, [ASK, {"role": "system", "content": [addition]}], **beta)
    assert "tool_reference_unresolved" in refused


# -- OpenAI Responses ------------------------------------------------------------------------

SEARCH_TOOL = {"type": "tool_search", "execution": "client", "description": "Search tools.",
               "parameters": SCHEMA}  # fmt: skip
REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "find_records",
        "arguments": "{}", "status": "completed"}  # fmt: skip
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "[]"}
USER = {"role": "user", "content": "Delete the duplicate contact"}


def gpt(server: FakeLLM, items: list[Any], *, model: str = "gpt-5.4", **options: Any) -> str:
    """Send one Responses request: the API's 400 message, or "" when it was accepted."""
    server.reply(RESPONSES, responses_response([]))
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)
    try:
        client.responses.create(model=model, input=items, **options)
    except openai.BadRequestError as error:
        return str(error.body["message"])  # type: ignore[index]
    return ""


def test_reasoning_items_are_passed_back_with_their_calls(server: FakeLLM) -> None:
    """The items a reasoning item came with go back with it.

    Source: https://developers.openai.com/api/docs/guides/reasoning#keeping-reasoning-items-in-context
    """
    assert gpt(server, [USER]) == ""
    server.reply(RESPONSES, responses_response([REASONING, CALL]))
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)
    client.responses.create(model="gpt-5.4", input=[USER])
    refused = gpt(server, [USER, CALL, OUTPUT])
    assert "without its required 'reasoning' item: 'rs_1'" in refused
    assert gpt(server, [USER, REASONING, CALL, OUTPUT]) == ""


def test_every_function_call_is_answered(server: FakeLLM) -> None:
    """Each function_call gets a function_call_output.

    Source: https://developers.openai.com/api/docs/guides/function-calling
    """
    refused = gpt(server, [USER, CALL])
    assert "No tool output found for function call call_1" in refused
    stray = gpt(server, [USER, OUTPUT])
    assert "No tool call found for function call output" in stray


def test_a_client_tool_search_is_answered(server: FakeLLM) -> None:
    """A client-executed tool_search_call gets a tool_search_output with its call_id.

    Source: https://developers.openai.com/api/docs/guides/tools-tool-search
    """
    search = {"type": "tool_search_call", "id": "ts_1", "call_id": "call_s", "execution": "client",
              "arguments": {"query": "delete"}, "status": "completed"}  # fmt: skip
    refused = gpt(server, [USER, search], tools=[SEARCH_TOOL])
    assert "tool search call call_s" in refused
    loaded = {"type": "tool_search_output", "call_id": "call_s", "execution": "client",
              "status": "completed", "tools": []}  # fmt: skip
    assert gpt(server, [USER, search, loaded], tools=[SEARCH_TOOL]) == ""


def test_tool_search_needs_gpt_5_4_or_later(server: FakeLLM) -> None:
    """Only gpt-5.4 and later models support tool_search.

    Source: https://developers.openai.com/api/docs/guides/tools-tool-search
    """
    refused = gpt(server, [USER], model="gpt-4.1", tools=[SEARCH_TOOL])
    assert "only gpt-5.4 and later" in refused
    assert gpt(server, [USER], model="gpt-5.5", tools=[SEARCH_TOOL]) == ""


# -- OpenAI Chat Completions -----------------------------------------------------------------


def test_chat_tool_calls_are_answered_by_tool_messages(server: FakeLLM) -> None:
    """An assistant message with tool_calls is followed by a tool message for each.

    Source: https://developers.openai.com/api/docs/guides/function-calling
    """
    server.reply(CHAT, chat_completion("ok"))
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages: list[Any] = [USER, {"role": "assistant", "content": None, "tool_calls": [call]}]
    with pytest.raises(openai.BadRequestError, match="did not have response messages: call_1"):
        client.chat.completions.create(model="gpt-fake", messages=messages)
    messages.append({"role": "tool", "tool_call_id": "call_1", "content": "[]"})
    assert client.chat.completions.create(model="gpt-fake", messages=messages).choices
