"""``toolret gateway``: one MCP server in front of many, answering find_tools through toolret.

Needs ``toolret[gateway]`` (the MCP SDK's server and client, 2.x).

- ``config``: the ``mcpServers`` JSON MCP clients already use (stdio and streamable HTTP).
- ``upstream``: one upstream server kept connected, listed and watched by a supervisor task.
- ``gateway``: every upstream's tools in one catalog, indexed; readiness; find_tools and call
  routing.
- ``exposed``: the gateway's own tools (core, find_tools, call_tool) and their answers' shapes.
- ``traffic``: what a connection searched and called: find_tools misses, tools used together.
- ``proxy``: every upstream's resources, resource templates and prompts, namespaced.
- ``server``: the MCP server clients talk to, over stdio and streamable HTTP (with probes).
- ``runner``: what ``toolret gateway`` runs.
"""

from toolret._extras import require

require("gateway", "mcp", "starlette", "uvicorn", purpose="toolret gateway")
