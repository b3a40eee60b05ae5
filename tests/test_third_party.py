"""Catalogs the application did not write are reported, not refused.

A thin description in an MCP server's listing or in provider tool JSON cannot be fixed by the
application, so it becomes a ``CatalogWarning`` (on the catalog, and counted in one line of the
"toolret.catalog" log). A
tool the application defines itself (``Tool(...)``, ``tool_def``) is still refused; invalid
names and duplicates are refused everywhere.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from tests.support.github_mcp import GET_ME, SEARCH_REPOSITORIES, THIN, github_listing
from toolret import (
    Catalog,
    CatalogWarning,
    DuplicateToolError,
    InvalidToolNameError,
    Tool,
    ToolDescriptionError,
    ToolRegistry,
    catalog_from_anthropic,
    catalog_from_mcp,
    catalog_from_openai,
    mcp_origin,
)

OWN = "Create a new record, such as a contact or a company, with its field values."


@pytest.fixture(scope="module")
def listing() -> Any:
    return asyncio.run(github_listing())


def as_json(listing: Any) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listing.tools]


def test_the_github_servers_tools_make_a_catalog_with_warnings(
    listing: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolret"):
        catalog = catalog_from_mcp({"github": listing})
    assert len(catalog) == 5
    assert all(tool.third_party for tool in catalog)
    assert mcp_origin(catalog["github__get_me"]) == ("github", "get_me")
    assert [w.tool for w in catalog.warnings] == [f"github__{name}" for name in THIN]
    first, second = catalog.warnings
    assert isinstance(first, CatalogWarning)
    assert first.kind == second.kind == "thin_description"
    assert f"{len(GET_ME)}-character" in first.message
    assert f"{len(SEARCH_REPOSITORIES)}-character" in second.message
    assert "keywords" in first.message  # what the user can do
    assert "examples" in first.message
    assert "keywords" in first.message


def test_the_thin_summary_is_logged_once_per_change_not_per_rebuild(
    listing: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A service rebuilding a registered catalog, a gateway listing its fleet again: the same
    thin tools are one line, once; a change to them is a line of its own."""
    server = "github_logged_once"  # a name no other test builds: the memory is the process's
    with caplog.at_level(logging.WARNING, logger="toolret"):
        catalog_from_mcp({server: listing})
        catalog_from_mcp({server: listing})  # rebuilt: nothing new to say
        fewer = [tool for tool in listing.tools if tool.name != "get_me"]
        catalog_from_mcp({server: fewer})  # changed: said again
    logged = [r for r in caplog.records if "thin" in r.getMessage()]
    assert [(r.name, r.levelno) for r in logged] == [("toolret.catalog", logging.WARNING)] * 2
    line = logged[0].getMessage()
    assert "2 of 5 tools" in line
    assert f"{server}__get_me" in line
    assert "toolret lint" in line
    assert "catalog.warnings" in line
    assert "1 of 4 tools" in logged[1].getMessage()


def test_a_fleet_of_thin_tools_logs_one_line_naming_a_few(
    caplog: pytest.LogCaptureFixture,
) -> None:
    thin = {
        f"server{i}": [{"name": f"tool{j}", "description": "Get it"} for j in range(9)]
        for i in range(14)
    }
    with caplog.at_level(logging.WARNING, logger="toolret"):
        catalog = catalog_from_mcp(thin)
    assert len(catalog.warnings) == 126
    (line,) = [r.getMessage() for r in caplog.records]
    assert "126 of 126 tools" in line
    assert "server0__tool0, server0__tool1, server0__tool2 and 123 more" in line


def test_a_catalog_with_no_thin_description_has_no_warnings(listing: Any) -> None:
    kept = [tool for tool in listing.tools if tool.name not in THIN]
    catalog = catalog_from_mcp({"github": kept})
    assert catalog.warnings == ()
    assert Catalog([Tool("create_record", OWN)]).warnings == ()


def test_provider_json_of_the_same_tools_warns_too(listing: Any) -> None:
    tools = as_json(listing)
    openai = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["inputSchema"],
            },
        }
        for t in tools
    ]
    anthropic = [
        {"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]}
        for t in tools
    ]
    for catalog in (catalog_from_openai(openai), catalog_from_anthropic(anthropic)):
        assert len(catalog) == 5
        assert [w.tool for w in catalog.warnings] == list(THIN)


def test_an_empty_third_party_description_is_a_warning_too() -> None:
    catalog = catalog_from_mcp({"github": [{"name": "get_me"}]})
    (warning,) = catalog.warnings
    assert warning.tool == "github__get_me"
    assert "empty" in warning.message
    assert catalog["github__get_me"].retrieval_text.strip() == "github get me"


def test_json_the_application_wrote_can_still_be_refused(listing: Any) -> None:
    with pytest.raises(ToolDescriptionError, match="github__get_me"):
        catalog_from_mcp({"github": listing}, third_party=False)
    tools = [{"type": "function", "name": "get_me", "description": GET_ME}]
    with pytest.raises(ToolDescriptionError, match="get_me"):
        catalog_from_openai(tools, third_party=False)


def test_tools_the_application_defines_are_still_refused() -> None:
    with pytest.raises(ToolDescriptionError, match="thin"):
        Catalog([Tool("get_me", GET_ME)])
    registry = ToolRegistry()

    @registry.tool_def(description=GET_ME)
    def get_me() -> None: ...

    with pytest.raises(ToolDescriptionError, match="get_me"):
        registry.catalog()


def test_own_and_third_party_tools_in_one_catalog_keep_their_own_rule(listing: Any) -> None:
    github = catalog_from_mcp({"github": listing})
    mixed = Catalog([Tool("create_record", OWN), *github.tools])
    assert [w.tool for w in mixed.warnings] == [f"github__{name}" for name in THIN]
    with pytest.raises(ToolDescriptionError, match="me_too"):
        Catalog([Tool("me_too", GET_ME), *github.tools])


def test_invalid_names_and_duplicates_still_raise_for_third_party_tools(listing: Any) -> None:
    with pytest.raises(InvalidToolNameError, match="get me"):
        catalog_from_openai([{"type": "function", "name": "get me", "description": GET_ME}])
    with pytest.raises(DuplicateToolError, match="github__get_me"):
        catalog_from_mcp([_Server("github", listing.tools), _Server("github", listing.tools)])
    thin = Tool("get_me", GET_ME, third_party=True)
    with pytest.raises(DuplicateToolError, match="get_me"):
        Catalog([thin, thin])


class _Server:
    def __init__(self, name: str, tools: Any) -> None:
        self.name = name
        self.tools = tools
