"""toolret: semantic tool retrieval for LLM agents.

Send the model the always-on core tools plus the few the message needs, ranked by meaning in
any language; fall open to the full roster whenever anything goes wrong.

What an integrator uses is here: the client (Postgres) and the in-memory retriever, the
catalog and its adapters, the selection and its reasons, find_tools, the per-round hook, the
error tree and the embedder protocol. ``import toolret`` loads only the errors; everything else
is imported on first use (PEP 562), so an application pays for what it touches. Internals
(the store, the lexical index, the queue, payloads, the embedded Postgres) stay importable from
their own modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolret.errors import (
    CatalogError,
    CatalogSourceError,
    ClientStateError,
    ConfigurationError,
    CorpusIncompleteError,
    DuplicateToolError,
    EmbedderError,
    EmbedderUnavailableError,
    InvalidToolNameError,
    NotIndexedError,
    QueueError,
    SchemaMissingError,
    StoreError,
    ToolDescriptionError,
    ToolNameCollisionError,
    ToolretError,
    ToolTextError,
    UnknownCoreToolError,
)

if TYPE_CHECKING:
    from toolret.adapters import (
        McpOrigin,
        ToolRegistry,
        catalog_from_anthropic,
        catalog_from_mcp,
        catalog_from_openai,
        default_registry,
        load_examples,
        mcp_origin,
        to_anthropic,
        to_openai,
        tool_def,
    )
    from toolret.catalog import Catalog, CatalogWarning
    from toolret.client import ToolRetrievalClient
    from toolret.embedders import BundledE5Embedder, Embedder, GeminiEmbedder, InputWindow
    from toolret.embedders.base import Vector, Vectors
    from toolret.find_tools import (
        FIND_TOOLS_NAME,
        ToolFinder,
        answer_find_tools,
        discovered_tool_names,
        find_tools_definition,
    )
    from toolret.indexing import IndexReport
    from toolret.integrations.anthropic import (
        answer_anthropic_search,
        anthropic_preselection,
        anthropic_tools,
        loaded_tool_names,
    )
    from toolret.integrations.langchain import ToolRetrievalMiddleware, catalog_from_langchain
    from toolret.integrations.openai import (
        answer_responses_search,
        called_tool_name,
        responses_tools,
    )
    from toolret.lint import LintFinding, LintReport, lint_catalog
    from toolret.memory import InMemoryRetriever
    from toolret.profile import RetrievalProfile
    from toolret.rounds import make_per_round_retrieve
    from toolret.selection import Mode, Reason, Selection
    from toolret.settings import Settings
    from toolret.stable import StableToolList
    from toolret.store.migrate import upgrade_database
    from toolret.tool import Role, Tool

_LAZY: dict[str, str] = {
    # retrievers
    "ToolRetrievalClient": "toolret.client",
    "InMemoryRetriever": "toolret.memory",
    "Settings": "toolret.settings",
    "IndexReport": "toolret.indexing",
    # the catalog doctor
    "lint_catalog": "toolret.lint",
    "LintReport": "toolret.lint",
    "LintFinding": "toolret.lint",
    "upgrade_database": "toolret.store.migrate",
    "RetrievalProfile": "toolret.profile",
    # the catalog and its adapters
    "Catalog": "toolret.catalog",
    "CatalogWarning": "toolret.catalog",
    "Tool": "toolret.tool",
    "ToolRegistry": "toolret.adapters",
    "tool_def": "toolret.adapters",
    "default_registry": "toolret.adapters",
    "catalog_from_openai": "toolret.adapters",
    "catalog_from_anthropic": "toolret.adapters",
    "catalog_from_mcp": "toolret.adapters",
    "to_openai": "toolret.adapters",
    "to_anthropic": "toolret.adapters",
    "load_examples": "toolret.adapters",
    "McpOrigin": "toolret.adapters",
    "mcp_origin": "toolret.adapters",
    # the selection and its reasons
    "Selection": "toolret.selection",
    "Mode": "toolret.selection",
    "Reason": "toolret.selection",
    # find_tools and the per-round hook
    "FIND_TOOLS_NAME": "toolret.find_tools",
    "ToolFinder": "toolret.find_tools",
    "answer_find_tools": "toolret.find_tools",
    "discovered_tool_names": "toolret.find_tools",
    "find_tools_definition": "toolret.find_tools",
    "make_per_round_retrieve": "toolret.rounds",
    # prompt-cache-stable tool lists, and where agents are built
    "StableToolList": "toolret.stable",
    "anthropic_tools": "toolret.integrations.anthropic",
    "answer_anthropic_search": "toolret.integrations.anthropic",
    "anthropic_preselection": "toolret.integrations.anthropic",
    "loaded_tool_names": "toolret.integrations.anthropic",
    "responses_tools": "toolret.integrations.openai",
    "answer_responses_search": "toolret.integrations.openai",
    "called_tool_name": "toolret.integrations.openai",
    "ToolRetrievalMiddleware": "toolret.integrations.langchain",
    "catalog_from_langchain": "toolret.integrations.langchain",
    # embedders
    "Embedder": "toolret.embedders",
    "BundledE5Embedder": "toolret.embedders",
    "GeminiEmbedder": "toolret.embedders",
    "InputWindow": "toolret.embedders",
    "Role": "toolret.tool",
    "Vector": "toolret.embedders.base",
    "Vectors": "toolret.embedders.base",
}

__all__ = [
    "FIND_TOOLS_NAME",
    "BundledE5Embedder",
    "Catalog",
    "CatalogError",
    "CatalogSourceError",
    "CatalogWarning",
    "ClientStateError",
    "ConfigurationError",
    "CorpusIncompleteError",
    "DuplicateToolError",
    "Embedder",
    "EmbedderError",
    "EmbedderUnavailableError",
    "GeminiEmbedder",
    "InMemoryRetriever",
    "IndexReport",
    "InputWindow",
    "InvalidToolNameError",
    "LintFinding",
    "LintReport",
    "McpOrigin",
    "Mode",
    "NotIndexedError",
    "QueueError",
    "Reason",
    "RetrievalProfile",
    "Role",
    "SchemaMissingError",
    "Selection",
    "Settings",
    "StableToolList",
    "StoreError",
    "Tool",
    "ToolDescriptionError",
    "ToolFinder",
    "ToolNameCollisionError",
    "ToolRegistry",
    "ToolRetrievalClient",
    "ToolRetrievalMiddleware",
    "ToolTextError",
    "ToolretError",
    "UnknownCoreToolError",
    "Vector",
    "Vectors",
    "answer_anthropic_search",
    "answer_find_tools",
    "answer_responses_search",
    "anthropic_preselection",
    "anthropic_tools",
    "called_tool_name",
    "catalog_from_anthropic",
    "catalog_from_langchain",
    "catalog_from_mcp",
    "catalog_from_openai",
    "default_registry",
    "discovered_tool_names",
    "find_tools_definition",
    "lint_catalog",
    "load_examples",
    "loaded_tool_names",
    "make_per_round_retrieve",
    "mcp_origin",
    "responses_tools",
    "to_anthropic",
    "to_openai",
    "tool_def",
    "upgrade_database",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use, and keep the name here afterwards."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolret' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
