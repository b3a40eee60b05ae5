"""toolret: semantic tool retrieval for LLM agents.

Send the model the always-on core tools plus the few the message needs, ranked by meaning in
any language; fall open to the full roster whenever anything goes wrong.

What an integrator uses is here: the client (Postgres), the in-memory retriever and their base,
the catalog, its adapters and each provider's tool definitions (``to_openai``, ``to_anthropic``,
``to_gemini``), the selection and its reasons, find_tools, the per-round hook, routing to
agents, the error tree (every name of ``toolret.errors.__all__``) and the embedder protocol.
Each integration's helpers are exported from its own module, all of them from there:
``toolret.integrations.anthropic``, ``.openai``, ``.gemini`` and ``.langchain``.
``import toolret`` loads only the errors; everything else is imported on first use (PEP 562), so
an application pays for what it touches.
Internals (the store, the lexical index, the queue, payloads, the embedded Postgres) stay
importable from their own modules.

``_PUBLIC`` is the one list of public names, by the module that defines them: ``__all__`` and
the lazy imports are derived from it. The ``TYPE_CHECKING`` block repeats it for type checkers,
which cannot read a mapping; a test keeps the two equal.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolret import errors as _errors

_PUBLIC: dict[str, tuple[str, ...]] = {
    # the error tree, imported with the package
    "toolret.errors": tuple(_errors.__all__),
    # retrievers
    "toolret.retrieval._base": ("Retriever",),
    "toolret.retrieval._client": ("ToolRetrievalClient",),
    "toolret.retrieval._memory": ("InMemoryRetriever",),
    "toolret._settings": ("Settings",),
    "toolret.indexing._run": ("IndexReport",),
    # the catalog doctor
    "toolret.authoring._lint": (
        "lint_catalog",
        "LintReport",
        "LintFinding",
    ),
    "toolret.store._migrate": ("upgrade_database",),
    "toolret._profile": ("RetrievalProfile",),
    # the catalog and its adapters
    "toolret._catalog": (
        "Catalog",
        "CatalogWarning",
    ),
    "toolret._tool": ("Tool", "Role"),
    "toolret.adapters": (
        "ToolRegistry",
        "tool_def",
        "default_registry",
        "catalog_from_openai",
        "catalog_from_anthropic",
        "catalog_from_mcp",
        "to_openai",
        "to_anthropic",
        "to_gemini",
        "load_examples",
        "McpOrigin",
        "mcp_origin",
    ),
    # the selection and its reasons
    "toolret.retrieval._selection": (
        "Selection",
        "Mode",
        "Reason",
    ),
    # find_tools and the per-round hook
    "toolret.retrieval._find_tools": (
        "FIND_TOOLS_NAME",
        "answer_find_tools",
        "discovered_tool_names",
        "find_tools_definition",
    ),
    "toolret.retrieval._rounds": ("make_per_round_retrieve",),
    # routing a message to agents
    "toolret.retrieval._routing": ("agent_catalog", "route"),
    # prompt-cache-stable tool lists, and token counts
    "toolret.retrieval._stable": ("StableToolList",),
    "toolret.retrieval._tokens": ("load_tokenizer",),
    # embedders
    "toolret.embedders": (
        "Embedder",
        "BundledE5Embedder",
        "GeminiEmbedder",
        "OpenAIEmbedder",
        "AzureOpenAIEmbedder",
        "InputWindow",
    ),
    "toolret.embedders._base": (
        "Vector",
        "Vectors",
    ),
}

_LAZY = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = sorted(_LAZY)

for _name in _PUBLIC["toolret.errors"]:
    globals()[_name] = getattr(_errors, _name)

if TYPE_CHECKING:
    from toolret._catalog import (
        Catalog as Catalog,
        CatalogWarning as CatalogWarning,
    )
    from toolret._profile import (
        RetrievalProfile as RetrievalProfile,
    )
    from toolret._settings import (
        Settings as Settings,
    )
    from toolret._tool import (
        Role as Role,
        Tool as Tool,
    )
    from toolret.adapters import (
        McpOrigin as McpOrigin,
        ToolRegistry as ToolRegistry,
        catalog_from_anthropic as catalog_from_anthropic,
        catalog_from_mcp as catalog_from_mcp,
        catalog_from_openai as catalog_from_openai,
        default_registry as default_registry,
        load_examples as load_examples,
        mcp_origin as mcp_origin,
        to_anthropic as to_anthropic,
        to_gemini as to_gemini,
        to_openai as to_openai,
        tool_def as tool_def,
    )
    from toolret.authoring._lint import (
        LintFinding as LintFinding,
        LintReport as LintReport,
        lint_catalog as lint_catalog,
    )
    from toolret.embedders import (
        AzureOpenAIEmbedder as AzureOpenAIEmbedder,
        BundledE5Embedder as BundledE5Embedder,
        Embedder as Embedder,
        GeminiEmbedder as GeminiEmbedder,
        InputWindow as InputWindow,
        OpenAIEmbedder as OpenAIEmbedder,
    )
    from toolret.embedders._base import (
        Vector as Vector,
        Vectors as Vectors,
    )
    from toolret.errors import (
        AllowedToolsError as AllowedToolsError,
        AmbiguousToolNameError as AmbiguousToolNameError,
        CatalogError as CatalogError,
        CatalogSourceError as CatalogSourceError,
        ClientStateError as ClientStateError,
        ConfigurationError as ConfigurationError,
        CorpusIncompleteError as CorpusIncompleteError,
        DuplicateToolError as DuplicateToolError,
        EmbedderError as EmbedderError,
        EmbedderUnavailableError as EmbedderUnavailableError,
        InvalidToolNameError as InvalidToolNameError,
        NotIndexedError as NotIndexedError,
        QueueError as QueueError,
        SchemaMissingError as SchemaMissingError,
        StoreError as StoreError,
        StoreUnavailableError as StoreUnavailableError,
        ToolDescriptionError as ToolDescriptionError,
        ToolNameCollisionError as ToolNameCollisionError,
        ToolretError as ToolretError,
        ToolSchemaError as ToolSchemaError,
        ToolTextError as ToolTextError,
        UnknownCoreToolError as UnknownCoreToolError,
    )
    from toolret.indexing._run import (
        IndexReport as IndexReport,
    )
    from toolret.retrieval._base import (
        Retriever as Retriever,
    )
    from toolret.retrieval._client import (
        ToolRetrievalClient as ToolRetrievalClient,
    )
    from toolret.retrieval._find_tools import (
        FIND_TOOLS_NAME as FIND_TOOLS_NAME,
        answer_find_tools as answer_find_tools,
        discovered_tool_names as discovered_tool_names,
        find_tools_definition as find_tools_definition,
    )
    from toolret.retrieval._memory import (
        InMemoryRetriever as InMemoryRetriever,
    )
    from toolret.retrieval._rounds import (
        make_per_round_retrieve as make_per_round_retrieve,
    )
    from toolret.retrieval._routing import (
        agent_catalog as agent_catalog,
        route as route,
    )
    from toolret.retrieval._selection import (
        Mode as Mode,
        Reason as Reason,
        Selection as Selection,
    )
    from toolret.retrieval._stable import (
        StableToolList as StableToolList,
    )
    from toolret.retrieval._tokens import (
        load_tokenizer as load_tokenizer,
    )
    from toolret.store._migrate import (
        upgrade_database as upgrade_database,
    )


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
