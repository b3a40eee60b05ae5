"""Tool definitions for Gemini function calling: ``FunctionDeclaration`` dicts.

The SDK is not imported here: declarations are plain dicts the SDK validates into its types.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from toolret._tool import Tool
from toolret.adapters._source import EMPTY_SCHEMA, tools_of
from toolret.retrieval._selection import Selection

__all__ = ["to_gemini"]


def to_gemini(tools: Selection | Iterable[Tool]) -> list[dict[str, Any]]:
    """The ``FunctionDeclaration`` dicts for these tools, in order: name, description and the
    input schema as JSON Schema (``parameters_json_schema``, which takes the schema as it is)."""
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "parameters_json_schema": json.loads(json.dumps(tool.input_schema or EMPTY_SCHEMA)),
        }
        for tool in tools_of(tools)
    ]
