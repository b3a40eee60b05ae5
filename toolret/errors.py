"""The toolret error hierarchy.

Every error toolret raises is a ``ToolretError``; each carries the object it is about.

    ToolretError
    ├── CatalogError                 a catalog cannot be built (at build time, never per request)
    │   ├── DuplicateToolError       two tools share a name
    │   │   └── ToolNameCollisionError  two names become one once made valid for model APIs
    │   ├── InvalidToolNameError     a name model APIs reject ([A-Za-z0-9_-], 1-64 characters)
    │   ├── ToolDescriptionError     an empty or too-thin description (of a tool the app wrote)
    │   ├── ToolTextError            a character Postgres or model APIs cannot carry (NUL, ...)
    │   ├── ToolSchemaError          an input schema model providers refuse (the app's own tool)
    │   ├── UnknownCoreToolError     a core tool that is not in the catalog
    │   ├── AmbiguousToolNameError   a bare MCP tool name that several servers list
    │   └── CatalogSourceError       tool JSON / MCP listings / a catalog spec that cannot be read
    ├── ConfigurationError           settings that cannot work (bad URL, unknown mode, ...)
    ├── AllowedToolsError            an ``allowed`` entry neither a tool name nor ``prefix*``
    ├── EmbedderError                an embedding call failed
    │   └── EmbedderUnavailableError no embedder is configured or it cannot be loaded
    ├── StoreError                   the vector store failed (unreachable, timeout, bad schema)
    │   ├── NotIndexedError          the catalog has no published vectors for this model yet
    │   ├── SchemaMissingError       toolret's tables are missing or older than this toolret
    │   ├── StoreUnavailableError    Postgres cannot be reached (down, restarting, connection lost)
    │   └── CorpusIncompleteError    publishing a corpus some of whose documents have no vector
    ├── QueueError                   Redis could not be reached, or refused a reindex job
    └── ClientStateError             a closed client was used or reopened

The request path (``select``) never lets these escape: they become a fail-open ``Selection``
whose ``reason`` names what went wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AllowedToolsError",
    "AmbiguousToolNameError",
    "CatalogError",
    "CatalogSourceError",
    "ClientStateError",
    "ConfigurationError",
    "CorpusIncompleteError",
    "DuplicateToolError",
    "EmbedderError",
    "EmbedderUnavailableError",
    "InvalidToolNameError",
    "NotIndexedError",
    "QueueError",
    "SchemaMissingError",
    "StoreError",
    "StoreUnavailableError",
    "ToolDescriptionError",
    "ToolNameCollisionError",
    "ToolSchemaError",
    "ToolTextError",
    "ToolretError",
    "UnknownCoreToolError",
]


class ToolretError(Exception):
    """Base of every error toolret raises."""


class CatalogError(ToolretError):
    """A catalog cannot be built from the tools given. ``tool`` names the offending tool."""

    def __init__(self, message: str, *, tool: str | None = None) -> None:
        super().__init__(message)
        self.tool = tool


class DuplicateToolError(CatalogError):
    """Two tools in one catalog share a name."""


class ToolNameCollisionError(DuplicateToolError):
    """Two different names (MCP ``server__tool``) that become the same valid name.

    ``originals`` holds both names as they were given, so the message can say which to rename.
    """

    def __init__(self, message: str, *, tool: str, originals: tuple[str, str]) -> None:
        super().__init__(message, tool=tool)
        self.originals = originals


class InvalidToolNameError(CatalogError):
    """A tool name that model APIs reject."""


class ToolDescriptionError(CatalogError):
    """A description that is empty or too thin to retrieve by, of a tool the application wrote.

    A third-party tool's (``Tool.third_party``) is kept, as a ``Catalog.warnings`` entry."""


class ToolTextError(CatalogError):
    """A tool's text holds a character that Postgres or a model API cannot carry.

    ``field`` names where (``name``, ``description``, ``keywords``, ``category``, ``examples``)
    and ``character`` which (one character).
    """

    def __init__(self, message: str, *, tool: str, field: str, character: str) -> None:
        super().__init__(message, tool=tool)
        self.field = field
        self.character = character


class ToolSchemaError(CatalogError):
    """An input schema model providers refuse, of a tool the application wrote: not valid JSON
    Schema, a root that is not an object, or ``required`` naming a property it does not define.

    ``pointer`` is the JSON pointer of the fault inside the schema (``""`` for the root). A
    third-party tool's is kept, as a ``Catalog.warnings`` entry."""

    def __init__(self, message: str, *, tool: str, pointer: str) -> None:
        super().__init__(message, tool=tool)
        self.pointer = pointer


class UnknownCoreToolError(CatalogError):
    """A core tool named that is not in the catalog."""


class AmbiguousToolNameError(CatalogError):
    """A tool named by its bare MCP name (``core=["search"]``) that several servers list.

    ``candidates`` holds the catalog names (``server__tool``) it could mean; name one of them.
    """

    def __init__(self, message: str, *, tool: str, candidates: Sequence[str]) -> None:
        super().__init__(message, tool=tool)
        self.candidates = tuple(candidates)


class CatalogSourceError(CatalogError):
    """Tool definitions (JSON, MCP listings, an import spec) that cannot be read."""


class ConfigurationError(ToolretError):
    """Settings that cannot work."""


class AllowedToolsError(ToolretError):
    """An entry of ``allowed`` (``Catalog.only``, ``select``, ``find_tools``) that is neither a
    tool name nor a prefix pattern (``server__*``). ``pattern`` is the entry."""

    def __init__(self, message: str, *, pattern: object) -> None:
        super().__init__(message)
        self.pattern = pattern


class EmbedderError(ToolretError):
    """An embedding call failed. ``model_id`` names the model."""

    def __init__(self, message: str, *, model_id: str | None = None) -> None:
        super().__init__(message)
        self.model_id = model_id


class EmbedderUnavailableError(EmbedderError):
    """No embedder is configured, or it cannot be loaded."""


class StoreError(ToolretError):
    """The vector store failed."""


class NotIndexedError(StoreError):
    """The catalog has no published vectors for this embedding model yet."""

    def __init__(self, message: str, *, model_id: str, corpus_hash: str) -> None:
        super().__init__(message)
        self.model_id = model_id
        self.corpus_hash = corpus_hash


class SchemaMissingError(StoreError):
    """The database has no toolret tables, or an older schema than this toolret queries.

    The fix is a migration (``toolret db upgrade``); ``database`` names the database (its URL
    without a password).
    """

    def __init__(self, message: str, *, database: str) -> None:
        super().__init__(message)
        self.database = database


class StoreUnavailableError(StoreError):
    """Postgres cannot be reached: refused, gone mid-statement, starting up or shutting down.

    An outage, not a fault of the work asked for: the worker waits it out and retries.
    """


class QueueError(ToolretError):
    """Redis could not be reached, or refused a reindex job."""


class CorpusIncompleteError(StoreError):
    """``publish`` was asked to publish a corpus with documents that have no vector."""

    def __init__(self, message: str, *, missing: Sequence[str]) -> None:
        super().__init__(message)
        self.missing = tuple(missing)


class ClientStateError(ToolretError):
    """A client used after ``aclose()``, or opened twice."""
