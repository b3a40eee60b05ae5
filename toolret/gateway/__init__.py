"""``toolret gateway``: one MCP server in front of many, answering find_tools through toolret.

Needs ``toolret[gateway]`` (the MCP SDK's server and client, 2.x).

- ``config``: the ``mcpServers`` JSON MCP clients already use (stdio and streamable HTTP).
- ``upstream``: one upstream server kept connected, listed and watched by a supervisor task;
  ``stdio`` (its child process, and how it exited), ``noticing`` (a connection that ends),
  ``health`` (a server that stops answering: a ping), ``logs`` (its log messages on stderr),
  ``warnings`` (each warning once per start per cause).
- ``gateway``: every upstream's tools in one catalog, indexed; readiness; call routing;
  ``finding``: find_tools' answer, by meaning or by BM25 saying so.
- ``exposed``: the gateway's own tools (core, find_tools, call_tool) and their answers' shapes.
- ``traffic``: what a connection searched and called: find_tools misses, tools used together.
- ``proxy``: every upstream's resources, resource templates and prompts, namespaced.
- ``server``: the MCP server clients talk to; ``capabilities``: what it says it offers;
  ``http``: it over streamable HTTP (probes, tokens, the body limit).
- ``runner``: what ``toolret gateway`` runs.
"""

from toolret._extras import require

require("gateway", "mcp", "starlette", "uvicorn", purpose="toolret gateway")
