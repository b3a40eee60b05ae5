"""Gemini function calling (google-genai ``generate_content``): the turn's tools as function
declarations, and find_tools to widen them.

Gemini has no deferred loading, so each turn sends its own subset: the selection's tools as
``FunctionDeclaration`` dicts (``to_gemini``) plus ``find_tools_definition("gemini")``. When the
model calls find_tools, answer it with ``answer_find_tools`` as a ``function_response`` part;
``discovered_tool_names(contents)`` reads the discoveries back from the turn's ``Content``
list, so the next round declares them too. Every ``function_call`` part of a model turn is
answered in the next turn by as many ``function_response`` parts, search or not.

    selection = await retriever.select(catalog, text)
    bound = [*selection.names, *discovered_tool_names(contents)]
    declarations = [*to_gemini(catalog.subset(bound)), find_tools_definition("gemini")]
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])

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
