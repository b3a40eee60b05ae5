"""The LangChain agent middleware: core + top-k before each model call, one embedding per turn,
through a real ``create_agent`` with ``ChatOpenAI`` against a local Chat Completions server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from openai.types.chat import ChatCompletionFunctionToolParam

from tests.support.embedders import CountingEmbedder
from tests.support.fake_llm import CHAT, FakeLLM, chat_completion
from tests.support.sdk_types import conforms
from tests.support.turns import hung_retriever
from toolret import FIND_TOOLS_NAME, InMemoryRetriever, StableToolList
from toolret.integrations.langchain import (
    STATE_KEY,
    ToolRetrievalMiddleware,
    catalog_from_langchain,
)

ARABIC = "احذف جهة الاتصال المكررة لشركة أكمي"


@tool
def find_records(query: str) -> str:
    """Search records of any object by text or by field values and return matching rows."""
    return "[]"


@tool
def delete_record(record_id: str) -> str:
    """Permanently delete one record, such as a contact or a company, from the CRM."""
    return "deleted"


@tool
def create_task(title: str) -> str:
    """Create a task or a to-do with a due date, assigned to a person, linked to a record."""
    return "created"


@tool
def add_comment(record_id: str, text: str) -> str:
    """Add a comment or a note to a record's timeline, visible to everyone on the record."""
    return "added"


@tool
def export_records(object_name: str) -> str:
    """Export the records of an object to a CSV file that can be downloaded or emailed."""
    return "exported"


@tool
def create_view(name: str) -> str:
    """Create a saved view of an object: a table or kanban board with filters and grouping."""
    return "created"


TOOLS: list[BaseTool] = [
    find_records,
    delete_record,
    create_task,
    add_comment,
    export_records,
    create_view,
]


def sent_tools(body: dict[str, Any]) -> list[str]:
    for definition in body["tools"]:
        conforms(definition, ChatCompletionFunctionToolParam)
    return [definition["function"]["name"] for definition in body["tools"]]


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


def agent_with(server: FakeLLM, middleware: ToolRetrievalMiddleware) -> Any:
    model = ChatOpenAI(model="gpt-fake", base_url=f"{server.url}/v1", api_key="test", max_retries=0)
    return create_agent(model, tools=TOOLS, middleware=[middleware])


def middleware_for(embedder: CountingEmbedder, **options: Any) -> ToolRetrievalMiddleware:
    catalog = catalog_from_langchain(TOOLS, core=["find_records"])
    return ToolRetrievalMiddleware(
        InMemoryRetriever(embedder, k=1, time_budget=60), catalog, **options
    )


async def test_every_round_gets_core_plus_top_k_and_one_embedding(server: FakeLLM) -> None:
    embedder = CountingEmbedder()
    call = {"id": "call_1", "name": "delete_record", "arguments": {"record_id": "42"}}
    server.reply(CHAT, chat_completion(tool_calls=[call]))
    server.reply(CHAT, chat_completion("Deleted."))
    agent = agent_with(server, middleware_for(embedder))

    result = await agent.ainvoke({"messages": [{"role": "user", "content": ARABIC}]})

    assert result["messages"][-1].content == "Deleted."
    first, second = server.bodies(CHAT)
    assert (
        sent_tools(first) == sent_tools(second) == ["find_records", "find_tools", "delete_record"]
    )
    assert embedder.queries.count(ARABIC) == 1  # two rounds, one query embedding


async def test_find_tools_is_a_real_tool_answered_by_the_retriever(server: FakeLLM) -> None:
    capabilities = {"capabilities": ["show the deals as a kanban board"]}
    call = {"id": "call_1", "name": FIND_TOOLS_NAME, "arguments": capabilities}
    server.reply(CHAT, chat_completion(tool_calls=[call]))
    server.reply(CHAT, chat_completion("Here is your board."))
    agent = agent_with(server, middleware_for(CountingEmbedder()))

    result = await agent.ainvoke({"messages": [{"role": "user", "content": ARABIC}]})

    answer = json.loads(result["messages"][2].content)
    found = [entry["name"] for entry in answer["results"][0]["tools"]]
    assert "create_view" in found
    assert not {"find_records", "delete_record"} & set(found)  # what the call was sent
    first, second = map(sent_tools, server.bodies(CHAT))
    assert "create_view" not in first
    assert second == [*first, *(name for name in found if name not in first)]
    assert server.rejections == []


async def test_stable_lists_are_a_byte_identical_prefix_across_turns(server: FakeLLM) -> None:
    middleware = middleware_for(CountingEmbedder(), stable=True)
    agent = agent_with(server, middleware)
    server.reply(CHAT, chat_completion("One."))
    server.reply(CHAT, chat_completion("Two."))
    state = await agent.ainvoke({"messages": [{"role": "user", "content": ARABIC}]})
    follow_up = {"role": "user", "content": "Export the deals to a CSV file"}
    state = await agent.ainvoke({**state, "messages": [*state["messages"], follow_up]})

    first, second = (body["tools"] for body in server.bodies(CHAT))
    assert json.dumps(second[: len(first)]) == json.dumps(first)  # find_tools included
    names = sent_tools({"tools": second})
    assert names == ["find_records", FIND_TOOLS_NAME, "delete_record", "export_records"]
    assert state[STATE_KEY] == StableToolList(middleware.catalog, names[:1] + names[2:]).names


async def test_the_sync_agent_runs_the_retriever_on_its_own_loop(server: FakeLLM) -> None:
    server.reply(CHAT, chat_completion("Deleted."))
    agent = agent_with(server, middleware_for(CountingEmbedder()))
    result = await asyncio.to_thread(
        agent.invoke, {"messages": [{"role": "user", "content": ARABIC}]}
    )
    assert result["messages"][-1].content == "Deleted."
    assert sent_tools(server.bodies(CHAT)[0]) == ["find_records", "find_tools", "delete_record"]


async def test_a_turn_with_the_embedder_hung_selects_once(server: FakeLLM) -> None:
    """The query embedding never answers: the first model call falls open after the budget,
    and the turn's other calls and find_tools reuse that selection instead of waiting again."""
    catalog = catalog_from_langchain(TOOLS, core=["find_records"])
    retriever = await hung_retriever(catalog)
    asked = {"capabilities": ["show the deals as a kanban board"]}
    find = {"id": "c1", "name": FIND_TOOLS_NAME, "arguments": asked}
    view = {"id": "c2", "name": "create_view", "arguments": {"name": "deals"}}
    server.reply(CHAT, chat_completion(tool_calls=[find]))
    server.reply(CHAT, chat_completion(tool_calls=[view]))
    server.reply(CHAT, chat_completion("Done."))
    agent = agent_with(server, ToolRetrievalMiddleware(retriever, catalog))

    result = await agent.ainvoke({"messages": [{"role": "user", "content": ARABIC}]})

    assert result["messages"][-1].content == "Done."
    assert len(server.bodies(CHAT)) == 3
    for body in server.bodies(CHAT):
        assert sorted(sent_tools(body)) == sorted([*(t.name for t in TOOLS), FIND_TOOLS_NAME])
    assert retriever.selections == 1
    assert server.rejections == []
