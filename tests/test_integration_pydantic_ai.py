"""The PydanticAI capability: core + top-k before each model request, find_tools as a tool, the
catalog from the agent's own tools (an MCP server's included), fail-open; through a real
``Agent`` with ``OpenAIChatModel`` against a local Chat Completions server."""

from __future__ import annotations

import json
import logging
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp.client import Client
from fastmcp.client.transports import StdioTransport
from openai.types.chat import ChatCompletionFunctionToolParam
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from tests.support.embedders import CountingEmbedder
from tests.support.fake_llm import CHAT, FakeLLM, chat_completion
from tests.support.sdk_types import conforms
from tests.support.turns import Errors, hung_retriever
from toolret import FIND_TOOLS_NAME, BundledE5Embedder, InMemoryRetriever, ToolRetrievalClient
from toolret.errors import CatalogError
from toolret.integrations.pydantic_ai import ToolRetrieval, catalog_from_pydantic_ai

REPO = Path(__file__).resolve().parent.parent
ARABIC = "احذف جهة الاتصال المكررة لشركة أكمي"


def find_records(query: str) -> str:
    """Search records of any object by text or by field values and return matching rows."""
    return "[]"


def delete_record(record_id: str) -> str:
    """Permanently delete one record, such as a contact or a company, from the CRM."""
    return "deleted"


def create_task(title: str) -> str:
    """Create a task or a to-do with a due date, assigned to a person, linked to a record."""
    return "created"


def add_comment(record_id: str, text: str) -> str:
    """Add a comment or a note to a record's timeline, visible to everyone on the record."""
    return "added"


def export_records(object_name: str) -> str:
    """Export the records of an object to a CSV file that can be downloaded or emailed."""
    return "exported"


def create_view(name: str) -> str:
    """Create a saved view of an object: a table or kanban board with filters and grouping."""
    return "created"


TOOLS = [find_records, delete_record, create_task, add_comment, export_records, create_view]
NAMES = [tool.__name__ for tool in TOOLS]


def sent_tools(body: dict[str, Any]) -> list[str]:
    for definition in body["tools"]:
        conforms(definition, ChatCompletionFunctionToolParam)
    return [definition["function"]["name"] for definition in body["tools"]]


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


def agent_with(server: FakeLLM, capability: ToolRetrieval | None, **options: Any) -> Agent[None]:
    provider = OpenAIProvider(base_url=f"{server.url}/v1", api_key="test")
    model = OpenAIChatModel("gpt-fake", provider=provider)
    capabilities = [capability] if capability is not None else []
    return Agent(model, tools=TOOLS, capabilities=capabilities, **options)


def retrieval(embedder: CountingEmbedder | None = None, **options: Any) -> ToolRetrieval:
    retriever = InMemoryRetriever(embedder or CountingEmbedder(), k=1, time_budget=60)
    return ToolRetrieval(retriever, core=["find_records"], **options)


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


async def test_every_step_gets_core_plus_top_k_and_one_embedding(server: FakeLLM) -> None:
    embedder = CountingEmbedder()
    server.reply(
        CHAT, chat_completion(tool_calls=[call("c1", "delete_record", {"record_id": "42"})])
    )
    server.reply(CHAT, chat_completion("Deleted."))
    agent = agent_with(server, retrieval(embedder))

    result = await agent.run(ARABIC)

    assert result.output == "Deleted."
    first, second = server.bodies(CHAT)
    assert (
        sent_tools(first)
        == sent_tools(second)
        == ["find_records", FIND_TOOLS_NAME, "delete_record"]
    )
    assert embedder.queries.count(ARABIC) == 1  # two steps, one query embedding
    assert server.rejections == []


async def test_without_the_capability_every_tool_is_sent(server: FakeLLM) -> None:
    """What the narrowing test measures against: the same agent sends its whole roster."""
    server.reply(CHAT, chat_completion("Deleted."))
    await agent_with(server, None).run(ARABIC)
    assert sent_tools(server.bodies(CHAT)[0]) == NAMES


async def test_find_tools_reaches_a_tool_that_was_not_selected(server: FakeLLM) -> None:
    asked = {"capabilities": ["show the deals as a kanban board"]}
    both = [call("c1", FIND_TOOLS_NAME, asked), call("c2", "find_records", {"query": "x"})]
    server.reply(CHAT, chat_completion(tool_calls=both))
    server.reply(CHAT, chat_completion(tool_calls=[call("c3", "create_view", {"name": "deals"})]))
    server.reply(CHAT, chat_completion("Here is your board."))
    agent = agent_with(server, retrieval())

    result = await agent.run(ARABIC)

    assert result.output == "Here is your board."
    first, second, _third = map(sent_tools, server.bodies(CHAT))
    assert "create_view" not in first
    assert second[: len(first)] == first
    assert "create_view" in second
    answers = [m for m in server.bodies(CHAT)[-1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == ["c1", "c2", "c3"]  # every call answered
    found = json.loads(answers[0]["content"])["results"][0]["tools"]
    assert "create_view" in [tool["name"] for tool in found]
    assert "find_records" not in [tool["name"] for tool in found]  # bound already
    assert answers[2]["content"] == "created"  # the found tool ran: it was callable
    assert server.rejections == []


async def test_discoveries_are_forgotten_with_the_next_user_prompt(server: FakeLLM) -> None:
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(CHAT, chat_completion(tool_calls=[call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(CHAT, chat_completion("Found it."))
    server.reply(CHAT, chat_completion("Deleted."))
    agent = agent_with(server, retrieval())
    first = await agent.run(ARABIC)
    await agent.run(ARABIC, message_history=first.all_messages())

    *_, found, next_turn = map(sent_tools, server.bodies(CHAT))
    assert "create_view" in found
    assert next_turn == ["find_records", FIND_TOOLS_NAME, "delete_record"]


async def test_stable_lists_grow_as_a_prefix_across_the_conversation(server: FakeLLM) -> None:
    server.reply(CHAT, chat_completion("One."))
    server.reply(CHAT, chat_completion("Two."))
    agent = agent_with(server, retrieval(stable=True))
    first = await agent.run(ARABIC)
    await agent.run("Export the deals to a CSV file", message_history=first.all_messages())

    one, two = (body["tools"] for body in server.bodies(CHAT))
    assert json.dumps(two[: len(one)]) == json.dumps(one)  # byte for byte, find_tools included
    assert sent_tools({"tools": two}) == [
        "find_records", FIND_TOOLS_NAME, "delete_record", "export_records"]  # fmt: skip


async def test_with_toolret_down_the_turn_completes_with_every_tool(server: FakeLLM) -> None:
    """The database unreachable: each step falls open to every tool; find_tools tells the model
    to go on with the tools it has, and the turn completes."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://postgres@127.0.0.1:{port}/toolret"
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(CHAT, chat_completion(tool_calls=[call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(CHAT, chat_completion(tool_calls=[call("c2", "create_view", {"name": "deals"})]))
    server.reply(CHAT, chat_completion("Done."))
    async with ToolRetrievalClient(url, embedder=BundledE5Embedder(), k=1, time_budget=30) as down:
        agent = agent_with(server, ToolRetrieval(down, core=["find_records"]))
        result = await agent.run(ARABIC)

    assert result.output == "Done."
    for body in server.bodies(CHAT):
        assert sorted(sent_tools(body)) == sorted([*NAMES, FIND_TOOLS_NAME])
    answer = next(m for m in server.bodies(CHAT)[1]["messages"] if m["role"] == "tool")
    assert "continue with the tools you have" in json.loads(answer["content"])["error"]
    assert server.rejections == []


async def test_a_catalog_that_cannot_be_built_sends_every_tool(server: FakeLLM) -> None:
    server.reply(CHAT, chat_completion("Done."))
    capability = ToolRetrieval(InMemoryRetriever(CountingEmbedder(), k=1), examples={"nope": ["x"]})
    await agent_with(server, capability).run(ARABIC)
    assert sent_tools(server.bodies(CHAT)[0])[: len(NAMES)] == NAMES


async def test_an_mcp_server_attached_to_the_agent_is_ranked_with_the_functions(
    server: FakeLLM,
) -> None:
    command = [sys.executable, "-m", "tests.support.mcp_upstreams", "beta"]
    mailbox = MCPToolset(Client(StdioTransport(command[0], command[1:], cwd=str(REPO))))
    send = {"to": ["ana@example.com"], "subject": "Deals", "body": "Attached."}
    server.reply(CHAT, chat_completion(tool_calls=[call("c1", "send_email", send)]))
    server.reply(CHAT, chat_completion("Sent."))
    provider = OpenAIProvider(base_url=f"{server.url}/v1", api_key="test")
    agent = Agent(OpenAIChatModel("gpt-fake", provider=provider), tools=TOOLS,
                  toolsets=[mailbox], capabilities=[retrieval()])  # fmt: skip

    async with agent:
        result = await agent.run("Email the deal summary to Ana")

    assert result.output == "Sent."
    first = sent_tools(server.bodies(CHAT)[0])
    assert first == ["find_records", FIND_TOOLS_NAME, "send_email"]
    assert server.rejections == []


def test_a_catalog_from_pydantic_ai_tools_keeps_their_names_and_schemas() -> None:
    catalog = catalog_from_pydantic_ai(TOOLS, core=["find_records"])
    assert catalog.names == NAMES
    assert catalog["delete_record"].input_schema["required"] == ["record_id"]
    assert [tool.name for tool in catalog.core] == ["find_records"]


async def test_an_approved_call_to_a_found_tool_runs_in_the_next_run(server: FakeLLM) -> None:
    """A tool find_tools found, called and deferred for approval: the run that carries the
    approval reads the find and the call from the history, so the tool is still there."""
    from pydantic_ai import DeferredToolRequests, DeferredToolResults, Tool

    ran: list[str] = []

    def create_view(name: str) -> str:
        """Create a saved view of an object: a table or kanban board with filters and grouping."""
        ran.append(name)
        return "created"

    provider = OpenAIProvider(base_url=f"{server.url}/v1", api_key="test")
    tools = [*TOOLS[:-1], Tool(create_view, requires_approval=True)]
    agent = Agent(OpenAIChatModel("gpt-fake", provider=provider), tools=tools,
                  output_type=[str, DeferredToolRequests], capabilities=[retrieval()])  # fmt: skip
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(CHAT, chat_completion(tool_calls=[call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(CHAT, chat_completion(tool_calls=[call("c2", "create_view", {"name": "deals"})]))
    server.reply(CHAT, chat_completion("Done."))

    paused = await agent.run(ARABIC)
    assert isinstance(paused.output, DeferredToolRequests)
    approvals = {part.tool_call_id: True for part in paused.output.approvals}
    results = DeferredToolResults(approvals=approvals)
    result = await agent.run(message_history=paused.all_messages(), deferred_tool_results=results)

    assert result.output == "Done."
    assert ran == ["deals"]
    assert server.rejections == []


async def test_a_turn_with_the_embedder_hung_selects_once(server: FakeLLM) -> None:
    """The query embedding never answers: the turn's first step falls open after the budget,
    and its other steps and find_tools reuse that fallen-open selection instead of waiting
    again (a turn pays the budget at most once)."""
    catalog = catalog_from_pydantic_ai(TOOLS, core=["find_records"])
    retriever = await hung_retriever(catalog)
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(CHAT, chat_completion(tool_calls=[call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(CHAT, chat_completion(tool_calls=[call("c2", "create_view", {"name": "deals"})]))
    server.reply(CHAT, chat_completion("Done."))
    agent = agent_with(server, ToolRetrieval(retriever, catalog=catalog))

    result = await agent.run(ARABIC)

    assert result.output == "Done."
    assert len(server.bodies(CHAT)) == 3
    for body in server.bodies(CHAT):
        assert sorted(sent_tools(body)) == sorted([*NAMES, FIND_TOOLS_NAME])
    assert retriever.selections == 1
    assert server.rejections == []


async def test_a_closed_retriever_is_the_callers_error_not_an_outage(
    server: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    """Every tool is sent, and the mistake is logged once as an error naming the fix and
    handed to on_error on each turn that meets it."""
    retriever = InMemoryRetriever(CountingEmbedder(), k=1)
    await retriever.aclose()
    errors = Errors()
    agent = agent_with(server, ToolRetrieval(retriever, core=["find_records"], on_error=errors))
    server.reply(CHAT, chat_completion("Done."))
    server.reply(CHAT, chat_completion("Done again."))
    with caplog.at_level(logging.INFO, logger="toolret.selection"):
        await agent.run(ARABIC)
        await agent.run("export the contacts to a CSV file")
    for body in server.bodies(CHAT):
        assert sorted(sent_tools(body)) == sorted([*NAMES, FIND_TOOLS_NAME])
    assert list(errors.kinds()) == ["ClientStateError", "ClientStateError"]
    logged = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(logged) == 1
    assert "async with InMemoryRetriever" in logged[0].getMessage()


async def test_tools_that_make_no_catalog_are_handed_to_on_error(server: FakeLLM) -> None:
    errors = Errors()
    capability = ToolRetrieval(
        InMemoryRetriever(CountingEmbedder(), k=1), examples={"nope": ["x"]}, on_error=errors
    )
    server.reply(CHAT, chat_completion("Done."))
    await agent_with(server, capability).run(ARABIC)
    assert sent_tools(server.bodies(CHAT)[0])[: len(NAMES)] == NAMES
    assert [isinstance(error, CatalogError) for error in errors] == [True]


async def test_a_catalog_given_is_indexed_as_the_capability_is_built() -> None:
    """The guide's line: inside the app's event loop, ``ToolRetrieval(..., catalog=...)`` starts
    the in-memory retriever's build at once, so the first turn need not send every tool."""
    retriever = InMemoryRetriever(CountingEmbedder(), k=1)
    catalog = catalog_from_pydantic_ai(TOOLS, core=["find_records"])
    assert retriever.indexing_state(catalog) == "indexing has not started"
    ToolRetrieval(retriever, catalog=catalog)
    assert retriever.indexing_state(catalog) != "indexing has not started"
    await retriever.index(catalog)  # the same build, awaited
    assert retriever.indexing_state(catalog) == "indexed"
    assert (await retriever.select(catalog, ARABIC)).narrowed
