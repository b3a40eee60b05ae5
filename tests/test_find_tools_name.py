"""A tool of the user's named as toolret's own tool search, in every integration.

Beside toolret's ``find_tools`` (Anthropic: ``search_tools``) the model would see two tools of one
name: the provider refuses the request, PydanticAI raises a name conflict, the Agents SDK keeps
one of the two. Each integration that binds toolret's search beside the user's tools refuses the
pair with a ``CatalogError`` naming both fixes, as early as it sees the user's tools: a plain
definition when it is built, a framework's hook when the agent is built or its run starts.
Where toolret's search has no name of its own (OpenAI's ``tool_search``) or every tool is named
``server__tool`` (the gateway), nothing collides and the user's tool is kept.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import RESPONSES, FakeLLM, responses_response
from toolret import (
    FIND_TOOLS_NAME,
    CatalogError,
    InMemoryRetriever,
    Tool,
    catalog_from_mcp,
    catalog_from_openai,
    find_tools_definition,
)

REPO = Path(__file__).resolve().parent.parent
SEARCH_SERVER: dict[str, Any] = {"command": sys.executable, "cwd": str(REPO),
                                 "args": ["-m", "tests.support.mcp_search"]}  # fmt: skip


def find_tools(query: str) -> str:
    """Find the wiki pages that document one of the team's internal tools, by keyword."""
    return "no page"


def delete_record(record_id: str) -> str:
    """Permanently delete one record, such as a contact or a company, from the CRM."""
    return "deleted"


def _openai(name: str, description: str) -> dict[str, Any]:
    parameters = {"type": "object", "properties": {"query": {"type": "string"}}}
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


OWN = [
    _openai(FIND_TOOLS_NAME, "Find the wiki pages that document one of the team's tools."),
    _openai("delete_record", "Permanently delete one record, such as a contact, from the CRM."),
]


def _refused(error: pytest.ExceptionInfo[CatalogError], fix: str) -> None:
    message = str(error.value)
    assert error.value.tool in message
    assert "rename yours" in message
    assert fix in message


def test_a_find_tools_definition_beside_a_tool_named_find_tools_is_refused() -> None:
    catalog = catalog_from_openai(OWN)
    for shape in ("openai", "openai_responses", "anthropic", "gemini", "mcp"):
        with pytest.raises(CatalogError) as error:
            find_tools_definition(shape, catalog)
        _refused(error, "bind no find_tools")
    assert find_tools_definition("openai")["function"]["name"] == FIND_TOOLS_NAME  # no catalog


def test_anthropic_refuses_its_search_tools_name_and_keeps_a_tool_named_find_tools() -> None:
    from toolret.integrations.anthropic import SEARCH_TOOL_NAME, anthropic_tools

    kept = anthropic_tools(catalog_from_openai(OWN))
    assert [tool["name"] for tool in kept].count(FIND_TOOLS_NAME) == 1
    taken = catalog_from_openai([_openai(SEARCH_TOOL_NAME, OWN[0]["function"]["description"])])
    with pytest.raises(CatalogError) as error:
        anthropic_tools(taken)
    _refused(error, "search_tool_name")
    renamed = anthropic_tools(taken, search_tool_name="search_more_tools")
    assert [tool["name"] for tool in renamed] == ["search_more_tools", SEARCH_TOOL_NAME]


def test_openai_tool_search_has_no_name_to_collide_with() -> None:
    from toolret.integrations.openai import responses_tools

    tools = responses_tools(catalog_from_openai(OWN))
    names = [tool.get("name") for tool in tools]
    assert FIND_TOOLS_NAME in names
    assert "tool_search" in [tool["type"] for tool in tools]


def test_the_gateway_names_a_servers_find_tools_after_its_server() -> None:
    from toolret.gateway._exposed import FIND_TOOLS

    description = OWN[0]["function"]["description"]
    listed = {"name": "find_tools", "description": description, "inputSchema": {"type": "object"}}
    fleet = catalog_from_mcp({"wiki": [listed]})
    assert fleet.names == ["wiki__find_tools"]
    assert FIND_TOOLS not in fleet
    find_tools_definition("mcp", fleet)  # nothing to refuse


def test_langchain_refuses_a_tool_named_find_tools_unless_find_tools_is_off() -> None:
    from langchain_core.tools import tool

    from toolret.integrations.langchain import ToolRetrievalMiddleware, catalog_from_langchain

    catalog = catalog_from_langchain([tool(find_tools), tool(delete_record)])
    retriever = InMemoryRetriever()
    with pytest.raises(CatalogError) as error:
        ToolRetrievalMiddleware(retriever, catalog)
    _refused(error, "find_tools=False")
    assert ToolRetrievalMiddleware(retriever, catalog, find_tools=False).tools == []


def test_pydantic_ai_refuses_an_agent_with_a_tool_named_find_tools() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from toolret.integrations.pydantic_ai import ToolRetrieval, catalog_from_pydantic_ai

    retriever = InMemoryRetriever()
    with pytest.raises(CatalogError) as error:
        Agent(TestModel(), tools=[find_tools, delete_record],
              capabilities=[ToolRetrieval(retriever)])  # fmt: skip
    _refused(error, "find_tools=False")
    with pytest.raises(CatalogError):
        ToolRetrieval(retriever, catalog=catalog_from_pydantic_ai([find_tools, delete_record]))
    kept = Agent(TestModel(), tools=[find_tools, delete_record],
                 capabilities=[ToolRetrieval(retriever, find_tools=False)])  # fmt: skip
    assert kept.run_sync("Delete the duplicate contact").output


async def test_pydantic_ai_names_the_conflict_with_an_mcp_servers_find_tools() -> None:
    from fastmcp.client import Client
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.models.test import TestModel

    from toolret.integrations.pydantic_ai import ToolRetrieval

    command, arguments = SEARCH_SERVER["command"], SEARCH_SERVER["args"]
    wiki = MCPToolset(Client(StdioTransport(command, arguments, cwd=SEARCH_SERVER["cwd"])))
    async with InMemoryRetriever() as retriever:
        agent = Agent(TestModel(), toolsets=[wiki], capabilities=[ToolRetrieval(retriever)])
        with pytest.raises(UserError, match=r"find_tools.*Rename the tool"):
            await agent.run("Which page documents the deploy tool?")


@pytest.fixture
def responses(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no exporter to the real API
    with FakeLLM() as fake:
        yield fake


def test_the_agents_sdk_refuses_a_function_tool_named_find_tools() -> None:
    from agents import function_tool

    from toolret.integrations.openai_agents import ToolRetrieval, catalog_from_openai_agents

    retrieval = ToolRetrieval(InMemoryRetriever())
    own = [function_tool(find_tools), function_tool(delete_record)]
    with pytest.raises(CatalogError) as error:
        retrieval.tools(own)
    assert "rename yours" in str(error.value)
    with pytest.raises(CatalogError):
        ToolRetrieval(InMemoryRetriever(), catalog=catalog_from_openai_agents(own))


async def test_the_agents_sdk_refuses_an_mcp_servers_find_tools_as_the_run_starts(
    responses: FakeLLM,
) -> None:
    from agents import Agent, OpenAIResponsesModel, Runner, function_tool
    from agents.mcp import MCPServerStdio
    from openai import AsyncOpenAI

    from toolret.integrations.openai_agents import ToolRetrieval

    client = AsyncOpenAI(base_url=f"{responses.url}/v1", api_key="test", max_retries=0)
    model = OpenAIResponsesModel(model="gpt-5.4", openai_client=client)
    responses.reply(RESPONSES, responses_response([]))
    async with InMemoryRetriever() as retriever:
        retrieval = ToolRetrieval(retriever)
        async with MCPServerStdio(dict(SEARCH_SERVER), tool_filter=retrieval.mcp_filter,
                                  client_session_timeout_seconds=60) as wiki:  # fmt: skip
            agent = Agent(name="crm", model=model, tools=retrieval.tools([function_tool(
                delete_record)]), hooks=retrieval, mcp_servers=[wiki])  # fmt: skip
            with pytest.raises(CatalogError, match="rename yours"):
                await Runner.run(agent, "Which page documents the deploy tool?")
    assert responses.bodies(RESPONSES) == []  # refused before any model call


def test_a_tool_of_the_users_is_kept_where_toolret_binds_no_search() -> None:
    catalog = catalog_from_openai(OWN)
    assert isinstance(catalog[FIND_TOOLS_NAME], Tool)  # a catalog may hold it


async def test_the_service_refuses_a_find_tools_definition_beside_one_of_its_own(
    database_url: str,
) -> None:
    from tests.test_service import service

    async with service(database_url) as (_, http):
        body = {"format": "openai", "tools": OWN}
        registered = await http.post("/v1/catalogs/wiki", json=body)
        assert registered.status_code in (200, 201), registered.text  # selection needs no search
        answer = await http.get("/v1/catalogs/wiki/find_tools?shape=anthropic")
    assert answer.status_code == 409
    refusal = answer.json()
    assert refusal["error"] == "find_tools_conflict"
    assert "rename yours" in refusal["detail"]
