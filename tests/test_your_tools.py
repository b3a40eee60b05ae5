"""Whose tool it is, in the integrations: tools read from the user's own agent are theirs.

A PydanticAI function, an Agents SDK function tool or a LangChain tool with a thin description is
kept (the hook that reads it must not fail a turn), and the warning calls it one of the user's
tools, never third-party, and gives advice an integration user can follow: where to write the
description, and a call that lints what the integration sees (``toolret.lint_catalog`` on the
integration's catalog function), which this test makes. An MCP server's tools stay third-party.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from toolret import BundledE5Embedder, InMemoryRetriever, lint_catalog

CATALOG_LOG = "toolret.catalog"


def delete_invoice(invoice_id: str) -> str:
    """Delete."""
    return "deleted"


def archive_invoice(invoice_id: str) -> str:
    """Move one invoice to the archive, where it is kept read-only and out of every list."""
    return "archived"


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == CATALOG_LOG]


def _yours(message: str, framework: str, function: str) -> None:
    assert "third-party" not in message
    assert "outside the application" not in message
    assert f"your {framework} agent" in message
    assert "toolret lint --catalog" not in message
    assert f"`await toolret.lint_catalog({function}(tools))`" in message


async def _linted(catalog: Any) -> list[tuple[str, str, str]]:
    report = await lint_catalog(catalog, BundledE5Embedder())
    return [(f.kind, f.severity, f.tool) for f in report.findings if f.kind == "thin_description"]


async def test_a_pydantic_ai_agents_thin_function_is_called_yours(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from toolret.integrations.pydantic_ai import ToolRetrieval, catalog_from_pydantic_ai

    caplog.set_level(logging.WARNING, CATALOG_LOG)
    async with InMemoryRetriever() as retriever:
        agent = Agent(TestModel(call_tools=[]), tools=[delete_invoice, archive_invoice],
                      capabilities=[ToolRetrieval(retriever)])  # fmt: skip
        await agent.run("Delete invoice 42")
    (line,) = _lines(caplog)  # read from the agent by the capability's hook, kept
    _yours(line, "PydanticAI", "catalog_from_pydantic_ai")
    assert "delete_invoice" in line

    catalog = catalog_from_pydantic_ai([delete_invoice, archive_invoice])  # what the advice says
    (warning,) = catalog.warnings
    _yours(warning.message, "PydanticAI", "catalog_from_pydantic_ai")
    assert "its docstring" in warning.message
    assert await _linted(catalog) == [("thin_description", "warning", "delete_invoice")]


def test_an_mcp_servers_tool_in_a_pydantic_ai_catalog_stays_third_party() -> None:
    from pydantic_ai.tools import ToolDefinition

    from toolret.integrations.pydantic_ai import catalog_from_pydantic_ai

    schema = {"type": "object", "properties": {}}
    listed = ToolDefinition(name="send_fax", parameters_json_schema=schema, description="Send.")
    (warning,) = catalog_from_pydantic_ai([listed, archive_invoice]).warnings
    assert "comes from outside the application" in warning.message


async def test_an_agents_sdk_thin_function_tool_is_called_yours() -> None:
    from agents import function_tool

    from toolret.integrations.openai_agents import catalog_from_openai_agents

    catalog = catalog_from_openai_agents([function_tool(delete_invoice)])
    (warning,) = catalog.warnings
    _yours(warning.message, "OpenAI Agents SDK", "catalog_from_openai_agents")
    assert catalog["delete_invoice"].third_party is False


async def test_a_langchain_thin_tool_is_called_yours(caplog: pytest.LogCaptureFixture) -> None:
    from langchain_core.tools import tool

    from toolret.integrations.langchain import catalog_from_langchain

    caplog.set_level(logging.WARNING, CATALOG_LOG)

    @tool
    def void_invoice(invoice_id: str) -> str:
        """Void."""
        return "voided"

    catalog = catalog_from_langchain([void_invoice, tool(archive_invoice)])
    (warning,) = catalog.warnings
    _yours(warning.message, "LangChain", "catalog_from_langchain")
    (line,) = _lines(caplog)
    _yours(line, "LangChain", "catalog_from_langchain")
    assert "your LangChain agent's, with a thin description (void_invoice)" in line
