"""What the vector store takes and returns: rows, rankings, reports, status; its URL rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from toolret._tool import Role
from toolret.embedders._base import Vector
from toolret.errors import ConfigurationError, CorpusIncompleteError

__all__ = [
    "CorpusIncompleteError",
    "GCReport",
    "ModelStatus",
    "StoreRanking",
    "StoreStatus",
    "VectorRow",
    "asyncpg_url",
]


@dataclass(frozen=True)
class VectorRow:
    """One document's vector, as written: its key, owner, role, kind, text and embedding."""

    key: str
    tool_name: str
    role: Role
    kind: str
    text: str
    embedding: Vector


@dataclass(frozen=True)
class StoreRanking:
    """Each ranked tool's dense score, and tools not ranked.

    ``published`` says whether the catalog's exact corpus is published; when it is not, the
    ranking uses the vectors earlier published corpora hold for the same documents, and tools
    with a document none of them holds are ``unranked``.
    """

    scores: dict[str, float]
    unranked: tuple[str, ...]
    published: bool
    sparse: dict[str, float] = field(default_factory=dict)
    """Each ranked tool's sparse score, when the ranking had the sparse signal."""
    sparse_ready: bool = True
    """False when the ranking was asked for the sparse signal and the corpus has no sparse
    vectors for its head yet: the tools are then ranked by the dense score alone."""


@dataclass(frozen=True)
class GCReport:
    """What garbage collection removed."""

    corpora: int
    vectors: int


@dataclass(frozen=True)
class ModelStatus:
    """One embedding model's rows (served and pending), corpora and index."""

    model_id: str
    dimension: int
    vectors: int
    pending_vectors: int
    corpora: int
    published_corpora: int
    last_seen: datetime | None
    index: str | None


@dataclass(frozen=True)
class StoreStatus:
    """The schema revision and every model's state, for ``toolret status``."""

    revision: str | None
    models: tuple[ModelStatus, ...]


def asyncpg_url(url: str) -> str:
    """Any ``postgres(ql)://`` URL as SQLAlchemy's asyncpg URL (``sslmode`` becomes ``ssl``)."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme not in ("postgres", "postgresql"):
        raise ConfigurationError(f"DATABASE_URL must be a postgresql:// URL, not {scheme}://")
    query = [("ssl" if key == "sslmode" else key, value) for key, value in parse_qsl(parts.query)]
    return urlunsplit(("postgresql+asyncpg", parts.netloc, parts.path, urlencode(query), ""))
