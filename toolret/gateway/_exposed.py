"""What the downstream client sees of the gateway's own: its three kinds of tools (the core
tools, ``find_tools``, ``call_tool``) and the shapes of their answers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolret.retrieval._find_tools import CAPABILITIES_SCHEMA, MAX_CAPABILITIES, tools_behind
from toolret.retrieval._selection import MAX_DISCOVERED_TOOLS

if TYPE_CHECKING:
    from mcp import types

    from toolret._catalog import Catalog
    from toolret._tool import Tool

__all__ = [
    "CALL_TOOL",
    "FIND_TOOLS",
    "GATEWAY_SCHEMAS",
    "error_result",
    "exposed_tools",
    "found_tool",
    "json_result",
    "needs_task",
    "task_refusal",
]

FIND_TOOLS = "find_tools"
CALL_TOOL = "call_tool"
FIND_TOOLS_DESCRIPTION = (
    "Find tools. You see a few tools; many more are available from the servers behind this "
    "gateway. Describe each capability you need in plain language, in any language: what you "
    "want to do, not a tool name (for example 'open a pull request' or 'أرسل رسالة إلى الفريق'). "
    f"Ask for every capability your plan still needs in one call, up to {MAX_CAPABILITIES}; up "
    f"to {MAX_DISCOVERED_TOOLS} matching tools each are returned with their input schemas; call "
    "one through call_tool."
)
CALL_TOOL_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The tool's name"},
        "arguments": {"type": "object", "description": "Its arguments"},
    },
    "required": ["name"],
}
CALL_TOOL_DESCRIPTION = (
    "Call a tool that find_tools returned: give its name exactly as find_tools gave it and its "
    "arguments as an object matching its input schema."
)
GATEWAY_SCHEMAS: Mapping[str, Mapping[str, Any]] = {
    FIND_TOOLS: CAPABILITIES_SCHEMA,
    CALL_TOOL: CALL_TOOL_SCHEMA,
}
"""The input schemas of the gateway's own tools, by name."""


def exposed_tools(
    catalog: Catalog | None, core: Sequence[Tool], note: str = ""
) -> list[types.Tool]:
    """``tools/list``: the ``core`` tools as their servers listed them (title, annotations and
    output schema kept, renamed ``server__tool``), then find_tools, whose description names
    what lies behind it in ``catalog`` (and ends with ``note``), and call_tool."""
    from mcp import types

    exposed = [tool.definition.tool.model_copy(update={"name": tool.name}) for tool in core]
    behind = "" if catalog is None else f" {tools_behind(catalog)}"
    exposed.append(
        types.Tool(
            name=FIND_TOOLS,
            description=FIND_TOOLS_DESCRIPTION + behind + note,
            input_schema=json.loads(json.dumps(CAPABILITIES_SCHEMA)),
        )
    )
    exposed.append(
        types.Tool(
            name=CALL_TOOL,
            description=CALL_TOOL_DESCRIPTION,
            input_schema=json.loads(json.dumps(CALL_TOOL_SCHEMA)),
        )
    )
    return exposed


def found_tool(tool: Tool) -> dict[str, Any]:
    """One tool of find_tools' answer: its name, description and input schema, and its
    title, annotations and output schema when its server gave them (a client reads the
    ``structuredContent`` of the call's result by the output schema)."""
    out: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": dict(tool.input_schema or {"type": "object"}),
    }
    listed = getattr(tool.definition, "tool", None)
    title = getattr(listed, "title", None)
    annotations = getattr(listed, "annotations", None)
    output_schema = getattr(listed, "output_schema", None)
    if title:
        out["title"] = title
    if annotations is not None:
        out["annotations"] = annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
    if output_schema:
        out["outputSchema"] = dict(output_schema)
    return out


def needs_task(tool: Tool) -> bool:
    """Whether a tool can only be called as a task (``execution.taskSupport: "required"``):
    the gateway does not run task-augmented calls, so it neither offers nor calls such a tool
    (docs/gateway.md, "What passes through")."""
    listed = getattr(tool.definition, "tool", None)
    execution = getattr(listed, "execution", None)
    return getattr(execution, "task_support", None) == "required"


def task_refusal(name: str) -> types.CallToolResult:
    """call_tool's answer for a tool that must run as a task."""
    return error_result(
        f'{name!r} must run as a task (its server marks it taskSupport "required"), and this '
        "gateway does not run task-augmented calls; configure its server in the client directly "
        "to use it"
    )


def error_result(message: str) -> types.CallToolResult:
    """A tool result the model reads as an error."""
    from mcp import types

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def json_result(payload: dict[str, Any]) -> types.CallToolResult:
    """A tool result holding ``payload`` as JSON text and as structured content."""
    from mcp import types

    text = json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=payload
    )
