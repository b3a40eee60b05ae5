# ruff: noqa: E501
"""What the TypeScript client must read as toolret reads it: transcripts of every shape (as the
JSON an agent loop in TypeScript holds), and registrations whose tool names it derives.

``python_reading()`` is toolret's own answer for each; ``tests/test_typescript_client.py`` runs
the package's ``test/parity.ts`` on the same input and compares.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.service_catalog import registration
from toolret.retrieval._find_tools import (
    FIND_TOOLS_NAME,
    discovered_tool_names,
    find_tools_definition,
)
from toolret.retrieval._transcript import latest_human_text
from toolret.service._catalogs import build_catalog
from toolret.service._models import CatalogRegistration

__all__ = ["REGISTRATIONS", "TRANSCRIPTS", "python_reading"]

SHAPES = ("openai", "openai_responses", "anthropic", "gemini", "mcp")


def _found(*names: str) -> str:
    return json.dumps({"tools": [{"name": n, "description": "..."} for n in names]})


def _chat_call(call_id: str, name: str = FIND_TOOLS_NAME) -> dict[str, Any]:
    function = {"name": name, "arguments": '{"capability": "x"}'}
    return {"id": call_id, "type": "function", "function": function}


def _use(use_id: str, name: str = FIND_TOOLS_NAME) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": {"capability": "x"}}


def _result(use_id: str, content: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": content}


TRANSCRIPTS: list[list[Any]] = [
    [  # Chat Completions: two rounds, a result as text blocks, a call that is not find_tools
        {"role": "system", "content": "You are a CRM agent."},
        {"role": "user", "content": "Link the deal to its company and add a note"},
        {"role": "assistant", "content": None, "tool_calls": [_chat_call("a"), _chat_call("b", "x")]},
        {"role": "tool", "tool_call_id": "a", "content": _found("create_relation", "add_comment")},
        {"role": "tool", "tool_call_id": "b", "content": _found("not_from_find_tools")},
        {"role": "assistant", "content": None, "tool_calls": [_chat_call("c")]},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": _found("add_comment", "create_task")}]},
    ],
    [  # a new human message resets the turn
        {"role": "user", "content": "first request"},
        {"role": "assistant", "tool_calls": [_chat_call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": _found("create_relation")},
        {"role": "user", "content": "second request"},
        {"role": "assistant", "tool_calls": [_chat_call("b")]},
        {"role": "tool", "tool_call_id": "b", "content": _found("export_records")},
    ],
    [  # a result for a call made before the human message
        {"role": "assistant", "tool_calls": [_chat_call("a")]},
        {"role": "user", "content": "never mind, do something else"},
        {"role": "tool", "tool_call_id": "a", "content": _found("create_relation")},
    ],
    [  # Responses items, then a user message of input_text parts
        {"role": "user", "content": "Export my contacts"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": FIND_TOOLS_NAME, "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "find_records", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": _found("export_records")},
        {"type": "function_call_output", "call_id": "c2", "output": _found("ignored")},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
    ],
    [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and now?"}]},
        {"type": "function_call", "call_id": "c3", "name": FIND_TOOLS_NAME, "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c3", "output": _found("archive_record")},
    ],
    [  # Anthropic: tool results travel in user messages and are not a new turn
        {"role": "user", "content": "Add a status field to deals and a view by status"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, _use("u1")]},
        {"role": "user", "content": [_result("u1", _found("create_field"))]},
        {"role": "assistant", "content": [_use("u2"), _use("u3", "create_field")]},
        {
            "role": "user",
            "content": [
                _result("u2", [{"type": "text", "text": _found("create_view", "create_field")}]),
                _result("u3", _found("not_a_discovery")),
            ],
        },
    ],
    [
        {"role": "user", "content": "Add a status field"},
        {"role": "assistant", "content": [_use("u1")]},
        {"role": "user", "content": [_result("u1", _found("create_field"))]},
        {"role": "user", "content": [{"type": "text", "text": "thanks, now X"}]},
    ],
    [  # Gemini, camelCase (the wire, the JS SDK) and snake_case, answered by name
        {"role": "user", "parts": [{"text": "show the deals as a board"}]},
        {"role": "model", "parts": [{"functionCall": {"name": FIND_TOOLS_NAME, "args": {"capability": "kanban"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": FIND_TOOLS_NAME, "response": json.loads(_found("create_view"))}}]},
        {"role": "model", "parts": [{"function_call": {"name": FIND_TOOLS_NAME, "args": {}}}]},
        {"role": "user", "parts": [{"function_response": {"name": FIND_TOOLS_NAME, "response": {"result": _found("archive_record")}}}]},
    ],
    [  # LangChain-shaped messages
        {"type": "human", "content": "hello"},
        {"type": "ai", "content": "", "tool_calls": [{"name": FIND_TOOLS_NAME, "args": {}, "id": "l1"}]},
        {"type": "tool", "tool_call_id": "l1", "content": _found("send_email")},
    ],
    [  # AI SDK ModelMessages: tool-call parts, tool-result parts with text or json output
        {"role": "user", "content": [{"type": "text", "text": "export my contacts, then merge the twins"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Looking."}, {"type": "tool-call", "toolCallId": "s1", "toolName": FIND_TOOLS_NAME, "input": {"capabilities": ["x"]}}, {"type": "tool-call", "toolCallId": "s2", "toolName": "find_records", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "s1", "toolName": FIND_TOOLS_NAME, "output": {"type": "text", "value": _found("export_records")}}, {"type": "tool-result", "toolCallId": "s2", "toolName": "find_records", "output": {"type": "text", "value": _found("not_a_discovery")}}]},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "s3", "toolName": FIND_TOOLS_NAME, "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "s3", "toolName": FIND_TOOLS_NAME, "output": {"type": "json", "value": json.loads(_found("merge_records", "export_records"))}}]},
    ],
    [  # malformed and foreign content is skipped
        {"role": "user", "content": "go"},
        None,
        42,
        "a string",
        {"role": "assistant", "tool_calls": "not a list"},
        {"role": "assistant", "tool_calls": [None, {"id": ["unhashable"], "function": {"name": FIND_TOOLS_NAME}}]},
        {"role": "assistant", "tool_calls": [_chat_call("a"), _chat_call("b"), _chat_call("c")]},
        {"role": "tool", "tool_call_id": ["unhashable"], "content": _found("x")},
        {"role": "tool", "tool_call_id": "a", "content": "not json"},
        {"role": "tool", "tool_call_id": "b", "content": json.dumps({"tools": [{"name": 3}, "y", {"name": "ok"}]})},
        {"role": "tool", "tool_call_id": "c", "content": json.dumps({"error": "bad arguments", "tools": []})},
        {"role": "user", "content": [_result("a", {"no": "text"})]},
    ],
    [],
]  # fmt: skip

REGISTRATIONS: list[dict[str, Any]] = [
    registration(),
    {
        "format": "openai",
        "tools": [
            {"type": "web_search"},  # a built-in tool: skipped
            {"type": "function", "name": "lookup", "description": "Look a record up by its id."},
            *registration()["tools"][:3],
        ],
        "core": ["lookup"],
    },
    {
        "format": "anthropic",
        "tools": [
            {"type": "web_search_20250305", "name": "web_search"},
            {"name": "get_weather", "description": "The weather forecast for a city, by day."},
            {"type": "custom", "name": "get_time", "description": "The local time in a city."},
        ],
    },
    {
        "format": "mcp",
        "servers": {
            "files.v2": {"tools": [{"name": "read file", "description": "Read a text file."}]},
            "crm": {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "tools": [
                        {"name": "y" * 80, "description": "A tool with a very long name."},
                        {"name": "search", "description": "Search the CRM records."},
                    ]
                },
            },
        },
        "core": ["search", "files.v2__read file"],
    },
]


def python_reading() -> dict[str, Any]:
    """toolret's reading of ``TRANSCRIPTS`` and ``REGISTRATIONS``, and its find_tools
    definitions as the JavaScript SDKs spell them: Gemini's ``parametersJsonSchema`` (the
    Python SDK's ``parameters_json_schema``), and ``strict`` stated on the Responses function
    (the OpenAI SDK's ``FunctionTool`` requires the key; null leaves the choice to the API)."""
    definitions = {shape: find_tools_definition(shape) for shape in SHAPES}
    gemini = definitions["gemini"]
    gemini["parametersJsonSchema"] = gemini.pop("parameters_json_schema")
    definitions["openai_responses"]["strict"] = None
    catalogs = []
    for body in REGISTRATIONS:
        catalog = build_catalog(CatalogRegistration.model_validate(body))
        catalogs.append({"names": catalog.names, "core": [tool.name for tool in catalog.core]})
    return {
        "discovered": [discovered_tool_names(messages) for messages in TRANSCRIPTS],
        "latest": [latest_human_text(messages) for messages in TRANSCRIPTS],
        "definitions": definitions,
        "catalogs": catalogs,
    }
