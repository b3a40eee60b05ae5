"""The code blocks of the README and the providers guide that talk to a model provider, run as
written against local servers that refuse what the provider's API refuses
(``tests/support/fake_llm.py``, ``tests/support/fake_gemini.py``).

Each block is executed unchanged, after a prelude defining what the docs say is the
reader's own (``MODEL``, ``run_tool``, the catalogs, the LangChain tools); the SDKs find the
local servers through their usual environment variables. The replies scripted here mix a
search with another tool call, and the Anthropic loop reads a streamed reply, with and without
extended thinking.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_gemini import FakeGemini
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

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = (REPO / "README.md", REPO / "docs" / "providers.md")
"""Where the provider blocks live: the README's agent service, the providers guide's others."""
BLOCKS = [
    b
    for document in DOCUMENTS
    for b in re.findall(r"```python\n(.*?)```", document.read_text("utf-8"), re.DOTALL)
    if "# talks to " in b
]
ARABIC = "احذف جهة الاتصال المكررة لشركة أكمي"
PRELUDE = """
from tests.support.tools import crm_catalog, mcp_catalog
units_catalog, mcp_catalog = crm_catalog(), mcp_catalog()
ran = []
async def run_tool(name, arguments):
    ran.append((name, arguments))
    return "ok"
"""


def block(marker: str) -> str:
    """The one provider block of the docs containing ``marker``."""
    found = [code for code in BLOCKS if marker in code]
    assert len(found) == 1, marker
    return found[0]


async def run(code: str, **names: Any) -> dict[str, Any]:
    """Execute a docs block as written, after the prelude; its namespace."""
    namespace: dict[str, Any] = {"__name__": "readme", **names}
    exec(compile(PRELUDE, "prelude", "exec"), namespace)
    namespace.update(names)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    result = eval(compile(code, "docs", "exec", flags=flags), namespace)
    if result is not None:
        await result
    return namespace


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        for key in ("GEMINI_API_KEY", "REDIS_URL"):
            monkeypatch.delenv(key, raising=False)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("TOOLRET_K", "3")
        monkeypatch.setenv("TOOLRET_TIME_BUDGET_MS", "60000")  # the first use embeds the catalog
        yield fake


def test_every_provider_block_is_run_here() -> None:
    markers = ["async def reply(", "client = ToolRetrievalClient()", "anthropic_tools(",
               "responses_tools(", "generate_content(", "create_agent(", "capabilities=[retrieval]",
               "hooks=retrieval"]  # fmt: skip
    assert len(BLOCKS) == len(markers)
    for marker in markers:
        assert block(marker).startswith("# talks to ")


# -- An agent service: Chat Completions with find_tools ----------------------------------------


async def test_the_readme_service_sends_the_core_tools_and_the_best_k(
    server: FakeLLM, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    namespace = await run(block("async def reply("), MODEL="gpt-fake")
    catalog = namespace["units_catalog"]
    async with namespace["retrieval"] as retrieval:
        await retrieval.index(catalog)
        server.reply(CHAT, chat_completion("Done."))
        reply = await namespace["reply"]([], "Delete the duplicate contact")
    assert reply.choices[0].message.content == "Done."
    (body,) = server.bodies(CHAT)
    sent = [tool["function"]["name"] for tool in body["tools"]]
    assert len(sent) == len(catalog.core) + 3  # TOOLRET_K=3 here
    assert "delete_record" in sent
    assert server.rejections == []


async def test_the_agent_service_answers_every_call_and_says_when_search_is_not_ready(
    server: FakeLLM, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("TOOLRET_K", "12")
    export = {"capabilities": ["export the deals to a spreadsheet file"]}
    calls = [
        {"id": "call_find", "name": "find_tools", "arguments": export},
        {"id": "call_read", "name": "find_records", "arguments": {"object": "contacts"}},
    ]
    namespace = await run(block("client = ToolRetrievalClient()"), MODEL="gpt-fake")
    async with namespace["client"] as client:
        before: list[Any] = []
        server.reply(CHAT, chat_completion(tool_calls=calls))
        server.reply(CHAT, chat_completion("Done."))
        assert await namespace["turn"](before, "Delete the duplicate contact") == "Done."
        assert "not available yet" in json.loads(before[2]["content"])["error"]

        await client.index(namespace["units_catalog"])
        after: list[Any] = []
        server.reply(CHAT, chat_completion(tool_calls=calls))
        server.reply(CHAT, chat_completion("Done."))
        assert await namespace["turn"](after, "Delete the duplicate contact") == "Done."
    answer = json.loads(after[2]["content"])["results"][0]
    found = [tool["name"] for tool in answer["tools"]]
    assert "export_records" in found
    *_, first, second = server.bodies(CHAT)
    sent = [[tool["function"]["name"] for tool in body["tools"]] for body in (first, second)]
    assert "export_records" not in sent[0]
    assert "export_records" in sent[1]
    assert [name for name, _ in namespace["ran"]] == ["find_records", "find_records"]
    assert server.rejections == []


# -- Anthropic: deferred loading, streamed -----------------------------------------------------

SEARCH = {
    "type": "tool_use",
    "id": "toolu_search",
    "name": "search_tools",
    "input": {"capabilities": [ARABIC]},
}
READ = {"type": "tool_use", "id": "toolu_read", "name": "find_records", "input": {"object": "x"}}


async def test_the_anthropic_loop_answers_a_search_and_a_call_from_one_streamed_reply(
    server: FakeLLM,
) -> None:
    server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Looking."}, SEARCH, READ],
                                             "tool_use"))  # fmt: skip
    server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Done."}]))
    namespace = await run(block("anthropic_tools("), MODEL="claude-fake")
    messages: list[Any] = [{"role": "user", "content": ARABIC}]

    reply = await namespace["turn"](messages)

    assert reply.content[0].text == "Done."
    assert server.rejections == []
    first, second = server.bodies(MESSAGES)
    assert first["stream"] is True
    assert first["tools"] == second["tools"]  # the cached prefix is untouched
    search = next(tool for tool in first["tools"] if tool["name"] == "search_tools")
    assert search["cache_control"] == {"type": "ephemeral"}
    results = second["messages"][-1]["content"]
    assert [result["tool_use_id"] for result in results] == ["toolu_search", "toolu_read"]
    assert results[0]["content"][0]["type"] == "tool_reference"
    assert namespace["ran"] == [("find_records", {"object": "x"})]


async def test_the_anthropic_preselection_holds_with_and_without_thinking(
    server: FakeLLM,
) -> None:
    namespace = await run(block("anthropic_tools("), MODEL="claude-fake")
    thinking = {"type": "thinking", "thinking": "The duplicate must be found first."}
    server.reply(MESSAGES, anthropic_message([thinking, SEARCH, READ], "tool_use"))
    server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Done."}]))
    messages: list[Any] = []
    on = {"type": "enabled", "budget_tokens": 1024}
    await namespace["preselected_turn"](messages, ARABIC, thinking=on)
    assert server.rejections == []
    first, second = server.requests[-2:]
    assert messages[1]["role"] == "system"  # tool_addition blocks, not a search round
    assert first.headers["anthropic-beta"] == second.headers["anthropic-beta"] == TOOL_CHANGES_BETA
    assert second.body["messages"][2]["content"][0]["type"] == "thinking"  # passed back

    for _ in range(2):  # the same message twice: a search round each, with its own id
        server.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Done."}]))
        await namespace["preselected_turn"](messages, ARABIC)
    assert server.rejections == []
    sent = server.bodies(MESSAGES)[-1]["messages"]
    blocks = [b for m in sent if isinstance(m["content"], list) for b in m["content"]]
    ids = [b["id"] for b in blocks if b["type"] == "tool_use" and b["name"] == "search_tools"]
    assert len(ids) == 3  # the model's search, then two pre-selections
    assert len(set(ids)) == 3


async def test_the_former_anthropic_loop_is_refused(server: FakeLLM) -> None:
    """A loop that answers only the search of a reply that also called another tool: the API
    refuses it."""
    former = block("anthropic_tools(").replace(
        'calls = [block for block in reply.content if block.type == "tool_use"]',
        'calls = [b for b in reply.content if b.type == "tool_use" and b.name == "search_tools"]',
    )
    assert former != block("anthropic_tools(")
    server.reply(MESSAGES, anthropic_message([SEARCH, READ], "tool_use"))
    namespace = await run(former, MODEL="claude-fake")
    with pytest.raises(namespace["anthropic"].BadRequestError, match="toolu_read"):
        await namespace["turn"]([{"role": "user", "content": ARABIC}])


# -- OpenAI Responses: client tool_search ------------------------------------------------------


async def test_the_responses_loop_keeps_reasoning_and_answers_every_call(server: FakeLLM) -> None:
    turkish = "Yarın için müşteriyi arama görevi oluştur"
    search = {"type": "tool_search_call", "id": "ts_1", "call_id": "call_s", "status": "completed",
              "execution": "client", "arguments": {"capabilities": [turkish]}}  # fmt: skip
    read = {"type": "function_call", "id": "fc_1", "call_id": "call_r", "status": "completed",
            "name": "crm__find_records", "arguments": '{"q": "x"}'}  # fmt: skip
    task = {"type": "function_call", "id": "fc_2", "call_id": "call_t", "status": "completed",
            "namespace": "work", "name": "create_task", "arguments": "{}"}  # fmt: skip
    done = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}  # fmt: skip
    reasoning = [{"type": "reasoning", "id": f"rs_{i}", "summary": []} for i in (1, 2)]
    server.reply(RESPONSES, responses_response([reasoning[0], search, read]))
    server.reply(RESPONSES, responses_response([reasoning[1], task]))
    server.reply(RESPONSES, responses_response([done]))
    namespace = await run(block("responses_tools("), MODEL="gpt-5.4")

    response = await namespace["turn"]([{"role": "user", "content": turkish}])

    assert response.output_text == "Done."
    assert server.rejections == []
    assert [name for name, _ in namespace["ran"]] == ["crm__find_records", "work__create_task"]
    first, second, third = server.bodies(RESPONSES)
    assert first["tools"] == second["tools"] == third["tools"]
    loaded = next(i for i in second["input"] if i.get("type") == "tool_search_output")
    functions = [f for space in loaded["tools"] for f in space.get("tools", [space])]
    assert functions
    assert all(function["defer_loading"] is True for function in functions)


# -- Gemini function calling -------------------------------------------------------------------


async def test_the_gemini_loop_declares_what_find_tools_found(
    server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeGemini() as gemini:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini.url)
        monkeypatch.setenv("GOOGLE_API_KEY", "test")
        find = {"name": "find_tools", "args": {"capabilities": ["show deals as a kanban board"]}}
        gemini.reply_content([{"functionCall": find}, {"functionCall": {"name": "find_records",
                              "args": {"object": "deals"}}}])  # fmt: skip
        gemini.reply_content([{"text": "Here is the board."}])
        namespace = await run(block("generate_content("), MODEL="gemini-fake")

        response = await namespace["turn"]([], "Delete the duplicate contact")

        assert response.text == "Here is the board."
        assert gemini.rejections == []
        first, second = (r.body for r in gemini.requests if r.endpoint == "generateContent")
    declared = [[d["name"] for d in body["tools"][0]["functionDeclarations"]]
                for body in (first, second)]  # fmt: skip
    assert declared[0][-1] == declared[1][-1] == "find_tools"
    assert "create_view" not in declared[0]
    assert "create_view" in declared[1]
    answers = second["contents"][-1]["parts"]
    assert [part["functionResponse"]["name"] for part in answers] == ["find_tools", "find_records"]


# -- LangChain ---------------------------------------------------------------------------------

LANGCHAIN_TOOLS = '''
from langchain_core.tools import tool

@tool
def inspect_schema() -> str:
    """Show the objects of the workspace and the fields on each, with their types."""
    return "{}"

@tool
def find_records(query: str) -> str:
    """Search records of any object by text or by field values and return matching rows."""
    return "[]"

@tool
def delete_record(record_id: str) -> str:
    """Permanently delete one record, such as a contact or a company, from the CRM."""
    return "deleted"

@tool
def create_view(name: str) -> str:
    """Create a saved view of an object: a table or kanban board with filters and grouping."""
    return "created"
'''


async def test_the_langchain_agent_runs_find_tools_as_a_real_tool(server: FakeLLM) -> None:
    find = {"id": "call_1", "name": "find_tools", "arguments": {"capabilities": ["a kanban board"]}}
    read = {"id": "call_2", "name": "find_records", "arguments": {"query": "duplicates"}}
    server.reply(CHAT, chat_completion(tool_calls=[find, read]))
    server.reply(CHAT, chat_completion("Done."))
    tools: dict[str, Any] = {}
    exec(compile(LANGCHAIN_TOOLS, "tools", "exec"), tools)
    names = {name: tools[name] for name in ("inspect_schema", "find_records", "delete_record",
                                            "create_view")}  # fmt: skip

    namespace = await run(block("create_agent("), **names)

    assert namespace["result"]["messages"][-1].content == "Done."
    assert server.rejections == []
    first, second = ([t["function"]["name"] for t in body["tools"]] for body in server.bodies(CHAT))
    assert first[:3] == second[:3] == ["inspect_schema", "find_records", "find_tools"]
    assert second[: len(first)] == first
    assert "create_view" in second


# -- PydanticAI and the OpenAI Agents SDK ------------------------------------------------------

CRM_FUNCTIONS = {
    "inspect_schema": "Show the objects of the workspace and the fields on each, with their types.",
    "find_records": "Search records of any object by text or by field values and return rows.",
    "delete_record": "Permanently delete one record, such as a contact or a company, from the CRM.",
    "create_record": "Create a new record, such as a contact, a company or a deal, with fields.",
    "add_comment": "Write a comment on a record so teammates see a note in its timeline.",
    "create_task": "Create a to-do task with a due date and an assignee, linked to a record.",
    "create_view": "Create a saved view of an object: a table or kanban board with filters.",
    "export_records": "Export the records of an object to a CSV file the user can download.",
}


def functions(decorate: Any = None) -> list[Any]:
    """The CRM tools as plain functions with docstrings (``decorate``: the SDK's decorator)."""
    made = []
    for name, doc in CRM_FUNCTIONS.items():

        def tool(query: str) -> str:
            return "ok"

        tool.__name__ = tool.__qualname__ = name
        tool.__doc__ = doc
        made.append(decorate(tool) if decorate else tool)
    return made


def find_then_call(call: Any, text: Any) -> list[Any]:
    """A find_tools call beside another call, then a call to what it found, then an answer."""
    kanban = {"capabilities": ["show the deals as a kanban board"]}
    return [[call("c1", "find_tools", kanban), call("c2", "find_records", {"query": "acme"})],
            [call("c3", "create_view", {"query": "deals"})], [text("Done.")]]  # fmt: skip


def responses_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}  # fmt: skip


def responses_text(words: str) -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": words, "annotations": []}]}  # fmt: skip


def declared(body: dict[str, Any]) -> list[str]:
    """The function tools a Responses request declares: its tools, then any added mid-way."""
    added = [t for item in body["input"] if item.get("type") == "additional_tools"
             for t in item["tools"]]  # fmt: skip
    return [tool["name"] for tool in [*body["tools"], *added]]


async def test_the_pydantic_ai_agent_narrows_and_finds_across_a_conversation(
    server: FakeLLM,
) -> None:
    for output in [*find_then_call(responses_call, responses_text), [responses_text("Here.")]]:
        server.reply(RESPONSES, responses_response(output))

    namespace = await run(block("capabilities=[retrieval]"), tools=functions())

    assert namespace["later"].output == "Here."
    assert server.rejections == []
    first, second, _third, fourth = map(declared, server.bodies(RESPONSES))
    assert first[:3] == ["inspect_schema", "find_records", "find_tools"]
    assert len(first) == 3 + 3  # core, find_tools and k = 3 of the 8
    assert "create_view" not in first
    assert second[: len(first)] == first
    assert "create_view" in second  # found, then called
    assert fourth[: len(first)] == first  # stable: the next turn extends the list


async def test_the_agents_sdk_agent_narrows_function_and_mcp_tools(
    server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents import function_tool

    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no exporter to the real API
    for output in find_then_call(responses_call, responses_text):
        server.reply(RESPONSES, responses_response(output))
    mailbox = [sys.executable, "-m", "tests.support.mcp_upstreams", "beta"]
    params = {"command": mailbox[0], "args": mailbox[1:], "cwd": str(REPO)}

    namespace = await run(block("hooks=retrieval"), tools=functions(function_tool), params=params)

    assert namespace["result"].final_output == "Done."
    assert server.rejections == []
    first, second, _ = map(declared, server.bodies(RESPONSES))
    assert not {"send_email", "search_mail"} & set(first)  # an MCP server's tools, narrowed too
    assert len(first) == 2 + 3 + 1  # core, k = 3 of the 10, find_tools
    assert "create_view" not in first
    assert "create_view" in second
