"""Catalogs from every source (decorator, OpenAI, Anthropic, MCP) and definitions back out."""

from __future__ import annotations

import importlib
import json
import logging
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import mcp.types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from toolret._catalog import Catalog
from toolret.adapters import (
    McpOrigin,
    ToolRegistry,
    catalog_from_anthropic,
    catalog_from_mcp,
    catalog_from_openai,
    default_registry,
    load_examples,
    mcp_origin,
    mcp_tool_name,
    schema_from_signature,
    to_anthropic,
    to_openai,
    tool_def,
)
from toolret.errors import (
    AmbiguousToolNameError,
    CatalogError,
    CatalogSourceError,
    DuplicateToolError,
    InvalidToolNameError,
    ToolDescriptionError,
    ToolNameCollisionError,
    UnknownCoreToolError,
)
from toolret.retrieval._selection import Mode, Selection

CREATE = "Create a new record, such as a contact or a company, with its field values."
DELETE = "Permanently delete one record, such as a contact or a company, from the CRM."
SEARCH = "Search records of any object by text or by field values and return the matching rows."
SCHEMA = {"type": "object", "properties": {"object": {"type": "string"}}, "required": ["object"]}


def chat_tool(name: str, description: str, **extra: Any) -> dict[str, Any]:
    function = {"name": name, "description": description, "parameters": SCHEMA, **extra}
    return {"type": "function", "function": function}


def responses_tool(name: str, description: str) -> dict[str, Any]:
    return {"type": "function", "name": name, "description": description, "parameters": SCHEMA}


def anthropic_tool(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": SCHEMA}


# --- OpenAI -------------------------------------------------------------------------------


def test_openai_chat_and_responses_shapes_keep_definition_and_schema() -> None:
    chat = chat_tool("create_record", CREATE, strict=True)
    responses = responses_tool("delete_record", DELETE)
    catalog = catalog_from_openai([chat, responses], domain="records")
    assert catalog.names == ["create_record", "delete_record"]
    assert catalog["create_record"].definition == chat
    assert catalog["delete_record"].definition == responses
    assert catalog["create_record"].input_schema == SCHEMA
    assert catalog["delete_record"].description == DELETE
    assert {tool.domain for tool in catalog} == {"records"}


def test_openai_definition_is_a_copy_of_the_input() -> None:
    chat = chat_tool("create_record", CREATE)
    catalog = catalog_from_openai([chat])
    chat["function"]["description"] = "changed"
    assert catalog["create_record"].definition["function"]["description"] == CREATE


def test_openai_builtin_tools_are_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolret"):
        catalog = catalog_from_openai([{"type": "web_search"}, chat_tool("create_record", CREATE)])
    assert catalog.names == ["create_record"]
    assert "tools[0]" in caplog.text
    assert "web_search" in caplog.text


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("create_record", "tools[1] is a str"),
        ({"function": {"name": "x"}}, 'tools[1] has no "type"'),
        ({"name": "x", "description": CREATE, "input_schema": {}}, "catalog_from_anthropic"),
        ({"type": "function", "function": "create"}, '"function" that is not an object'),
        ({"type": "function", "function": {"description": CREATE}}, 'tools[1] has no "name"'),
        ({"type": "function", "name": "x", "description": 7}, "description that is not a string"),
        ({"type": "function", "name": "x", "parameters": []}, "not a JSON Schema object"),
        ({"type": 3}, '"type" that is not a string'),
    ],
)
def test_openai_malformed_entries_name_their_index(entry: Any, words: str) -> None:
    with pytest.raises(CatalogSourceError, match=re.escape(words)):
        catalog_from_openai([chat_tool("create_record", CREATE), entry])


def test_openai_duplicate_names_both_entries() -> None:
    tools = [chat_tool("create_record", CREATE), responses_tool("create_record", CREATE)]
    with pytest.raises(DuplicateToolError, match=r"tools\[0\] and tools\[1\]") as raised:
        catalog_from_openai(tools)
    assert raised.value.tool == "create_record"


def test_openai_validation_errors_come_from_the_catalog() -> None:
    with pytest.raises(InvalidToolNameError, match="create record"):
        catalog_from_openai([chat_tool("create record", CREATE)])
    with pytest.raises(ToolDescriptionError, match="thin"):
        catalog_from_openai([chat_tool("create_record", "Creates.")], third_party=False)
    with pytest.raises(ToolDescriptionError, match="empty"):
        catalog_from_openai(
            [{"type": "function", "function": {"name": "create_record"}}], third_party=False
        )
    thin = catalog_from_openai([chat_tool("create_record", "Creates.")])
    assert [(w.tool, w.kind) for w in thin.warnings] == [("create_record", "thin_description")]
    with pytest.raises(UnknownCoreToolError, match="find_records"):
        catalog_from_openai([chat_tool("create_record", CREATE)], core=["find_records"])


def test_openai_core_category_keywords_and_thin_threshold() -> None:
    catalog = catalog_from_openai(
        [chat_tool("create_record", CREATE), chat_tool("find_records", "Find records.")],
        core=["find_records"],
        category={"create_record": "write"},
        keywords={"create_record": ["new row", "add"]},
        min_description_length=10,
    )
    assert [tool.name for tool in catalog.core] == ["find_records"]
    assert catalog["create_record"].category == "write"
    assert catalog["create_record"].keywords == ("new row", "add")
    assert "new row, add" in catalog["create_record"].retrieval_text


# --- examples ------------------------------------------------------------------------------


def test_examples_mapping_attaches_to_json_tools() -> None:
    catalog = catalog_from_openai(
        [chat_tool("create_record", CREATE), chat_tool("delete_record", DELETE)],
        examples={"create_record": ["add a new customer", " أضف عميلا جديدا "]},
    )
    assert catalog["create_record"].examples == ("add a new customer", "أضف عميلا جديدا")
    assert catalog["delete_record"].examples == ()
    kinds = [doc.kind for name, doc in catalog.documents() if name == "create_record"]
    assert kinds == ["description", "example", "example"]


def test_unknown_tool_in_examples_raises_with_a_suggestion() -> None:
    with pytest.raises(CatalogSourceError, match=r"'create_recrod'.*did you mean 'create_record'"):
        catalog_from_anthropic(
            [anthropic_tool("create_record", CREATE)], examples={"create_recrod": ["add a row"]}
        )


def test_unknown_tool_in_domain_mapping_raises() -> None:
    with pytest.raises(CatalogSourceError, match="domain names tool 'nope'"):
        catalog_from_openai([chat_tool("create_record", CREATE)], domain={"nope": "records"})


def test_examples_must_be_lists_of_strings() -> None:
    with pytest.raises(CatalogSourceError, match="list of strings"):
        catalog_from_openai([chat_tool("create_record", CREATE)], examples={"create_record": [1]})


def test_examples_side_file_json_and_toml(tmp_path: Path) -> None:
    as_json = tmp_path / "examples.json"
    as_json.write_text(json.dumps({"create_record": ["add a customer", "yeni müşteri ekle"]}))
    as_toml = tmp_path / "examples.toml"
    as_toml.write_text('create_record = ["add a customer", "أضف عميلا"]\n', encoding="utf-8")
    assert load_examples(as_json) == {"create_record": ("add a customer", "yeni müşteri ekle")}
    assert load_examples(as_toml) == {"create_record": ("add a customer", "أضف عميلا")}
    catalog = catalog_from_anthropic([anthropic_tool("create_record", CREATE)], examples=as_toml)
    assert catalog["create_record"].examples == ("add a customer", "أضف عميلا")


def test_examples_side_file_errors_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(CatalogSourceError, match=r"broken\.json"):
        load_examples(broken)
    with pytest.raises(CatalogSourceError, match=r"missing\.toml"):
        load_examples(tmp_path / "missing.toml")
    listed = tmp_path / "list.json"
    listed.write_text('["add a customer"]')
    with pytest.raises(CatalogSourceError, match="must map tool names"):
        load_examples(listed)


def test_examples_changes_the_corpus_hash() -> None:
    tools = [chat_tool("create_record", CREATE)]
    plain = catalog_from_openai(tools)
    with_examples = catalog_from_openai(tools, examples={"create_record": ["add a customer"]})
    assert plain.corpus_hash("m") != with_examples.corpus_hash("m")


# --- Anthropic -----------------------------------------------------------------------------


def test_anthropic_tools_keep_definition_and_schema(caplog: pytest.LogCaptureFixture) -> None:
    tool = {**anthropic_tool("create_record", CREATE), "cache_control": {"type": "ephemeral"}}
    with caplog.at_level(logging.WARNING, logger="toolret"):
        catalog = catalog_from_anthropic(
            [tool, {"type": "web_search_20250305", "name": "web_search"}]
        )
    assert catalog.names == ["create_record"]
    assert catalog["create_record"].definition == tool
    assert catalog["create_record"].input_schema == SCHEMA
    assert "web_search_20250305" in caplog.text
    assert to_anthropic(catalog) == [tool]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (chat_tool("x", CREATE), "OpenAI tool JSON"),
        ({"description": CREATE, "input_schema": SCHEMA}, 'tools[0] has no "name"'),
        ({"name": "x", "description": CREATE, "input_schema": "object"}, "not a JSON Schema"),
        (None, "tools[0] is a NoneType"),
    ],
)
def test_anthropic_malformed_entries_raise(entry: Any, words: str) -> None:
    with pytest.raises(CatalogSourceError, match=re.escape(words)):
        catalog_from_anthropic([entry])


# --- bindings ------------------------------------------------------------------------------


def test_to_openai_converts_between_shapes_keeping_extra_fields() -> None:
    chat = chat_tool("create_record", CREATE, strict=True)
    responses = responses_tool("delete_record", DELETE)
    catalog = catalog_from_openai([chat, responses])
    assert to_openai(catalog, "chat") == [chat, chat_tool("delete_record", DELETE)]
    converted = {"type": "function", **chat["function"]}
    assert to_openai(catalog, "responses") == [converted, responses]
    assert converted["strict"] is True


def test_bindings_built_from_fields_for_other_sources() -> None:
    catalog = catalog_from_anthropic([anthropic_tool("create_record", CREATE)])
    assert to_openai(catalog) == [chat_tool("create_record", CREATE)]
    assert to_openai(catalog, "responses") == [responses_tool("create_record", CREATE)]
    from_openai = catalog_from_openai([chat_tool("create_record", CREATE)])
    assert to_anthropic(from_openai) == [anthropic_tool("create_record", CREATE)]


def test_bindings_take_a_selection_in_its_order() -> None:
    catalog = catalog_from_openai(
        [chat_tool("create_record", CREATE), chat_tool("delete_record", DELETE)]
    )
    selection = Selection(catalog.subset(["delete_record"]), Mode.NARROWED)
    assert [d["function"]["name"] for d in to_openai(selection)] == ["delete_record"]
    assert [d["name"] for d in to_anthropic(selection)] == ["delete_record"]
    with pytest.raises(ValueError, match="shape"):
        to_openai(selection, "legacy")  # type: ignore[arg-type]


def test_a_tool_without_schema_binds_an_empty_object_schema() -> None:
    catalog = catalog_from_mcp({"crm": [{"name": "create_record", "description": CREATE}]})
    (definition,) = to_anthropic(catalog)
    assert definition["input_schema"] == {"type": "object", "properties": {}}
    jsonschema.Draft202012Validator.check_schema(definition["input_schema"])


# --- MCP -----------------------------------------------------------------------------------


def sdk_tool(name: str, description: str | None) -> mcp.types.Tool:
    return mcp.types.Tool(name=name, description=description, inputSchema=SCHEMA)


@dataclass
class Server:
    """Seed 002's shape: any object with ``.name`` and ``.tools``."""

    name: str
    tools: list[Any]


def test_mcp_from_sdk_objects_result_and_raw_json() -> None:
    """Read without a deprecation warning: once FastMCP is imported (PydanticAI imports it),
    the SDK's pre-v2 names (inputSchema, nextCursor) warn on every read."""
    importlib.import_module("fastmcp")
    raw = {"tools": [{"name": "post_message", "description": SEARCH, "inputSchema": SCHEMA}]}
    rpc = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"tools": [{"name": "run_query", "description": DELETE}]},
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        catalog = catalog_from_mcp(
            {
                "github": [sdk_tool("create_issue", CREATE)],
                "linear": mcp.types.ListToolsResult(tools=[sdk_tool("create_issue", DELETE)]),
                "slack": raw,
                "postgres": rpc,
            }
        )
    assert not [str(w.message) for w in caught if "deprecated" in str(w.message)]
    assert catalog.names == [
        "github__create_issue",
        "linear__create_issue",
        "slack__post_message",
        "postgres__run_query",
    ]
    assert catalog["github__create_issue"].input_schema == SCHEMA
    assert catalog["slack__post_message"].input_schema == SCHEMA
    assert catalog["postgres__run_query"].input_schema is None
    assert mcp_origin(catalog["linear__create_issue"]) == ("linear", "create_issue")
    origin = catalog["github__create_issue"].definition
    assert isinstance(origin, McpOrigin)
    assert isinstance(origin.tool, mcp.types.Tool)


def test_mcp_from_server_objects() -> None:
    servers = [Server("github", [sdk_tool("create_issue", CREATE)]), Server("slack", [])]
    catalog = catalog_from_mcp(servers)
    assert catalog.names == ["github__create_issue"]
    assert mcp_origin(catalog["github__create_issue"]) == ("github", "create_issue")


async def test_mcp_from_a_real_server_listing() -> None:
    server = MCPServer("github")

    @server.tool()
    def create_issue(repo: str, title: str) -> str:
        """Create a new issue in a GitHub repository, with a title and a body."""
        return f"{repo}: {title}"

    async with Client(server) as client:
        listing = await client.list_tools()
    catalog = catalog_from_mcp(
        {"github": listing}, examples={"github__create_issue": ["file a bug"]}
    )
    tool = catalog["github__create_issue"]
    assert tool.description.startswith("Create a new issue in a GitHub repository")
    assert tool.input_schema is not None
    assert tool.input_schema["required"] == ["repo", "title"]
    assert tool.examples == ("file a bug",)
    assert to_openai(catalog)[0]["function"]["parameters"] == tool.input_schema


def test_mcp_names_are_sanitized_and_keys_may_use_the_original_name() -> None:
    catalog = catalog_from_mcp(
        {"my.server": [sdk_tool("files/read", CREATE)]},
        examples={"my.server__files/read": ["open the file"]},
        core=["my.server__files/read"],
    )
    assert catalog.names == ["my_server__files_read"]
    tool = catalog["my_server__files_read"]
    assert tool.core
    assert tool.examples == ("open the file",)
    assert mcp_origin(tool) == ("my.server", "files/read")


def test_mcp_core_may_name_a_tool_by_its_bare_name_when_one_server_lists_it() -> None:
    servers = {
        "github": [sdk_tool("search", CREATE), sdk_tool("create_issue", CREATE)],
        "jira": [sdk_tool("search", CREATE), sdk_tool("create_ticket", CREATE)],
    }
    catalog = catalog_from_mcp(servers, core=["create_issue"], examples={"create_ticket": ["x"]})
    assert [tool.name for tool in catalog.core] == ["github__create_issue"]
    assert catalog["jira__create_ticket"].examples == ("x",)
    with pytest.raises(AmbiguousToolNameError, match="github__search, jira__search") as raised:
        catalog_from_mcp(servers, core=["search"])
    assert raised.value.candidates == ("github__search", "jira__search")
    assert raised.value.tool == "search"
    assert isinstance(raised.value, CatalogError)


def test_mcp_keys_naming_one_tool_twice_raise() -> None:
    with pytest.raises(CatalogSourceError, match="twice"):
        catalog_from_mcp(
            {"srv": [sdk_tool("a.b", CREATE)]},
            examples={"srv__a.b": ["one"], "srv__a_b": ["two"]},
        )


def test_mcp_long_names_are_cut_under_64_and_stay_unique() -> None:
    stem = "x" * 70
    catalog = catalog_from_mcp(
        {"server": [sdk_tool(stem + "_a", CREATE), sdk_tool(stem + "_b", CREATE)]}
    )
    first, second = catalog.names
    assert len(first) == len(second) == 64
    assert first != second
    assert first == mcp_tool_name("server", stem + "_a")
    assert first.startswith("server__xxx")
    assert mcp_origin(catalog[second]) == ("server", stem + "_b")


def test_mcp_collision_after_sanitizing_names_both_originals() -> None:
    with pytest.raises(ToolNameCollisionError, match=r"'read\.file'.*'read_file'") as raised:
        catalog_from_mcp({"fs": [sdk_tool("read.file", CREATE), sdk_tool("read_file", DELETE)]})
    assert raised.value.originals == ("fs__read.file", "fs__read_file")
    assert raised.value.tool == "fs__read_file"
    assert isinstance(raised.value, DuplicateToolError)


def test_mcp_collision_across_servers() -> None:
    with pytest.raises(ToolNameCollisionError, match="server 'a__b' tool 'c'"):
        catalog_from_mcp({"a__b": [sdk_tool("c", CREATE)], "a": [sdk_tool("b__c", CREATE)]})


def test_mcp_same_tool_listed_twice_is_a_duplicate() -> None:
    servers = [Server("github", [sdk_tool("create_issue", CREATE)])] * 2
    with pytest.raises(DuplicateToolError, match="github__create_issue") as raised:
        catalog_from_mcp(servers)
    assert not isinstance(raised.value, ToolNameCollisionError)


def test_mcp_thin_description_names_the_tool() -> None:
    (warning,) = catalog_from_mcp({"github": [sdk_tool("create_issue", None)]}).warnings
    assert warning.tool == "github__create_issue"
    assert "empty description" in warning.message
    with pytest.raises(ToolDescriptionError, match="github__create_issue"):
        catalog_from_mcp({"github": [sdk_tool("create_issue", None)]}, third_party=False)


@pytest.mark.parametrize(
    ("servers", "words"),
    [
        ({"": []}, "server name"),
        ({"github": 42}, "expected a tools/list result"),
        ({"github": {"error": {"code": -1}}}, "answered tools/list with an error"),
        ({"github": {"tools": [], "nextCursor": "2"}}, "one page of several"),
        ({"github": [{"description": CREATE}]}, r"server 'github' tools\[0\] has no \"name\""),
        ([object()], "has no .name and .tools"),
    ],
)
def test_mcp_malformed_listings_raise(servers: Any, words: str) -> None:
    with pytest.raises(CatalogSourceError, match=words):
        catalog_from_mcp(servers)


def test_mcp_sdk_result_with_a_next_page_raises() -> None:
    page = mcp.types.ListToolsResult(tools=[sdk_tool("a", CREATE)], nextCursor="page-2")
    with pytest.raises(CatalogSourceError, match="nextCursor"):
        catalog_from_mcp({"github": page})


# --- decorator and registry ----------------------------------------------------------------


class Money:
    """A type with no simple JSON Schema."""


def test_decorator_on_a_function_derives_name_description_and_schema() -> None:
    registry = ToolRegistry()

    @registry.tool_def(agents="units", domain="records", keywords="new row", examples="add a deal")
    async def create_record(
        object_name: Annotated[str, "the object to add to, e.g. 'companies'"],
        values: dict[str, str],
        tags: list[str] | None = None,
        mode: Literal["draft", "final"] = "final",
        count: int = 1,
        ratio: float = 1.0,
        notify: bool = False,
    ) -> str:
        """Create a new record, such as a contact or a company.

        Values are given per field.
        """
        return object_name

    tool = registry["create_record"]
    assert tool.definition is create_record
    assert tool.description == (
        "Create a new record, such as a contact or a company.\n\nValues are given per field."
    )
    assert tool.agents == ("units",)
    assert tool.keywords == ("new row",)
    assert tool.examples == ("add a deal",)
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "object_name": {
                "type": "string",
                "description": "the object to add to, e.g. 'companies'",
            },
            "values": {"type": "object", "additionalProperties": {"type": "string"}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"type": "string", "enum": ["draft", "final"], "default": "final"},
            "count": {"type": "integer", "default": 1},
            "ratio": {"type": "number", "default": 1.0},
            "notify": {"type": "boolean", "default": False},
        },
        "required": ["object_name", "values"],
    }
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)


def test_decorator_on_classes() -> None:
    registry = ToolRegistry()

    @registry.tool_def(domain="records")
    class DeleteRecord(BaseModel):
        """Permanently delete one record, such as a contact or a company, from the CRM."""

        record_id: str

    @registry.tool_def(name="link_records", domain="relations")
    @dataclass
    class Link:
        """Link two records through a relation field, such as a contact to its company."""

        source: str
        target: str
        relation: str = "default"

    schema_tool = {"type": "object", "properties": {"query": {"type": "string"}}}

    @registry.tool_def(name="search", input_schema=schema_tool)
    class SearchTool:
        """Search records of any object by text or by field values and return rows."""

        def __init__(self, repository: object) -> None:
            self.repository = repository

    catalog = registry.catalog()
    assert catalog.names == ["DeleteRecord", "link_records", "search"]
    delete = catalog["DeleteRecord"]
    assert delete.definition is DeleteRecord
    assert delete.input_schema is not None
    assert delete.input_schema["required"] == ["record_id"]
    assert catalog["link_records"].input_schema == {
        "type": "object",
        "properties": {
            "source": {"type": "string"},
            "target": {"type": "string"},
            "relation": {"type": "string", "default": "default"},
        },
        "required": ["source", "target"],
    }
    assert catalog["search"].input_schema == schema_tool


def test_decorator_rejects_a_type_with_no_simple_schema() -> None:
    registry = ToolRegistry()

    def charge(amount: Money) -> None:
        """Charge the customer's card for an amount of money, in the account currency."""

    with pytest.raises(CatalogSourceError, match=r"'amount'.*input_schema"):
        registry.tool_def()(charge)
    assert "charge" not in registry
    registry.tool_def(input_schema={"type": "object"})(charge)
    assert registry["charge"].input_schema == {"type": "object"}


def test_schema_from_signature_skips_self_and_var_arguments() -> None:
    class Tools:
        def archive(self, record_id: str, *args: str, **kwargs: str) -> None:
            """Archive a record."""

    assert schema_from_signature(Tools.archive) == {
        "type": "object",
        "properties": {"record_id": {"type": "string"}},
        "required": ["record_id"],
    }


def test_registry_catalog_per_agent() -> None:
    registry = ToolRegistry()

    @registry.tool_def(agents=("units",), domain="records")
    def create_record(object_name: str) -> None:
        """Create a new record, such as a contact or a company, with its field values."""

    @registry.tool_def(agents=("builder",), domain="objects")
    def create_object(name: str) -> None:
        """Create a new object (a table) in the workspace, such as Projects or Invoices."""

    @registry.tool_def(domain="meta", core=True)
    def inspect_schema() -> None:
        """Show the objects of the workspace and the fields on each, with their types."""

    units = registry.catalog("units")
    assert units.names == ["create_record", "inspect_schema"]
    assert [tool.name for tool in units.core] == ["inspect_schema"]
    assert registry.catalog("builder").names == ["create_object", "inspect_schema"]
    assert registry.catalog().names == ["create_record", "create_object", "inspect_schema"]
    assert registry.agents == ["builder", "units"]
    with pytest.raises(CatalogSourceError, match=r"'unitz'.*builder"):
        registry.catalog("unitz")
    assert isinstance(registry.catalog("units", core=["create_record"]), Catalog)


def test_module_level_tool_def_registers_into_the_given_registry() -> None:
    registry = ToolRegistry()

    @tool_def(registry=registry, agents=["units", "builder"], keywords=["a", "b"])
    def create_record() -> None:
        """Create a new record, such as a contact or a company, with its field values."""

    assert registry["create_record"].agents == ("units", "builder")
    assert registry["create_record"].keywords == ("a", "b")
    assert "create_record" not in default_registry


def test_registry_duplicate_names_both_places() -> None:
    registry = ToolRegistry()

    @registry.tool_def(name="create_record")
    def first() -> None:
        """Create a new record, such as a contact or a company, with its field values."""

    def second() -> None:
        """Create a new record, such as a contact or a company, with its field values."""

    with pytest.raises(
        DuplicateToolError, match=r"first \(.*test_adapters.py:\d+\).*second"
    ) as raised:
        registry.tool_def(name="create_record")(second)
    assert raised.value.tool == "create_record"
    registry.tool_def(name="create_record")(first)
    assert len(registry) == 1


def test_registry_validates_when_the_catalog_is_built() -> None:
    registry = ToolRegistry()

    @registry.tool_def(name="create record")
    def create() -> None:
        """Create a new record, such as a contact or a company, with its field values."""

    with pytest.raises(InvalidToolNameError):
        registry.catalog()
    thin = ToolRegistry()

    @thin.tool_def()
    def archive_record() -> None:
        pass

    with pytest.raises(ToolDescriptionError, match="empty"):
        thin.catalog()
    with pytest.raises(UnknownCoreToolError):
        ToolRegistry().catalog(core=["nope"])
