"""The worker's sparse work: write documents' sparse vectors, mark a corpus ready, index them.

A model with a sparse head (``toolret.embedders._sparse``) files each document's sparse vector
in ``toolret_sparse_vectors`` under (model id, head, document key), content-addressed like its
dense vector: written once, reused by every corpus holding the same document, unreachable until
a corpus that lists the head references it. A corpus lists the head (``toolret_corpora.sparse``)
once every one of its documents has one (``mark_sparse``); until then the ranking statements
leave the sparse signal out for it. Each (model, head) gets a partial HNSW index over its
vectors (inner product) after its first corpus is marked, built in bulk as the dense ones are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence

from pgvector.asyncpg import register_vector
from sqlalchemy import text

from toolret.embedders._sparse import SparseVector
from toolret.store._pool import StorePool, lock_key, xact_lock
from toolret.store._schema import sql_literal

__all__ = ["GC_SPARSE_VECTORS", "StoreSparseWrites", "sparse_index_name", "sparse_index_sql"]

MISSING_SPARSE = """
SELECT k FROM unnest($1::text[]) AS k
WHERE NOT EXISTS (SELECT FROM toolret_sparse_vectors x
                  WHERE x.model_id = $2 AND x.head = $3 AND x.doc_key = k)
"""
MARK_SPARSE = """
UPDATE toolret_corpora c SET sparse = array_append(c.sparse, CAST(:head AS text))
WHERE c.model_id = :model AND c.corpus_hash = :corpus AND NOT (:head = ANY (c.sparse))
  AND NOT EXISTS (SELECT FROM toolret_corpus_documents d
                  WHERE d.corpus_id = c.id
                    AND NOT EXISTS (SELECT FROM toolret_sparse_vectors x
                                    WHERE x.model_id = :model AND x.head = :head
                                      AND x.doc_key = d.doc_key))
"""
HAS_SPARSE = """
SELECT :head = ANY (sparse) FROM toolret_corpora WHERE model_id = :model AND corpus_hash = :corpus
"""
GC_SPARSE_VECTORS = """
DELETE FROM toolret_sparse_vectors x
WHERE x.created_at < coalesce(CAST(:now AS timestamptz), now()) - CAST(:grace AS interval)
  AND NOT EXISTS (SELECT FROM toolret_corpus_documents d
                  JOIN toolret_corpora c ON c.id = d.corpus_id
                  WHERE c.model_id = x.model_id AND d.doc_key = x.doc_key)
"""
"""Delete sparse vectors no corpus references and that are older than grace."""


def sparse_index_name(model_id: str, head: str) -> str:
    """The name of a (model, head)'s partial HNSW index over its sparse vectors."""
    digest = hashlib.sha256(f"{model_id}\x00{head}".encode()).hexdigest()[:16]
    return f"toolret_sparse_hnsw_{digest}"


def sparse_index_sql(model_id: str, head: str, dimension: int) -> str:
    """``CREATE INDEX`` for one (model, head): inner-product HNSW over ``sparsevec(d)``, only
    its rows; the scan (``toolret.store._sparse_sql.sparse_scan_sql``) repeats the expression
    and the literal predicate, so the planner can use it."""
    return (
        f"CREATE INDEX IF NOT EXISTS {sparse_index_name(model_id, head)} "
        f"ON toolret_sparse_vectors USING hnsw ((sparse::sparsevec({int(dimension)})) "
        f"sparsevec_ip_ops) WHERE model_id = {sql_literal(model_id)} AND head = {sql_literal(head)}"
    )


class StoreSparseWrites(StorePool):
    """Sparse vectors: the worker's part of ``VectorStore`` for a model with a sparse head."""

    async def missing_sparse(self, model_id: str, head: str, keys: Collection[str]) -> set[str]:
        """The keys among ``keys`` without a sparse vector under (model, head)."""
        if not keys:
            return set()
        purpose = "looking up sparse vectors"
        async with self._connection(purpose) as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            rows = await connection.fetch(MISSING_SPARSE, list(keys), model_id, head)
        return {row[0] for row in rows}

    async def write_sparse(
        self, model_id: str, head: str, vectors: Sequence[tuple[str, SparseVector]]
    ) -> int:
        """Store sparse vectors by document key (binary ``COPY``); a key that has one is left as
        it is. Returns how many were new."""
        if not vectors:
            return 0
        purpose = "writing sparse vectors"
        async with self._connection(purpose) as connection, connection.transaction():
            await connection.execute("SET LOCAL statement_timeout = 0")
            lock = lock_key("sparse", model_id, head)
            await connection.execute("SELECT pg_advisory_xact_lock($1)", lock)
            keys = [key for key, _ in vectors]
            absent = {r[0] for r in await connection.fetch(MISSING_SPARSE, keys, model_id, head)}
            fresh = {key: vector for key, vector in vectors if key in absent}
            if fresh:
                await register_vector(connection)
                await connection.copy_records_to_table(
                    "toolret_sparse_vectors",
                    columns=("model_id", "head", "doc_key", "sparse"),
                    records=[
                        (model_id, head, key, vector.to_pgvector()) for key, vector in fresh.items()
                    ],
                )
        return len(fresh)

    async def mark_sparse(self, model_id: str, corpus_hash: str, head: str) -> bool:
        """List ``head`` on the corpus if every one of its documents has a sparse vector under
        it; whether the corpus lists it now."""
        where = {"model": model_id, "corpus": corpus_hash, "head": head}
        async with self.transaction() as connection:
            await xact_lock(connection, "publish", model_id)
            await connection.execute(text(MARK_SPARSE), where)
            listed = await connection.execute(text(HAS_SPARSE), where)
            return bool(listed.scalar())

    async def ensure_sparse_index(self, model_id: str, head: str, dimension: int) -> str:
        """Create the (model, head)'s sparse HNSW index if it is missing; return its name."""
        name = sparse_index_name(model_id, head)
        if (name, dimension) in self._indexed_models:
            return name
        async with self.transaction() as connection:
            await xact_lock(connection, "index", model_id, head)
            absent = await connection.execute(
                text("SELECT to_regclass(:name) IS NULL"), {"name": name}
            )
            if absent.scalar():
                await connection.execute(text(sparse_index_sql(model_id, head, dimension)))
                await connection.execute(text("ANALYZE toolret_sparse_vectors"))
        self._indexed_models.add((name, dimension))
        return name
