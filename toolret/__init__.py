"""toolret: semantic tool retrieval for LLM agents.

Send the model the always-on core tools plus the few the message needs, ranked by meaning in
any language; fall open to the full roster whenever anything goes wrong.
"""

import importlib
from typing import Any

from toolret import tokens
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
    to_anthropic,
    to_openai,
    tool_def,
)
from toolret.catalog import DEFAULT_DOMAIN_RANK, Catalog
from toolret.client import ToolRetrievalClient
from toolret.embedded_pg import local_database_url
from toolret.embedders import (
    BundledE5Embedder,
    CachingEmbedder,
    Embedder,
    GeminiEmbedder,
    InputWindow,
)
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
from toolret.find_tools import (
    FIND_TOOLS_NAME,
    MAX_DISCOVERED_TOOLS,
    ToolFinder,
    answer_find_tools,
    discovered_tool_names,
    find_tools_definition,
)
from toolret.indexing import IndexReport, index_catalog
from toolret.integrations.anthropic import (
    answer_anthropic_search,
    anthropic_preselection,
    anthropic_tools,
    loaded_tool_names,
)
from toolret.integrations.openai import (
    answer_responses_search,
    called_tool_name,
    responses_tools,
)
from toolret.lexical import BM25Index, tokenize
from toolret.memory import InMemoryRetriever
from toolret.payload import from_payload, to_payload
from toolret.queue import ReindexQueue
from toolret.rounds import make_per_round_retrieve
from toolret.schema import upgrade_database
from toolret.selection import Mode, Ranking, Reason, Selection
from toolret.settings import Settings, make_embedder
from toolret.stable import StableToolList
from toolret.store import VectorStore
from toolret.store_types import GCReport, StoreStatus
from toolret.tool import Document, Tool, readable_identifier

_LAZY = {
    "ToolRetrievalMiddleware": "toolret.integrations.langchain",
    "catalog_from_langchain": "toolret.integrations.langchain",
}
"""Names whose module imports an optional framework: loaded on first access."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolret' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "DEFAULT_DOMAIN_RANK",
    "FIND_TOOLS_NAME",
    "MAX_DISCOVERED_TOOLS",
    "BM25Index",
    "BundledE5Embedder",
    "CachingEmbedder",
    "Catalog",
    "CatalogError",
    "CatalogSourceError",
    "ClientStateError",
    "ConfigurationError",
    "CorpusIncompleteError",
    "Document",
    "DuplicateToolError",
    "Embedder",
    "EmbedderError",
    "EmbedderUnavailableError",
    "GCReport",
    "GeminiEmbedder",
    "InMemoryRetriever",
    "IndexReport",
    "InputWindow",
    "InvalidToolNameError",
    "McpOrigin",
    "Mode",
    "NotIndexedError",
    "QueueError",
    "Ranking",
    "Reason",
    "ReindexQueue",
    "SchemaMissingError",
    "Selection",
    "Settings",
    "StableToolList",
    "StoreError",
    "StoreStatus",
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
    "VectorStore",
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
    "from_payload",
    "index_catalog",
    "load_examples",
    "loaded_tool_names",
    "local_database_url",
    "make_embedder",
    "make_per_round_retrieve",
    "mcp_origin",
    "mcp_tool_name",
    "readable_identifier",
    "responses_tools",
    "to_anthropic",
    "to_openai",
    "to_payload",
    "tokenize",
    "tokens",
    "tool_def",
    "upgrade_database",
]
