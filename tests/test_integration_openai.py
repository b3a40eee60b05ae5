"""OpenAI Responses ``tool_search`` executed by the client, with toolret answering it, through the
real ``openai`` SDK against a local server speaking the Responses wire format."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from openai.types.responses import (
    FunctionToolParam,
    NamespaceToolParam,
    ResponseFunctionToolCall,
    ResponseInputParam,
    ResponseToolSearchCall,
    ToolSearchToolParam,
)
from openai.types.responses.namespace_tool_param import ToolFunction
from openai.types.responses.response_tool_search_output_item_param_param import (
    ResponseToolSearchOutputItemParamParam,
)
from openai.types.responses.tool_search_output_namespace_tool_param import (
    ToolFunction as LoadedFunction,
    ToolSearchOutputNamespaceToolParam,
)
from pydantic import TypeAdapter

from tests.support.embedders import CountingEmbedder
from tests.support.fake_llm import RESPONSES, FakeLLM, responses_response
from tests.support.sdk_types import conforms
from tests.support.tools import CRM_TOOLS, mcp_catalog
from toolret import Catalog, InMemoryRetriever
from toolret.integrations.openai import (
    answer_responses_search,
    called_tool_name,
    responses_loaded_tool_names,
    responses_tools,
)
from toolret.retrieval._find_tools import MAX_DISCOVERED_TOOLS, tools_behind

TURKISH = "Yarın için müşteriyi arama görevi oluştur"


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


@pytest.fixture
async def retriever() -> AsyncIterator[InMemoryRetriever]:
    async with InMemoryRetriever(CountingEmbedder(), k=3, time_budget=60) as memory:
        await memory.index(mcp_catalog())
        yield memory


def test_core_is_loaded_and_each_server_is_a_deferred_namespace() -> None:
    catalog = mcp_catalog()
    tools = responses_tools(catalog)
    kinds = [tool["type"] for tool in tools]
    assert kinds == ["function", "function", "tool_search", "namespace", "namespace"]
    for function in tools[:2]:
        conforms(function, FunctionToolParam)
        assert "defer_loading" not in function
    assert [tool["name"] for tool in tools[:2]] == [t.name for t in catalog.core]
    conforms(tools[2], ToolSearchToolParam)
    assert tools[2]["execution"] == "client"
    spaces = {tool["name"]: tool for tool in tools[3:]}
    assert set(spaces) == {"crm", "work"}
    for space in spaces.values():
        conforms(space, NamespaceToolParam)
        for function in space["tools"]:
            conforms(function, ToolFunction)
            assert function["defer_loading"] is True
    assert {f["name"] for f in spaces["work"]["tools"]} == {
        "add_comment",
        "create_task",
        "send_email",
    }
    assert responses_tools(catalog) == tools


async def test_toolret_answers_a_client_tool_search_in_turkish_through_the_sdk(
    server: FakeLLM, retriever: InMemoryRetriever
) -> None:
    catalog = mcp_catalog()
    tools = responses_tools(catalog)
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key="test", max_retries=0)
    search = {"type": "tool_search_call", "id": "ts_1", "call_id": "call_1", "status": "completed"}
    server.reply(
        RESPONSES,
        responses_response(
            [{**search, "execution": "client", "arguments": {"capabilities": [TURKISH]}}]
        ),
    )
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_2", "status": "completed"}
    server.reply(
        RESPONSES,
        responses_response(
            [{**call, "namespace": "work", "name": "create_task", "arguments": "{}"}]
        ),
    )

    items: list[Any] = [{"role": "user", "content": TURKISH}]
    response = await client.responses.create(model="gpt-5.4", input=items, tools=tools)
    item = response.output[0]
    assert isinstance(item, ResponseToolSearchCall)
    output = await answer_responses_search(retriever, catalog, item)
    conforms(output, ResponseToolSearchOutputItemParamParam)
    assert output["call_id"] == "call_1"
    loaded = {space["name"]: space for space in output["tools"]}
    for space in loaded.values():
        conforms(space, ToolSearchOutputNamespaceToolParam)
        for function in space["tools"]:
            conforms(function, LoadedFunction)
    assert "create_task" in [f["name"] for f in loaded["work"]["tools"]]

    items += [item.model_dump(exclude_none=True), output]
    response = await client.responses.create(model="gpt-5.4", input=items, tools=tools)
    called = response.output[0]
    assert isinstance(called, ResponseFunctionToolCall)
    assert called_tool_name(catalog, called) == "work__create_task"

    first, second = server.bodies(RESPONSES)
    assert second["tools"] == first["tools"] == tools  # the cached prefix is untouched
    TypeAdapter(ResponseInputParam).validate_python(second["input"])
    assert second["input"][-1] == output


async def test_one_search_loads_several_capabilities_within_their_namespaces(
    retriever: InMemoryRetriever,
) -> None:
    catalog = mcp_catalog()
    asked = ["delete the duplicate contact", TURKISH]
    call = {"call_id": "call_5", "arguments": json.dumps({"capabilities": asked})}
    output = await answer_responses_search(retriever, catalog, call)
    conforms(output, ResponseToolSearchOutputItemParamParam)
    loaded = responses_loaded_tool_names(catalog, [output])
    assert len(loaded) == len(set(loaded)) > MAX_DISCOVERED_TOOLS
    assert "work__create_task" in loaded
    search = next(tool for tool in responses_tools(catalog) if tool["type"] == "tool_search")
    assert search["description"].endswith(tools_behind(catalog))
    assert search["parameters"]["required"] == ["capabilities"]


async def test_no_query_loads_nothing(retriever: InMemoryRetriever) -> None:
    output = await answer_responses_search(
        retriever, mcp_catalog(), {"call_id": "call_9", "arguments": {"capabilities": [" "]}}
    )
    conforms(output, ResponseToolSearchOutputItemParamParam)
    assert output["tools"] == []


def test_plain_function_tools_are_deferred_one_by_one() -> None:
    catalog = Catalog(CRM_TOOLS)
    tools = responses_tools(catalog)
    deferred = [tool for tool in tools if tool.get("defer_loading")]
    assert {tool["name"] for tool in deferred} == {tool.name for tool in catalog.candidates}
    for tool in deferred:
        conforms(tool, FunctionToolParam)
    assert called_tool_name(catalog, {"name": "delete_record"}) == "delete_record"
    assert called_tool_name(catalog, {"name": "nope"}) is None


async def test_loaded_plain_functions_are_deferred_routed_and_remembered() -> None:
    catalog = Catalog(CRM_TOOLS)
    async with InMemoryRetriever(CountingEmbedder(), k=3, time_budget=60) as retriever:
        call = {
            "call_id": "call_1",
            "arguments": {"capabilities": ["delete the duplicate contact"]},
        }
        output = await answer_responses_search(retriever, catalog, call)
    conforms(output, ResponseToolSearchOutputItemParamParam)
    assert output["tools"]
    assert all(function["defer_loading"] is True for function in output["tools"])
    loaded = [function["name"] for function in output["tools"]]
    assert "delete_record" in loaded
    assert responses_loaded_tool_names(catalog, [output]) == loaded
    # a plain function loaded by a search may come back with its name as its namespace
    back = {"type": "function_call", "namespace": "delete_record", "name": "delete_record"}
    assert called_tool_name(catalog, back) == "delete_record"
    assert called_tool_name(catalog, {**back, "namespace": "crm"}) is None


async def test_namespaced_tools_loaded_by_a_search_are_named_as_the_catalog_names_them(
    retriever: InMemoryRetriever,
) -> None:
    catalog = mcp_catalog()
    output = await answer_responses_search(retriever, catalog, {"call_id": "c", "arguments": {
        "capabilities": [TURKISH]}})  # fmt: skip
    loaded = responses_loaded_tool_names(catalog, [{"role": "user", "content": "x"}, output])
    assert "work__create_task" in loaded
    again = await answer_responses_search(
        retriever, catalog, {"call_id": "d", "arguments": {"capabilities": [TURKISH]}}, bound=loaded
    )
    assert not set(responses_loaded_tool_names(catalog, [again])) & set(loaded)
