"""Anthropic deferred loading with toolret's search, through the real ``anthropic`` SDK against a
local server speaking the Messages wire format."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anthropic
import pytest
from anthropic.types import (
    MessageParam,
    ToolParam,
    ToolReferenceBlockParam,
    ToolResultBlockParam,
    ToolUseBlock,
    ToolUseBlockParam,
)
from anthropic.types.beta import BetaMessageParam
from pydantic import TypeAdapter

from tests.support.embedders import CountingEmbedder, GatedDocuments
from tests.support.fake_llm import MESSAGES, FakeLLM, anthropic_message
from tests.support.sdk_types import conforms
from tests.support.tools import crm_catalog
from toolret import ConfigurationError, InMemoryRetriever
from toolret.integrations.anthropic import (
    SEARCH_TOOL_NAME,
    TOOL_CHANGES_BETA,
    answer_anthropic_search,
    anthropic_headers,
    anthropic_preselection,
    anthropic_tools,
    loaded_tool_names,
)
from toolret.retrieval._find_tools import tools_behind

ARABIC = "احذف جهة الاتصال المكررة لشركة أكمي"


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


@pytest.fixture
async def retriever() -> AsyncIterator[InMemoryRetriever]:
    async with InMemoryRetriever(CountingEmbedder(), k=3, time_budget=60) as memory:
        await memory.index(crm_catalog())
        yield memory


def test_the_tools_array_loads_core_and_defers_the_rest() -> None:
    catalog = crm_catalog()
    tools = anthropic_tools(catalog)
    for tool in tools:
        conforms(tool, ToolParam)
    loaded = [tool["name"] for tool in tools if not tool.get("defer_loading")]
    assert loaded == [*(tool.name for tool in catalog.core), SEARCH_TOOL_NAME]
    deferred = {tool["name"] for tool in tools if tool.get("defer_loading") is True}
    assert deferred == {tool.name for tool in catalog.candidates}
    assert anthropic_tools(catalog) == tools  # the same bytes every turn
    assert not any("cache_control" in tool for tool in tools)


def test_the_cache_breakpoint_sits_on_the_last_tool_that_is_not_deferred() -> None:
    tools = anthropic_tools(crm_catalog(), cache=True)
    for tool in tools:
        conforms(tool, ToolParam)
    marked = [tool["name"] for tool in tools if "cache_control" in tool]
    eager = [tool["name"] for tool in tools if not tool.get("defer_loading")]
    assert marked == [eager[-1]] == [SEARCH_TOOL_NAME]


async def test_a_catalog_still_being_embedded_says_search_is_not_available_yet() -> None:
    use = {"type": "tool_use", "id": "toolu_03", "name": SEARCH_TOOL_NAME, "input": {}}
    embedder = GatedDocuments()
    async with InMemoryRetriever(embedder, k=3, time_budget=0.2) as retriever:
        result = await answer_anthropic_search(
            retriever, crm_catalog(), {**use, "input": {"capabilities": [ARABIC]}}
        )
        embedder.release.set()
    conforms(result, ToolResultBlockParam)
    assert result["is_error"] is True
    assert "not available yet" in result["content"][0]["text"]


async def test_toolret_answers_the_search_in_arabic_through_the_sdk(
    server: FakeLLM, retriever: InMemoryRetriever
) -> None:
    catalog = crm_catalog()
    tools = anthropic_tools(catalog)
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0)
    search = {"type": "tool_use", "id": "toolu_01", "name": SEARCH_TOOL_NAME}
    server.reply(
        MESSAGES, anthropic_message([{**search, "input": {"capabilities": [ARABIC]}}], "tool_use")
    )
    server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Done."}]))

    messages: list[Any] = [{"role": "user", "content": ARABIC}]
    reply = await client.messages.create(
        model="claude-fake", max_tokens=256, tools=tools, messages=messages
    )
    block = reply.content[0]
    assert isinstance(block, ToolUseBlock)
    result = await answer_anthropic_search(
        retriever, catalog, block, bound=loaded_tool_names(messages)
    )
    conforms(result, ToolResultBlockParam)
    for part in result["content"]:
        conforms(part, ToolReferenceBlockParam)
    names = [part["tool_name"] for part in result["content"]]
    assert names[0] == "delete_record"
    assert not {tool.name for tool in catalog.core} & set(names)

    messages += [
        {"role": "assistant", "content": reply.content},
        {"role": "user", "content": [result]},
    ]
    await client.messages.create(
        model="claude-fake", max_tokens=256, tools=tools, messages=messages
    )
    first, second = server.bodies(MESSAGES)
    assert second["tools"] == first["tools"] == tools  # the cached prefix is untouched
    TypeAdapter(list[MessageParam]).validate_python(second["messages"])
    assert second["messages"][-1]["content"] == [result]
    assert loaded_tool_names(second["messages"]) == names


async def test_a_second_search_skips_what_is_loaded(retriever: InMemoryRetriever) -> None:
    catalog = crm_catalog()
    use = {"type": "tool_use", "id": "toolu_02", "name": SEARCH_TOOL_NAME}
    result = await answer_anthropic_search(
        retriever, catalog, {**use, "input": {"capabilities": [ARABIC]}}, bound=["delete_record"]
    )
    assert "delete_record" not in [part.get("tool_name") for part in result["content"]]
    blank = await answer_anthropic_search(retriever, catalog, {**use, "input": {}})
    conforms(blank, ToolResultBlockParam)
    assert blank["is_error"] is True


async def test_one_search_loads_tools_for_several_capabilities_none_twice(
    retriever: InMemoryRetriever,
) -> None:
    catalog = crm_catalog()
    asked = ["delete the duplicate contact", "export the contacts as CSV"]
    use = {"type": "tool_use", "id": "toolu_04", "name": SEARCH_TOOL_NAME}
    alone = [
        await answer_anthropic_search(retriever, catalog, {**use, "input": {"capabilities": [c]}})
        for c in asked
    ]
    both = await answer_anthropic_search(
        retriever, catalog, {**use, "input": {"capabilities": asked}}
    )
    conforms(both, ToolResultBlockParam)
    names = [part["tool_name"] for part in both["content"]]
    assert len(names) == len(set(names))
    firsts = [result["content"][0]["tool_name"] for result in alone]
    assert names[0] == firsts[0]
    assert firsts[1] in names


def test_the_search_tool_says_what_lies_behind_it() -> None:
    catalog = crm_catalog()
    search = next(tool for tool in anthropic_tools(catalog) if tool["name"] == SEARCH_TOOL_NAME)
    assert search["description"].endswith(tools_behind(catalog))
    assert search["input_schema"]["required"] == ["capabilities"]


async def test_the_preselection_is_a_search_round_appended_after_the_message(
    server: FakeLLM, retriever: InMemoryRetriever
) -> None:
    catalog = crm_catalog()
    selection = await retriever.select(catalog, ARABIC)
    rounds = anthropic_preselection(selection, ARABIC)
    assert [message["role"] for message in rounds] == ["assistant", "user"]
    conforms(rounds[0]["content"][0], ToolUseBlockParam)
    conforms(rounds[1]["content"][0], ToolResultBlockParam)
    referenced = [part["tool_name"] for part in rounds[1]["content"][0]["content"]]
    assert referenced == [name for name in selection.names if not catalog[name].core]
    again = anthropic_preselection(selection, ARABIC)  # the same message, a fresh id
    assert again[0]["content"][0]["id"] != rounds[0]["content"][0]["id"]

    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0)
    server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Done."}]))
    messages = [{"role": "user", "content": ARABIC}, *rounds]
    await client.messages.create(
        model="claude-fake", max_tokens=256, tools=anthropic_tools(catalog), messages=messages
    )
    sent = server.bodies(MESSAGES)[0]["messages"]
    TypeAdapter(list[MessageParam]).validate_python(sent)
    assert loaded_tool_names(sent) == referenced


async def test_tool_changes_are_the_opt_in_preselection_with_its_header(
    retriever: InMemoryRetriever,
) -> None:
    catalog = crm_catalog()
    selection = await retriever.select(catalog, ARABIC)
    with pytest.raises(ConfigurationError, match="tool_changes=True"):
        anthropic_preselection(selection, ARABIC, thinking=True)
    changes = anthropic_preselection(selection, ARABIC, tool_changes=True, thinking=True)
    assert len(changes) == 1
    conforms(changes[0], BetaMessageParam)
    added = [block["tool"]["name"] for block in changes[0]["content"]]
    assert added == [name for name in selection.names if not catalog[name].core]
    messages = [{"role": "user", "content": ARABIC}]
    assert anthropic_headers(messages) == {}
    assert anthropic_headers([*messages, *changes]) == {"anthropic-beta": TOOL_CHANGES_BETA}
    assert loaded_tool_names([*messages, *changes]) == added
