"""Five tools shaped like the GitHub MCP server's, served by a real MCP server in process.

Their descriptions are as terse as the real server's: ``get_me`` (38 characters) and
``search_repositories`` (30) are under toolret's 40-character minimum, which a user cannot fix
in a server they did not write.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import Field

GET_ME = "Get details of the authenticated user."
SEARCH_REPOSITORIES = "Search for GitHub repositories"
CREATE_ISSUE = "Create a new issue in a GitHub repository."
LIST_PULL_REQUESTS = "List pull requests in a GitHub repository."
GET_FILE_CONTENTS = "Get the contents of a file or directory from a GitHub repository"
THIN = ("get_me", "search_repositories")
"""The two whose descriptions are under 40 characters."""

Owner = Annotated[str, Field(description="Repository owner")]
Repo = Annotated[str, Field(description="Repository name")]
Page = Annotated[int | None, Field(description="Page number for pagination (min 1)")]
PerPage = Annotated[int | None, Field(description="Results per page for pagination (max 100)")]


def github_server() -> MCPServer:
    """An MCP server named ``github`` listing the five tools (their bodies are never called)."""
    server = MCPServer("github")

    @server.tool(description=GET_ME)
    def get_me(reason: Annotated[str | None, Field(description="Why you need it")] = None) -> str:
        return "octocat"

    @server.tool(description=SEARCH_REPOSITORIES)
    def search_repositories(
        query: Annotated[str, Field(description="Search query")],
        page: Page = None,
        perPage: PerPage = None,
    ) -> str:
        return query

    @server.tool(description=CREATE_ISSUE)
    def create_issue(
        owner: Owner,
        repo: Repo,
        title: Annotated[str, Field(description="Issue title")],
        body: Annotated[str | None, Field(description="Issue body content")] = None,
        assignees: Annotated[list[str] | None, Field(description="Usernames to assign")] = None,
        labels: Annotated[list[str] | None, Field(description="Labels to apply")] = None,
    ) -> str:
        return title

    @server.tool(description=LIST_PULL_REQUESTS)
    def list_pull_requests(
        owner: Owner,
        repo: Repo,
        state: Literal["open", "closed", "all"] | None = None,
        base: Annotated[str | None, Field(description="Filter by base branch")] = None,
        page: Page = None,
        perPage: PerPage = None,
    ) -> str:
        return repo

    @server.tool(description=GET_FILE_CONTENTS)
    def get_file_contents(
        owner: Owner,
        repo: Repo,
        path: Annotated[str, Field(description="Path to file/directory")],
        branch: Annotated[str | None, Field(description="Branch to get contents from")] = None,
    ) -> str:
        return path

    return server


async def github_listing() -> Any:
    """The server's ``tools/list`` result, as the MCP SDK's client returns it."""
    async with Client(github_server()) as client:
        return await client.list_tools()
