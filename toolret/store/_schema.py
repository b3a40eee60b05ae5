"""The vector store's tables, as SQLAlchemy Core metadata.

Global tables (no tenant column, row-level security off; the migration in ``alembic/``
creates them and is the source of truth, this module mirrors it for queries):

- ``toolret_vectors``: the served embeddings, one per (model id, document key). The key is the
  SHA-256 of a document's role and text, so a vector is written once and reused by every
  catalog version that contains the same text. ``embedding`` is an untyped ``vector``: several
  models (several dimensions) share the table, each with its own partial HNSW index
  (``hnsw_index_sql``). Only vectors of a published corpus are ever here.
- ``toolret_pending_vectors``: the same columns, for vectors an indexing run has written but
  not yet published. Publication moves them into ``toolret_vectors`` in the transaction that
  marks the corpus published (moving, not flagging: updating a row of an HNSW-indexed table
  re-inserts it into the graph).
- ``toolret_corpora``: one row per (model id, corpus hash) ever indexed, ``published_at`` NULL
  until every one of its vectors is written, ``last_seen_at`` for garbage collection,
  ``summarized`` the scores it has summary vectors for.
- ``toolret_corpus_documents``: a corpus's documents in order, with the tool each belongs to.
  A table rather than an array so the request path can probe membership through an index.
- ``toolret_corpus_vectors``: a small published corpus's documents again, each with its stored
  kind and vector, keyed by corpus (``copied`` on its corpus row): its exact ranking reads them
  in one index range scan instead of probing ``toolret_vectors`` per document.
- ``toolret_summary_vectors`` and ``toolret_corpus_summaries``: per-tool vectors derived from
  the documents (``toolret.store._summaries``), whose best inner product with a query is the
  tool's blended score, and which belong to which tool of a corpus under which score. Each
  model's summary vectors have a partial HNSW index of their own (``summary_index_sql``).
"""

from __future__ import annotations

import hashlib

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    Table,
    Text,
)

__all__ = [
    "HNSW_MAX_DIMENSION",
    "READER_ROLE",
    "SUMMARY_HNSW",
    "VERSION_TABLE",
    "corpora",
    "corpus_documents",
    "corpus_vectors",
    "hnsw_index_name",
    "hnsw_index_sql",
    "metadata",
    "pending_vectors",
    "sql_literal",
    "summary_cast",
    "summary_index_name",
    "summary_index_sql",
    "summary_vectors",
    "vector_cast",
    "vectors",
]

READER_ROLE = "toolret_reader"
"""The role the migration grants SELECT on every toolret table (and nothing else)."""
VERSION_TABLE = "toolret_alembic_version"
"""Alembic's version table for toolret: its own, so it never collides with the application's."""
HNSW_MAX_DIMENSION = 4000
"""pgvector indexes ``vector`` up to 2,000 dimensions and ``halfvec`` up to 4,000."""
_VECTOR_MAX_DIMENSION = 2000

metadata = MetaData()


def _vector_columns() -> list[Column[object]]:
    return [
        Column("model_id", Text, primary_key=True),
        Column("doc_key", Text, primary_key=True),
        Column("dimension", Integer, nullable=False),
        Column("embedding", VECTOR(), nullable=False),
        Column("role", Text, nullable=False),
        Column("kind", Text, nullable=False),
        Column("tool_name", Text, nullable=False),
        Column("text", Text, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
    ]


vectors = Table(
    "toolret_vectors",
    metadata,
    *_vector_columns(),
    Column("published_at", DateTime(timezone=True), nullable=False),
)

pending_vectors = Table("toolret_pending_vectors", metadata, *_vector_columns())

corpora = Table(
    "toolret_corpora",
    metadata,
    Column("id", BigInteger, primary_key=True),
    Column("model_id", Text, nullable=False),
    Column("corpus_hash", Text, nullable=False),
    Column("documents", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=False),
    Column("published_at", DateTime(timezone=True)),
    Column("summarized", ARRAY(Text), nullable=False),
    Column("copied", Boolean, nullable=False),
)

summary_vectors = Table(
    "toolret_summary_vectors",
    metadata,
    Column("model_id", Text, primary_key=True),
    Column("summary_key", Text, primary_key=True),
    Column("dimension", Integer, nullable=False),
    Column("embedding", VECTOR(), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

corpus_documents = Table(
    "toolret_corpus_documents",
    metadata,
    Column("corpus_id", BigInteger, ForeignKey("toolret_corpora.id"), primary_key=True),
    Column("doc_key", Text, primary_key=True),
    Column("tool_name", Text, primary_key=True),
    Column("position", Integer, nullable=False),
)

corpus_vectors = Table(
    "toolret_corpus_vectors",
    metadata,
    Column("corpus_id", BigInteger, ForeignKey("toolret_corpora.id"), primary_key=True),
    Column("tool_name", Text, primary_key=True),
    Column("doc_key", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("embedding", VECTOR(), nullable=False),
)


def sql_literal(value: str) -> str:
    """A SQL string literal (standard-conforming strings): ``it's`` becomes ``'it''s'``."""
    if "\x00" in value:
        raise ValueError("a SQL literal cannot contain NUL")
    return "'" + value.replace("'", "''") + "'"


def vector_cast(dimension: int) -> str:
    """The type a model's vectors are compared as: ``vector(d)``, or ``halfvec(d)`` above 2,000."""
    kind = "vector" if dimension <= _VECTOR_MAX_DIMENSION else "halfvec"
    return f"{kind}({int(dimension)})"


def hnsw_index_name(model_id: str) -> str:
    """The name of a model's partial HNSW index (a hash: model ids are not identifiers)."""
    return "toolret_hnsw_" + hashlib.sha256(model_id.encode()).hexdigest()[:16]


def hnsw_index_sql(model_id: str, dimension: int) -> str:
    """``CREATE INDEX`` for one model: cosine HNSW over ``embedding::vector(d)``, only its rows.

    The ranking query repeats the same expression and the same literal ``model_id`` predicate,
    which is what lets the planner use this index (a ``model_id = $1`` parameter would not).
    """
    cast = vector_cast(dimension)
    ops = "vector_cosine_ops" if cast.startswith("vector") else "halfvec_cosine_ops"
    return (
        f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(model_id)} ON toolret_vectors "
        f"USING hnsw ((embedding::{cast}) {ops}) WHERE model_id = {sql_literal(model_id)}"
    )


SUMMARY_HNSW = "m = 32"
"""The summary index's graph: twice pgvector's default links, which finds more of the exact
top 12 at the same ``ef_search`` than the default graph; a longer build-time candidate list
(``ef_construction``) buys what a larger ``ef_search`` buys at query time, for twice the build
and every insert (``docs/decisions.md``, "The summary index and ``hnsw.ef_search``", from
``python -m evals.perf.select``)."""


def summary_cast(dimension: int) -> str:
    """The type a model's summary vectors are indexed and scanned as: ``halfvec(d)``. Half the
    index of ``vector(d)`` for the same recall at 300,000 summaries, and a little faster to
    scan; each scanned summary's distance is then recomputed in full precision."""
    return f"halfvec({int(dimension)})"


def summary_index_name(model_id: str) -> str:
    """The name of a model's partial HNSW index over its summary vectors."""
    return "toolret_summary_hnsw_" + hashlib.sha256(model_id.encode()).hexdigest()[:16]


def summary_index_sql(model_id: str, dimension: int) -> str:
    """``CREATE INDEX`` for one model's summary vectors: inner-product HNSW, only its rows."""
    cast = summary_cast(dimension)
    return (
        f"CREATE INDEX IF NOT EXISTS {summary_index_name(model_id)} ON toolret_summary_vectors "
        f"USING hnsw ((embedding::{cast}) halfvec_ip_ops) "
        f"WITH ({SUMMARY_HNSW}) "
        f"WHERE model_id = {sql_literal(model_id)}"
    )
