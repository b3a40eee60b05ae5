"""Input schemas model providers refuse: an error for the application's own tools, a warning for
someone else's, each naming the tool and the JSON pointer of the fault.

The faults are the ones users met: a type misspelt (``"strng"``), ``properties`` given as a list,
``required`` naming a property that is not defined (valid JSON Schema, but Gemini refuses the
request), and a root that is not an object.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from tests.support.github_mcp import CREATE_ISSUE
from tests.support.roster_signatures import FUNCTIONS
from toolret import (
    Catalog,
    CatalogError,
    Tool,
    ToolRegistry,
    ToolSchemaError,
    catalog_from_anthropic,
    catalog_from_mcp,
    catalog_from_openai,
)

DESCRIPTION = CREATE_ISSUE + " Use it when the user reports a bug or asks for a feature."
FAULTS = [
    pytest.param(
        {"type": "object", "properties": {"title": {"type": "strng"}}},
        "/properties/title/type",
        "not valid JSON Schema",
        id="type-misspelt",
    ),
    pytest.param(
        {"type": "object", "properties": [{"name": "title", "type": "string"}]},
        "/properties",
        "not valid JSON Schema",
        id="properties-as-a-list",
    ),
    pytest.param(
        {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["titel"]},
        "/required/0",
        "Gemini refuses",
        id="required-undefined",
    ),
    pytest.param(
        {
            "type": "object",
            "properties": {
                "labels/tags": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name", "colour"],
                }
            },
        },
        "/properties/labels~1tags/required/1",
        "'colour'",
        id="required-undefined-nested",
    ),
    pytest.param({"type": "string"}, "/type", "root has type 'string'", id="root-not-an-object"),
]


def openai(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    function = {"name": "create_issue", "description": DESCRIPTION, "parameters": schema}
    return [{"type": "function", "function": function}]


def anthropic(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "create_issue", "description": DESCRIPTION, "input_schema": schema}]


def mcp(schema: Mapping[str, Any]) -> dict[str, Any]:
    tool = {"name": "create_issue", "description": DESCRIPTION, "inputSchema": schema}
    return {"github": {"tools": [tool]}}


def tool_def(schema: Mapping[str, Any]) -> Catalog:
    registry = ToolRegistry()

    @registry.tool_def(input_schema=schema)
    def create_issue() -> None:
        """Create a new issue in a GitHub repository. Use it when the user reports a bug."""

    return registry.catalog()


OWN: dict[str, Callable[[Mapping[str, Any]], Catalog]] = {
    "Tool": lambda schema: Catalog([Tool("create_issue", DESCRIPTION, input_schema=schema)]),
    "tool_def": tool_def,
    "openai": lambda schema: catalog_from_openai(openai(schema), third_party=False),
    "anthropic": lambda schema: catalog_from_anthropic(anthropic(schema), third_party=False),
    "mcp": lambda schema: catalog_from_mcp(mcp(schema), third_party=False),
}
THEIRS: dict[str, Callable[[Mapping[str, Any]], Catalog]] = {
    "openai": lambda schema: catalog_from_openai(openai(schema)),
    "anthropic": lambda schema: catalog_from_anthropic(anthropic(schema)),
    "mcp": lambda schema: catalog_from_mcp(mcp(schema)),
    "Tool": lambda schema: Catalog(
        [Tool("github__create_issue", DESCRIPTION, input_schema=schema, third_party=True)]
    ),
}


@pytest.mark.parametrize("builder", list(OWN))
@pytest.mark.parametrize(("schema", "pointer", "said"), FAULTS)
def test_the_applications_own_tool_is_refused_naming_the_tool_and_the_pointer(
    builder: str, schema: dict[str, Any], pointer: str, said: str
) -> None:
    with pytest.raises(ToolSchemaError) as raised:
        OWN[builder](schema)
    error = raised.value
    assert isinstance(error, CatalogError)
    assert error.tool in ("create_issue", "github__create_issue")
    assert error.pointer == pointer
    assert f"'{error.tool}', input schema at {pointer}:" in str(error)
    assert said in str(error)
    assert "fix the schema" in str(error)


@pytest.mark.parametrize("builder", list(THEIRS))
@pytest.mark.parametrize(("schema", "pointer", "said"), FAULTS)
def test_someone_elses_tool_is_kept_with_a_warning_naming_the_pointer(
    builder: str, schema: dict[str, Any], pointer: str, said: str
) -> None:
    catalog = THEIRS[builder](schema)
    (warning,) = catalog.warnings
    assert warning.tool in catalog
    assert (warning.kind, warning.pointer) == ("invalid_schema", pointer)
    assert said in warning.message
    assert "allowed=" in warning.message  # what the application can do
    assert catalog[warning.tool].input_schema == schema  # kept as it was sent


def test_the_warnings_are_logged_once_per_kind(caplog: pytest.LogCaptureFixture) -> None:
    tools = [
        {"name": "thin", "description": "Get it", "inputSchema": {"type": "object"}},
        {"name": "typo", "description": DESCRIPTION, "inputSchema": {"type": "strng"}},
        {"name": "both", "description": "", "inputSchema": {"type": "object", "required": 1}},
    ]
    with caplog.at_level(logging.WARNING, logger="toolret"):
        catalog = catalog_from_mcp({"logged_once": tools})
        catalog_from_mcp({"logged_once": tools})  # rebuilt: nothing new to say
    kinds = [(w.tool, w.kind) for w in catalog.warnings]
    assert kinds == [
        ("logged_once__thin", "thin_description"),
        ("logged_once__typo", "invalid_schema"),
        ("logged_once__both", "thin_description"),
        ("logged_once__both", "invalid_schema"),
    ]
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    thin, refused = lines
    assert "2 of 3 tools are third-party with a thin description" in thin
    assert "2 of 3 tools are third-party with an input schema model providers refuse" in refused
    assert "logged_once__typo, logged_once__both" in refused


def test_valid_schemas_pass_whatever_they_hold() -> None:
    schemas = [
        {"type": "object", "properties": {}, "required": []},
        {
            "type": "object",
            "properties": {"when": {"$ref": "#/$defs/When"}, "kind": {"enum": [{"required": 1}]}},
            "$defs": {"When": {"type": "object", "properties": {"at": {"type": "string"}}}},
            "required": ["when"],
            "if": {"properties": {"kind": {"const": "due"}}},
            "then": {"required": ["when"]},  # required beside no properties: not checked
        },
        {"properties": {"x": {"type": ["string", "null"], "default": {"required": ["y"]}}}},
    ]
    for schema in schemas:
        assert Catalog([Tool("create_issue", DESCRIPTION, input_schema=schema)]).warnings == ()


def test_every_schema_tool_def_writes_for_the_rosters_signatures_is_accepted() -> None:
    registry = ToolRegistry()
    for function in FUNCTIONS.values():  # nested models, Literal, Optional, Annotated notes
        registry.tool_def(agents="units")(function)
    catalog = registry.catalog("units")
    assert len(catalog) == 44
    assert all(tool.input_schema for tool in catalog)


def test_the_draft_a_schema_names_is_checked_and_no_metaschema_is_fetched(
    listener: socket.socket,
) -> None:
    tuple_items = {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": tuple_items},
    }
    assert Catalog([Tool("create_issue", DESCRIPTION, input_schema=draft7)]).warnings == ()
    unnamed = {key: value for key, value in draft7.items() if key != "$schema"}
    with pytest.raises(ToolSchemaError) as raised:  # 2020-12: items is one schema
        Catalog([Tool("create_issue", DESCRIPTION, input_schema=unnamed)])
    assert raised.value.pointer == "/properties/pair/items"

    url = f"http://127.0.0.1:{listener.getsockname()[1]}/metaschema"
    unknown = {"$schema": url, "type": "object", "properties": {"x": {"type": "x"}}}
    with pytest.raises(ToolSchemaError) as raised:  # checked as 2020-12
        Catalog([Tool("create_issue", DESCRIPTION, input_schema=unknown)])
    assert raised.value.pointer == "/properties/x/type"
    assert connections(listener) == 0


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A listening socket where a metaschema would be fetched from: the kernel takes any
    connection into its backlog, so one can be seen afterwards without serving it."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


def connections(server: socket.socket) -> int:
    """How many connections reached ``server`` (each accepted and closed)."""
    count = 0
    while True:
        try:
            accepted, _ = server.accept()
        except BlockingIOError:
            return count
        accepted.close()
        count += 1
