"""``conforms`` checks nested content, not only the top level of a request type."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import MessageParam, ToolParam
from openai.types.responses.response_tool_search_output_item_param_param import (
    ResponseToolSearchOutputItemParamParam,
)

from tests.support.sdk_types import conforms

SEARCH_OUTPUT = {"type": "tool_search_output", "call_id": "call_1", "execution": "client"}


@pytest.mark.parametrize(
    ("value", "sdk_type"),
    [
        ({**SEARCH_OUTPUT, "tools": [{"garbage": 1}]}, ResponseToolSearchOutputItemParamParam),
        ({"role": "user", "content": [42]}, MessageParam),
        ({"role": "user", "content": [{"type": "text", "text": "hi", "bogus": 1}]}, MessageParam),
        (
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": [{"type": "tool_reference", "name": "x"}],
                    }
                ],
            },
            MessageParam,
        ),
    ],
    ids=["search-output-tool", "content-not-a-block", "undeclared-key", "reference-misnamed"],
)
def test_a_wrong_nested_field_fails(value: dict[str, Any], sdk_type: Any) -> None:
    with pytest.raises((AssertionError, ValueError)):
        conforms(value, sdk_type)


def test_valid_nested_values_pass() -> None:
    reference = {"type": "tool_reference", "tool_name": "delete_record"}
    result = {"type": "tool_result", "tool_use_id": "t", "content": [reference]}
    conforms({"role": "user", "content": [result]}, MessageParam)
    function = {
        "type": "function",
        "name": "f",
        "description": "d",
        "defer_loading": True,
        "parameters": {"type": "object", "properties": {}},
        "strict": None,
    }
    conforms({**SEARCH_OUTPUT, "tools": [function]}, ResponseToolSearchOutputItemParamParam)
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "x-anything": 1}
    conforms({"name": "f", "input_schema": schema, "defer_loading": True}, ToolParam)
