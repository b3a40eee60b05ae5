"""The OpenAI Agents SDK integration: core + top-k enabled before each model call (function
tools' ``is_enabled``, MCP servers' ``tool_filter``), find_tools as a function tool whose finds the
next call enables, fail-open; through a real ``Agent`` and ``Runner`` with the Responses model
against a local Responses server."""

from __future__ import annotations

import json
import logging
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, OpenAIResponsesModel, Runner, Tool, function_tool
from agents.mcp import MCPServerStdio
from openai import AsyncOpenAI

from tests.support.embedders import CountingEmbedder
from tests.support.fake_llm import RESPONSES, FakeLLM, responses_response
from tests.support.turns import Errors, hung_retriever
from toolret import FIND_TOOLS_NAME, BundledE5Embedder, InMemoryRetriever, ToolRetrievalClient
from toolret.integrations.openai_agents import ToolRetrieval, catalog_from_openai_agents

REPO = Path(__file__).resolve().parent.parent
ARABIC = "احذف جهة الاتصال المكررة لشركة أكمي"


@function_tool
def find_records(query: str) -> str:
    """Search records of any object by text or by field values and return matching rows."""
    return "[]"


@function_tool
def delete_record(record_id: str) -> str:
    """Permanently delete one record, such as a contact or a company, from the CRM."""
    return "deleted"


@function_tool
def create_task(title: str) -> str:
    """Create a task or a to-do with a due date, assigned to a person, linked to a record."""
    return "created"


@function_tool
def add_comment(record_id: str, text: str) -> str:
    """Add a comment or a note to a record's timeline, visible to everyone on the record."""
    return "added"


@function_tool
def export_records(object_name: str) -> str:
    """Export the records of an object to a CSV file that can be downloaded or emailed."""
    return "exported"


@function_tool
def create_view(name: str) -> str:
    """Create a saved view of an object: a table or kanban board with filters and grouping."""
    return "created"


TOOLS: list[Tool] = [find_records, delete_record, create_task, add_comment, export_records,
                     create_view]  # fmt: skip
NAMES = [tool.name for tool in TOOLS]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no exporter to the real API
    with FakeLLM() as fake:
        yield fake


def model(server: FakeLLM) -> OpenAIResponsesModel:
    client = AsyncOpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)
    return OpenAIResponsesModel(model="gpt-5.4", openai_client=client)


def retrieval(embedder: CountingEmbedder | None = None, **options: Any) -> ToolRetrieval:
    retriever = InMemoryRetriever(embedder or CountingEmbedder(), k=1, time_budget=60)
    return ToolRetrieval(retriever, core=["find_records"], **options)


def agent_with(server: FakeLLM, tools: ToolRetrieval, **options: Any) -> Agent[Any]:
    return Agent(name="crm", model=model(server), tools=tools.tools(TOOLS), hooks=tools, **options)


def sent_tools(body: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in body["tools"]]


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}  # fmt: skip


def text(words: str) -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": words, "annotations": []}]}  # fmt: skip


async def test_every_call_gets_core_plus_top_k_and_one_embedding(server: FakeLLM) -> None:
    embedder = CountingEmbedder()
    server.reply(RESPONSES, responses_response([call("c1", "delete_record", {"record_id": "42"})]))
    server.reply(RESPONSES, responses_response([text("Deleted.")]))

    result = await Runner.run(agent_with(server, retrieval(embedder)), ARABIC)

    assert result.final_output == "Deleted."
    first, second = map(sent_tools, server.bodies(RESPONSES))
    assert first == second == ["find_records", "delete_record", FIND_TOOLS_NAME]
    assert embedder.queries.count(ARABIC) == 1  # two calls, one query embedding
    assert server.rejections == []


async def test_without_toolret_every_tool_is_sent(server: FakeLLM) -> None:
    """What the narrowing test measures against: the same agent sends its whole roster."""
    server.reply(RESPONSES, responses_response([text("Deleted.")]))
    await Runner.run(Agent(name="crm", model=model(server), tools=TOOLS), ARABIC)
    assert sent_tools(server.bodies(RESPONSES)[0]) == NAMES


async def test_find_tools_enables_what_it_found_for_the_next_call(server: FakeLLM) -> None:
    asked = {"capabilities": ["show the deals as a kanban board"]}
    both = [call("c1", FIND_TOOLS_NAME, asked), call("c2", "find_records", {"query": "x"})]
    server.reply(RESPONSES, responses_response(both))
    server.reply(RESPONSES, responses_response([call("c3", "create_view", {"name": "deals"})]))
    server.reply(RESPONSES, responses_response([text("Here is your board.")]))

    result = await Runner.run(agent_with(server, retrieval()), ARABIC)

    assert result.final_output == "Here is your board."
    first, second, _third = map(sent_tools, server.bodies(RESPONSES))
    assert "create_view" not in first
    assert "create_view" in second
    outputs = [i for i in server.bodies(RESPONSES)[-1]["input"]
               if i.get("type") == "function_call_output"]  # fmt: skip
    assert [o["call_id"] for o in outputs] == ["c1", "c2", "c3"]  # every call answered
    found = [t["name"] for t in json.loads(outputs[0]["output"])["results"][0]["tools"]]
    assert "create_view" in found
    assert "find_records" not in found  # enabled already
    assert outputs[2]["output"] == "created"  # the found tool ran
    assert server.rejections == []


async def test_discoveries_are_forgotten_with_the_next_user_message(server: FakeLLM) -> None:
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(RESPONSES, responses_response([call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(RESPONSES, responses_response([text("Found it.")]))
    server.reply(RESPONSES, responses_response([text("Deleted.")]))
    agent = agent_with(server, retrieval())
    first = await Runner.run(agent, ARABIC)
    await Runner.run(agent, [*first.to_input_list(), {"role": "user", "content": ARABIC}])

    *_, found, next_turn = map(sent_tools, server.bodies(RESPONSES))
    assert "create_view" in found
    assert next_turn == ["find_records", "delete_record", FIND_TOOLS_NAME]
    assert server.rejections == []


async def test_with_toolret_down_the_turn_completes_with_every_tool(server: FakeLLM) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://postgres@127.0.0.1:{port}/toolret"
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(RESPONSES, responses_response([call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(RESPONSES, responses_response([call("c2", "create_view", {"name": "deals"})]))
    server.reply(RESPONSES, responses_response([text("Done.")]))
    async with ToolRetrievalClient(url, embedder=BundledE5Embedder(), k=1, time_budget=30) as down:
        tools = ToolRetrieval(down, core=["find_records"])
        result = await Runner.run(agent_with(server, tools), ARABIC)

    assert result.final_output == "Done."
    for body in server.bodies(RESPONSES):
        assert sent_tools(body) == [*NAMES, FIND_TOOLS_NAME]
    assert server.rejections == []


async def test_an_agent_without_the_hooks_gets_every_tool_and_a_warning(
    server: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    tools = retrieval()
    server.reply(RESPONSES, responses_response([text("Done.")]))
    agent = Agent(name="crm", model=model(server), tools=tools.tools(TOOLS))
    with caplog.at_level(logging.WARNING, logger="toolret.selection"):
        await Runner.run(agent, ARABIC)
    assert sent_tools(server.bodies(RESPONSES)[0]) == [*NAMES, FIND_TOOLS_NAME]
    assert "hooks=retrieval" in caplog.text


async def test_a_tool_that_disables_itself_stays_disabled(server: FakeLLM) -> None:
    tools = retrieval()
    off = function_tool(lambda record_id: "deleted", name_override="delete_record",
                        description_override=delete_record.description,
                        is_enabled=False)  # fmt: skip
    server.reply(RESPONSES, responses_response([text("Done.")]))
    listed = tools.tools([find_records, off, *TOOLS[2:]])
    agent = Agent(name="crm", model=model(server), tools=listed, hooks=tools)
    await Runner.run(agent, ARABIC)
    assert "delete_record" not in sent_tools(server.bodies(RESPONSES)[0])


async def test_an_mcp_server_attached_to_the_agent_is_filtered_by_toolret(server: FakeLLM) -> None:
    tools = retrieval()
    params = {"command": sys.executable, "args": ["-m", "tests.support.mcp_upstreams", "beta"],
              "cwd": str(REPO)}  # fmt: skip
    send = {"to": ["ana@example.com"], "subject": "Deals", "body": "Attached."}
    server.reply(RESPONSES, responses_response([call("c1", "send_email", send)]))
    server.reply(RESPONSES, responses_response([text("Sent.")]))
    async with MCPServerStdio(params, tool_filter=tools.mcp_filter,
                              client_session_timeout_seconds=60) as mailbox:  # fmt: skip
        agent = agent_with(server, tools, mcp_servers=[mailbox])
        result = await Runner.run(agent, "Email the deal summary to Ana")

    assert result.final_output == "Sent."
    first = sent_tools(server.bodies(RESPONSES)[0])
    assert first == ["send_email", "find_records", FIND_TOOLS_NAME]  # MCP tools come first
    assert server.rejections == []


def test_a_catalog_from_agents_sdk_tools_keeps_their_names_and_schemas() -> None:
    catalog = catalog_from_openai_agents(TOOLS, core=["find_records"])
    assert catalog.names == NAMES
    assert catalog["delete_record"].input_schema["required"] == ["record_id"]


async def test_an_approved_call_to_a_found_tool_runs_after_the_run_resumes(server: FakeLLM) -> None:
    """A tool find_tools found, called and held for approval: the run resumed from its state
    (where no hook saw the find) still has the tool, and the approved call runs."""
    ran: list[str] = []

    @function_tool(needs_approval=True)
    def create_view(name: str) -> str:
        """Create a saved view of an object: a table or kanban board with filters and grouping."""
        ran.append(name)
        return "created"

    tools = retrieval()
    listed = tools.tools([*TOOLS[:-1], create_view])
    agent = Agent(name="crm", model=model(server), tools=listed, hooks=tools)
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(RESPONSES, responses_response([call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(RESPONSES, responses_response([call("c2", "create_view", {"name": "deals"})]))
    server.reply(RESPONSES, responses_response([text("Done.")]))

    paused = await Runner.run(agent, ARABIC)
    assert [item.tool_name for item in paused.interruptions] == ["create_view"]
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    result = await Runner.run(agent, state)

    assert result.final_output == "Done."
    assert ran == ["deals"]
    assert server.rejections == []


async def test_a_turn_with_the_embedder_hung_selects_once(server: FakeLLM) -> None:
    """The query embedding never answers: the run's start falls open after the budget, and
    every later call's tool checks and find_tools reuse that selection instead of waiting."""
    catalog = catalog_from_openai_agents(TOOLS, core=["find_records"])
    retriever = await hung_retriever(catalog)
    asked = {"capabilities": ["show the deals as a kanban board"]}
    server.reply(RESPONSES, responses_response([call("c1", FIND_TOOLS_NAME, asked)]))
    server.reply(RESPONSES, responses_response([call("c2", "create_view", {"name": "deals"})]))
    server.reply(RESPONSES, responses_response([text("Done.")]))
    tools = ToolRetrieval(retriever, catalog=catalog)

    result = await Runner.run(agent_with(server, tools), ARABIC)

    assert result.final_output == "Done."
    assert len(server.bodies(RESPONSES)) == 3
    for body in server.bodies(RESPONSES):
        assert sent_tools(body) == [*NAMES, FIND_TOOLS_NAME]
    assert retriever.selections == 1
    assert server.rejections == []


async def test_a_closed_retriever_is_handed_to_on_error(server: FakeLLM) -> None:
    retriever = InMemoryRetriever(CountingEmbedder(), k=1)
    await retriever.aclose()
    errors = Errors()
    server.reply(RESPONSES, responses_response([text("Done.")]))
    tools = ToolRetrieval(retriever, core=["find_records"], on_error=errors)
    await Runner.run(agent_with(server, tools), ARABIC)
    assert sent_tools(server.bodies(RESPONSES)[0]) == [*NAMES, FIND_TOOLS_NAME]
    assert list(errors.kinds()) == ["ClientStateError"]
