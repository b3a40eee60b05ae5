"""toolret: semantic tool retrieval for LLM agents.

Send the model the always-on core tools plus the few the message needs, ranked by meaning in
any language; fall open to the full roster whenever anything goes wrong.
"""

from toolret.catalog import DEFAULT_DOMAIN_RANK, Catalog
from toolret.embedders import BundledE5Embedder, CachingEmbedder, Embedder, GeminiEmbedder
from toolret.errors import (
    CatalogError,
    CatalogSourceError,
    ClientStateError,
    ConfigurationError,
    DuplicateToolError,
    EmbedderError,
    EmbedderUnavailableError,
    InvalidToolNameError,
    NotIndexedError,
    StoreError,
    ToolDescriptionError,
    ToolretError,
    UnknownCoreToolError,
)
from toolret.lexical import BM25Index, tokenize
from toolret.memory import InMemoryRetriever
from toolret.selection import Mode, Ranking, Reason, Selection
from toolret.settings import Settings, make_embedder
from toolret.tool import Document, Tool, readable_identifier

__all__ = [
    "DEFAULT_DOMAIN_RANK",
    "BM25Index",
    "BundledE5Embedder",
    "CachingEmbedder",
    "Catalog",
    "CatalogError",
    "CatalogSourceError",
    "ClientStateError",
    "ConfigurationError",
    "Document",
    "DuplicateToolError",
    "Embedder",
    "EmbedderError",
    "EmbedderUnavailableError",
    "GeminiEmbedder",
    "InMemoryRetriever",
    "InvalidToolNameError",
    "Mode",
    "NotIndexedError",
    "Ranking",
    "Reason",
    "Selection",
    "Settings",
    "StoreError",
    "Tool",
    "ToolDescriptionError",
    "ToolretError",
    "UnknownCoreToolError",
    "make_embedder",
    "readable_identifier",
    "tokenize",
]
