"""Catalogs from every source, and tool definitions back out for each provider.

Sources: the ``@tool_def`` decorator (with a ``ToolRegistry`` per agent), OpenAI tool JSON (Chat
Completions and Responses shapes), Anthropic tool JSON and MCP ``tools/list`` listings. Example
requests for JSON and MCP tools come in a mapping keyed by tool name or a side file
(``load_examples``). Out: ``to_openai``, ``to_anthropic`` and ``to_gemini``, each provider's
tool definitions for a selection or any tools.
"""

from toolret.adapters._anthropic import catalog_from_anthropic, to_anthropic
from toolret.adapters._gemini import to_gemini
from toolret.adapters._mcp import McpOrigin, catalog_from_mcp, mcp_origin, mcp_tool_name
from toolret.adapters._openai import OpenAIShape, catalog_from_openai, to_openai
from toolret.adapters._registry import (
    ToolRegistry,
    default_registry,
    schema_from_signature,
    tool_def,
)
from toolret.adapters._source import load_examples

__all__ = [
    "McpOrigin",
    "OpenAIShape",
    "ToolRegistry",
    "catalog_from_anthropic",
    "catalog_from_mcp",
    "catalog_from_openai",
    "default_registry",
    "load_examples",
    "mcp_origin",
    "mcp_tool_name",
    "schema_from_signature",
    "to_anthropic",
    "to_gemini",
    "to_openai",
    "tool_def",
]
