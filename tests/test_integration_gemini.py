"""Gemini function calling: declarations the real google-genai types accept, a transcript of
its ``Content`` objects read back, and the local server refusing unanswered calls."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from google import genai
from google.genai import errors, types

from tests.support.fake_gemini import FakeGemini
from tests.support.tools import crm_catalog
from toolret import discovered_tool_names, find_tools_definition
from toolret.integrations.gemini import to_gemini
from toolret.retrieval._find_tools import tools_behind
from toolret.retrieval._transcript import is_human_message, latest_human_text

FOUND = json.dumps(
    {"results": [{"capability": "kanban", "tools": [{"name": "create_view", "description": "."}]}]}
)


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


def test_declarations_are_function_declarations() -> None:
    catalog = crm_catalog()
    declarations = [*to_gemini(catalog), find_tools_definition("gemini", catalog)]
    tool = types.Tool(function_declarations=declarations)
    assert [d.name for d in tool.function_declarations or []] == [*catalog.names, "find_tools"]
    finder = (tool.function_declarations or [])[-1]
    assert finder.parameters_json_schema["required"] == ["capabilities"]
    assert (finder.description or "").endswith(tools_behind(catalog))


def test_a_gemini_transcript_is_read_back() -> None:
    call = types.FunctionCall(name="find_tools", args={"capabilities": ["kanban"]})
    response = types.FunctionResponse(name="find_tools", response=json.loads(FOUND))
    contents = [
        types.Content(role="user", parts=[types.Part(text="Show the deals as a board")]),
        types.Content(role="model", parts=[types.Part(function_call=call)]),
        types.Content(role="user", parts=[types.Part(function_response=response)]),
    ]
    assert discovered_tool_names(contents) == ["create_view"]
    assert not is_human_message(contents[2])
    assert latest_human_text(contents) == "Show the deals as a board"
    wire = [content.model_dump(by_alias=True, exclude_none=True) for content in contents]
    assert "functionCall" in wire[1]["parts"][0]
    assert discovered_tool_names(wire) == ["create_view"]
    wrapped = [*contents[:2], types.Content(role="user", parts=[types.Part(
        function_response=types.FunctionResponse(name="find_tools", response={"result": FOUND})
    )])]  # fmt: skip
    assert discovered_tool_names(wrapped) == ["create_view"]


def test_every_function_call_is_answered(gemini: FakeGemini) -> None:
    """A model turn's function calls are answered by as many function responses.

    Source: https://ai.google.dev/gemini-api/docs/function-calling
    """
    client = genai.Client(api_key="test", http_options={"base_url": gemini.url})
    calls = [types.Part(function_call=types.FunctionCall(name=n, args={})) for n in ("a", "b")]
    one = [types.Part(function_response=types.FunctionResponse(name="a", response={}))]
    contents = [
        types.Content(role="user", parts=[types.Part(text="go")]),
        types.Content(role="model", parts=calls),
        types.Content(role="user", parts=one),
    ]
    with pytest.raises(errors.ClientError, match="number of function response parts"):
        client.models.generate_content(model="gemini-fake", contents=contents)
    assert gemini.rejections
