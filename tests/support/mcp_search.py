"""An MCP server of the user's with a tool named ``find_tools``, the name of toolret's own tool
search, run over stdio (``python -m tests.support.mcp_search``): what an integration must refuse
beside its find_tools, and what the gateway lists as ``search__find_tools``."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

__all__ = ["search_server"]


def search_server() -> MCPServer:
    """The wiki: its own find_tools, and one page reader."""
    server = MCPServer("search", log_level="WARNING")

    @server.tool(description="Find the wiki pages that document one of the team's internal tools.")
    def find_tools(query: Annotated[str, Field(description="Words to look for")]) -> str:
        return f"no page documents {query}"

    @server.tool(description="Read one wiki page, as Markdown, by its title.")
    def read_page(title: Annotated[str, Field(description="The page's title")]) -> str:
        return f"# {title}"

    return server


if __name__ == "__main__":
    search_server().run("stdio")
