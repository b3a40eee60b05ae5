"""find_tools: the definition in each shape, answering a call, reading discoveries back."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import jsonschema
import mcp.types
import pytest
from pydantic import BaseModel

from toolret import BundledE5Embedder, InMemoryRetriever, Retriever, ToolRetrievalClient
from toolret._catalog import Catalog
from toolret._tool import Tool
from toolret.adapters import catalog_from_openai
from toolret.retrieval._find_tools import (
    FIND_TOOLS_NAME,
    MAX_DISCOVERED_TOOLS,
    answer_find_tools,
    discovered_tool_names,
    find_tools_definition,
)

ROSTER = {
    "find_records": "Search records of any object by text or field values and return the rows.",
    "inspect_schema": "Show the objects of the workspace and the fields on each, with types.",
    "create_record": "Create a new record, such as a contact, a company or a deal, with values.",
    "delete_record": "Permanently delete one record, such as a contact or a company, from the CRM.",
    "add_comment": "Write a comment on a record so teammates see a note in its activity timeline.",
    "create_task": "Create a to-do task with a due date and an assignee, linked to a record.",
    "create_field": "Add a new field (column) to an object, such as a status dropdown or a date.",
    "create_view": "Create a saved view of an object: a table or kanban board with filters.",
    "export_records": "Export the records of an object to a CSV file the user can download.",
    "send_email": "Send an email to a contact from the user's connected mailbox, with a subject.",
}


def roster() -> Catalog:
    """Ten tools as OpenAI JSON, two of them core: eight candidates."""
    tools = [
        {"type": "function", "function": {"name": name, "description": text, "parameters": {}}}
        for name, text in ROSTER.items()
    ]
    return catalog_from_openai(tools, core=["find_records", "inspect_schema"])


def names_of(answer: str) -> list[str]:
    return [tool["name"] for tool in json.loads(answer)["tools"]]


# --- the definition ------------------------------------------------------------------------


def test_openai_chat_definition() -> None:
    definition = find_tools_definition("openai")
    assert definition["type"] == "function"
    function = definition["function"]
    assert function["name"] == FIND_TOOLS_NAME
    assert "any language" in function["description"]
    assert "next step" in function["description"]
    jsonschema.Draft202012Validator.check_schema(function["parameters"])
    assert function["parameters"]["required"] == ["capability"]
    jsonschema.validate({"capability": "link two records"}, function["parameters"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({}, function["parameters"])


def test_openai_responses_definition() -> None:
    definition = find_tools_definition("openai_responses")
    assert definition["type"] == "function"
    assert definition["name"] == FIND_TOOLS_NAME
    assert "function" not in definition
    jsonschema.Draft202012Validator.check_schema(definition["parameters"])
    assert definition["parameters"]["properties"]["capability"]["type"] == "string"


def test_anthropic_definition() -> None:
    definition = find_tools_definition("anthropic")
    assert set(definition) == {"name", "description", "input_schema"}
    assert definition["name"] == FIND_TOOLS_NAME
    jsonschema.Draft202012Validator.check_schema(definition["input_schema"])


def test_mcp_definition_is_a_valid_mcp_tool() -> None:
    tool = mcp.types.Tool.model_validate(find_tools_definition("mcp"))
    assert tool.name == FIND_TOOLS_NAME
    assert tool.input_schema["required"] == ["capability"]


def test_definitions_are_fresh_and_unknown_shapes_raise() -> None:
    first = find_tools_definition()
    first["function"]["parameters"]["required"].append("other")
    assert find_tools_definition()["function"]["parameters"]["required"] == ["capability"]
    with pytest.raises(ValueError, match="unknown shape"):
        find_tools_definition("cohere")  # type: ignore[arg-type]


# --- answering a call ----------------------------------------------------------------------


async def test_answer_caps_at_five_and_excludes_bound_and_core() -> None:
    catalog = roster()
    retriever = InMemoryRetriever(mode="bm25")
    bound = ["create_record", "delete_record"]
    answer = await answer_find_tools(
        retriever, catalog, '{"capability": "create a record or a task"}', bound=bound
    )
    names = names_of(answer)
    assert len(names) == MAX_DISCOVERED_TOOLS
    assert names[0] == "create_task"
    assert not set(names) & {"create_record", "delete_record", "find_records", "inspect_schema"}
    described = json.loads(answer)["tools"][0]
    assert described == {"name": "create_task", "description": ROSTER["create_task"]}


async def test_answer_takes_a_dict_and_a_smaller_limit_but_never_more_than_five() -> None:
    catalog = roster()
    retriever = InMemoryRetriever(mode="bm25")
    answer = await answer_find_tools(retriever, catalog, {"capability": "export CSV"}, limit=2)
    assert names_of(answer)[0] == "export_records"
    assert len(names_of(answer)) == 2
    many = await answer_find_tools(retriever, catalog, {"capability": "record"}, limit=50)
    assert len(names_of(many)) == MAX_DISCOVERED_TOOLS


@pytest.mark.parametrize(
    "arguments",
    ["{not json", "", "[1, 2]", '{"capability": 3}', '{"capability": "  "}', {"other": "x"}],
)
async def test_bad_arguments_give_an_error_the_model_can_read(arguments: Any) -> None:
    answer = await answer_find_tools(InMemoryRetriever(mode="bm25"), roster(), arguments)
    payload = json.loads(answer)
    assert "capability" in payload["error"]
    assert payload["tools"] == []


class ScriptedFinder(InMemoryRetriever):
    """A retriever whose find_tools returns what it is told (or fails), to test the answer's
    filters."""

    def __init__(self, tools: list[Tool] | None) -> None:
        super().__init__(mode="bm25")
        self.tools = tools
        self.calls: list[tuple[str, set[str], int]] = []

    async def find_tools(
        self,
        catalog: Catalog,
        capability: str,
        *,
        bound: Iterable[str] = (),
        limit: int = MAX_DISCOVERED_TOOLS,
    ) -> list[Tool]:
        self.calls.append((capability, set(bound), limit))
        if self.tools is None:
            raise ConnectionError("database unreachable")
        return self.tools


async def test_answer_filters_whatever_a_finder_returns() -> None:
    catalog = roster()
    stranger = Tool("not_in_catalog", "A tool from somewhere else entirely, not this catalog.")
    finder = ScriptedFinder([catalog["find_records"], stranger, *catalog.candidates])
    answer = await answer_find_tools(
        finder, catalog, {"capability": "anything"}, bound=["add_comment"]
    )
    names = names_of(answer)
    assert names == ["create_record", "delete_record", "create_task", "create_field", "create_view"]
    assert finder.calls == [("anything", {"add_comment"}, MAX_DISCOVERED_TOOLS)]


async def test_a_failing_finder_gives_an_error_payload() -> None:
    finder: Retriever = ScriptedFinder(None)
    payload = json.loads(await answer_find_tools(finder, roster(), {"capability": "x"}))
    assert payload["tools"] == []
    assert "unavailable" in payload["error"]


async def test_a_catalog_not_indexed_yet_says_search_is_not_available_yet(
    database_url: str,
) -> None:
    async with ToolRetrievalClient(database_url, embedder=BundledE5Embedder()) as client:
        payload = json.loads(await answer_find_tools(client, roster(), {"capability": "x y"}))
    assert payload["tools"] == []
    assert "not available yet" in payload["error"]


async def test_nothing_left_to_find_says_so() -> None:
    catalog = roster()
    answer = await answer_find_tools(
        InMemoryRetriever(mode="bm25"), catalog, {"capability": "x"}, bound=catalog.names
    )
    assert json.loads(answer)["tools"] == []
    assert "no further tools" in json.loads(answer)["note"]


@pytest.mark.slow
async def test_an_arabic_capability_finds_the_tool_with_the_bundled_model() -> None:
    catalog = roster()
    async with InMemoryRetriever(BundledE5Embedder(), mode="dense") as retriever:
        await retriever.index(catalog)
        answer = await answer_find_tools(
            retriever,
            catalog,
            {"capability": "أريد حذف هذا العميل نهائيا"},
            bound=["create_record"],
        )
        turkish = await answer_find_tools(
            retriever, catalog, {"capability": "kayıtları CSV dosyası olarak dışa aktar"}
        )
    assert names_of(answer)[0] == "delete_record"
    assert names_of(turkish)[0] == "export_records"


# --- reading discoveries back --------------------------------------------------------------


def found(*names: str) -> str:
    return json.dumps({"tools": [{"name": n, "description": "..."} for n in names]})


def chat_call(call_id: str, name: str = FIND_TOOLS_NAME) -> dict[str, Any]:
    function = {"name": name, "arguments": '{"capability": "x"}'}
    return {"id": call_id, "type": "function", "function": function}


def test_openai_chat_transcript() -> None:
    messages = [
        {"role": "system", "content": "You are a CRM agent."},
        {"role": "user", "content": "Link the deal to its company and add a note"},
        {"role": "assistant", "content": None, "tool_calls": [chat_call("a"), chat_call("b", "x")]},
        {"role": "tool", "tool_call_id": "a", "content": found("create_relation", "add_comment")},
        {"role": "tool", "tool_call_id": "b", "content": found("not_from_find_tools")},
        {"role": "assistant", "content": None, "tool_calls": [chat_call("c")]},
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": [{"type": "text", "text": found("add_comment", "create_task")}],
        },
    ]
    assert discovered_tool_names(messages) == ["create_relation", "add_comment", "create_task"]


def test_discoveries_reset_on_a_new_human_message() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "first request"},
        {"role": "assistant", "tool_calls": [chat_call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": found("create_relation")},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "second request"},
    ]
    assert discovered_tool_names(messages) == []
    messages += [
        {"role": "assistant", "tool_calls": [chat_call("b")]},
        {"role": "tool", "tool_call_id": "b", "content": found("export_records")},
    ]
    assert discovered_tool_names(messages) == ["export_records"]
    assert discovered_tool_names(messages[:3]) == ["create_relation"]


def test_a_result_for_a_call_made_before_the_human_message_is_ignored() -> None:
    messages = [
        {"role": "assistant", "tool_calls": [chat_call("a")]},
        {"role": "user", "content": "never mind, do something else"},
        {"role": "tool", "tool_call_id": "a", "content": found("create_relation")},
    ]
    assert discovered_tool_names(messages) == []


def test_responses_api_items() -> None:
    items = [
        {"role": "user", "content": "Export my contacts"},
        {"type": "function_call", "call_id": "c1", "name": FIND_TOOLS_NAME, "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "find_records", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": found("export_records")},
        {"type": "function_call_output", "call_id": "c2", "output": found("ignored")},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        },
    ]
    assert discovered_tool_names(items) == ["export_records"]
    later = [
        *items,
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "and now?"}],
        },
    ]
    assert discovered_tool_names(later) == []


def anthropic_use(use_id: str, name: str = FIND_TOOLS_NAME) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": {"capability": "x"}}


def anthropic_result(use_id: str, content: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": content}


def test_anthropic_transcript_tool_results_are_not_a_new_turn() -> None:
    messages = [
        {"role": "user", "content": "Add a status field to deals and a view by status"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Let me look."}, anthropic_use("u1")],
        },
        {"role": "user", "content": [anthropic_result("u1", found("create_field"))]},
        {
            "role": "assistant",
            "content": [anthropic_use("u2"), anthropic_use("u3", "create_field")],
        },
        {
            "role": "user",
            "content": [
                anthropic_result(
                    "u2", [{"type": "text", "text": found("create_view", "create_field")}]
                ),
                anthropic_result("u3", found("not_a_discovery")),
            ],
        },
    ]
    assert discovered_tool_names(messages) == ["create_field", "create_view"]
    fresh = [*messages, {"role": "user", "content": [{"type": "text", "text": "thanks, now X"}]}]
    assert discovered_tool_names(fresh) == []


class SdkMessage(BaseModel):
    """A message object as SDKs return them (pydantic, with model_dump)."""

    role: str
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None


def test_sdk_objects_and_langchain_shaped_messages() -> None:
    messages: list[Any] = [
        SdkMessage(role="user", content="hello"),
        SdkMessage(role="assistant", tool_calls=[chat_call("a")]),
        SdkMessage(role="tool", tool_call_id="a", content=found("create_task")),
        {
            "type": "ai",
            "content": "",
            "tool_calls": [{"name": FIND_TOOLS_NAME, "args": {}, "id": "l1"}],
        },
        {"type": "tool", "tool_call_id": "l1", "content": found("send_email")},
    ]
    assert discovered_tool_names(messages) == ["create_task", "send_email"]


def test_malformed_and_foreign_content_is_skipped() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        None,
        42,
        "a string",
        {"role": "assistant", "tool_calls": "not a list"},
        {
            "role": "assistant",
            "tool_calls": [None, {"id": ["unhashable"], "function": {"name": FIND_TOOLS_NAME}}],
        },
        {"role": "assistant", "tool_calls": [chat_call("a"), chat_call("b"), chat_call("c")]},
        {"role": "tool", "tool_call_id": ["unhashable"], "content": found("x")},
        {"role": "tool", "tool_call_id": "a", "content": "not json"},
        {
            "role": "tool",
            "tool_call_id": "b",
            "content": json.dumps({"tools": [{"name": 3}, "y", {"name": "ok"}]}),
        },
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": json.dumps({"error": "bad arguments", "tools": []}),
        },
        {"role": "user", "content": [anthropic_result("a", {"no": "text"})]},
    ]
    assert discovered_tool_names(messages) == ["ok"]
    assert discovered_tool_names([]) == []


async def test_answers_round_trip_through_the_transcript() -> None:
    catalog = roster()
    answer = await answer_find_tools(
        InMemoryRetriever(mode="bm25"), catalog, {"capability": "export CSV"}
    )
    messages = [
        {"role": "user", "content": "send me my contacts as a spreadsheet"},
        {"role": "assistant", "tool_calls": [chat_call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": answer},
    ]
    assert discovered_tool_names(messages) == names_of(answer)
    assert discovered_tool_names(messages)[0] == "export_records"
