"""toolret: semantic tool retrieval for LLM agents.

Send the model the always-on core tools plus the few the message needs, ranked by meaning in
any language; fall open to the full roster whenever anything goes wrong.
"""

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
from toolret.embedders import BundledE5Embedder, CachingEmbedder, Embedder, GeminiEmbedder
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
    StoreError,
    ToolDescriptionError,
    ToolNameCollisionError,
    ToolretError,
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
from toolret.lexical import BM25Index, tokenize
from toolret.memory import InMemoryRetriever
from toolret.payload import from_payload, to_payload
from toolret.profile import RetrievalProfile, ToolScore
from toolret.queue import ReindexQueue
from toolret.rounds import make_per_round_retrieve
from toolret.schema import upgrade_database
from toolret.selection import Mode, Ranking, Reason, Selection
from toolret.settings import Settings, make_embedder
from toolret.store import VectorStore
from toolret.store_types import GCReport, StoreStatus
from toolret.tool import Document, Tool, readable_identifier

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
    "InvalidToolNameError",
    "McpOrigin",
    "Mode",
    "NotIndexedError",
    "QueueError",
    "Ranking",
    "Reason",
    "ReindexQueue",
    "RetrievalProfile",
    "Selection",
    "Settings",
    "StoreError",
    "StoreStatus",
    "Tool",
    "ToolDescriptionError",
    "ToolFinder",
    "ToolNameCollisionError",
    "ToolRegistry",
    "ToolRetrievalClient",
    "ToolScore",
    "ToolretError",
    "UnknownCoreToolError",
    "VectorStore",
    "answer_find_tools",
    "catalog_from_anthropic",
    "catalog_from_mcp",
    "catalog_from_openai",
    "default_registry",
    "discovered_tool_names",
    "find_tools_definition",
    "from_payload",
    "index_catalog",
    "load_examples",
    "local_database_url",
    "make_embedder",
    "make_per_round_retrieve",
    "mcp_origin",
    "mcp_tool_name",
    "readable_identifier",
    "to_anthropic",
    "to_openai",
    "to_payload",
    "tokenize",
    "tool_def",
    "upgrade_database",
]
