"""The store's maintenance SQL: writing vectors, registering and publishing corpora, garbage
collection and status. Named parameters, run through SQLAlchemy ``text()`` (``MISSING``: asyncpg
positional parameters)."""

from __future__ import annotations

__all__ = [
    "ABSENT_FROM_CORPUS",
    "ANALYZE_PENDING",
    "ANALYZE_SERVED",
    "ANALYZE_SUMMARIES",
    "CARRY_LEARNED",
    "COPY_VECTORS",
    "CORPUS_KINDS",
    "CORPUS_SUMMARY_COLUMNS",
    "GC_CORPORA",
    "GC_SUMMARY_VECTORS",
    "HAS_COPIES",
    "HAS_SUMMARIES",
    "INSERT_MEMBERSHIP",
    "IS_PUBLISHED",
    "MARK_PUBLISHED",
    "MARK_SUMMARIZED",
    "MISSING",
    "MISSING_SUMMARIES",
    "MOVE_PENDING",
    "PENDING_COLUMNS",
    "PUBLISHED_ID",
    "STATUS_INDEXES",
    "STATUS_MODELS",
    "SUMMARY_COLUMNS",
    "UPSERT_CORPUS",
    "VECTORS_OF",
    "gc_vectors",
]

MISSING = """
SELECT k FROM unnest($1::text[]) AS k
WHERE NOT EXISTS (SELECT FROM toolret_vectors v WHERE v.model_id = $2 AND v.doc_key = k)
  AND NOT EXISTS (SELECT FROM toolret_pending_vectors p WHERE p.model_id = $2 AND p.doc_key = k)
"""
"""Which of ``$1`` (keys) have no vector for model ``$2``, served or pending (asyncpg)."""

PENDING_COLUMNS = (
    "model_id",
    "doc_key",
    "dimension",
    "embedding",
    "role",
    "kind",
    "tool_name",
    "text",
)

UPSERT_CORPUS = """
INSERT INTO toolret_corpora (model_id, corpus_hash, documents)
VALUES (:model, :corpus, :documents)
ON CONFLICT (model_id, corpus_hash) DO UPDATE SET last_seen_at = now()
RETURNING id, published_at IS NOT NULL, documents, xmax = 0
"""
"""Record a corpus, or that a known one was seen now; ``xmax = 0`` says it is new."""

INSERT_MEMBERSHIP = """
INSERT INTO toolret_corpus_documents (corpus_id, doc_key, tool_name, position)
SELECT :id, k, t, p - 1
FROM unnest(CAST(:keys AS text[]), CAST(:tools AS text[])) WITH ORDINALITY AS u(k, t, p)
"""

IS_PUBLISHED = """
SELECT published_at IS NOT NULL FROM toolret_corpora
WHERE model_id = :model AND corpus_hash = :corpus
"""

ABSENT_FROM_CORPUS = """
SELECT d.doc_key FROM toolret_corpus_documents d
WHERE d.corpus_id = :id
  AND NOT EXISTS (SELECT FROM toolret_vectors v WHERE v.model_id = :model AND v.doc_key = d.doc_key)
  AND NOT EXISTS (SELECT FROM toolret_pending_vectors p
                  WHERE p.model_id = :model AND p.doc_key = d.doc_key)
LIMIT 5
"""
"""A few documents of corpus ``:id`` that have no vector at all (publication refuses)."""

MOVE_PENDING = """
WITH moved AS (
    DELETE FROM toolret_pending_vectors p
    WHERE p.model_id = :model
      AND p.doc_key IN (SELECT doc_key FROM toolret_corpus_documents WHERE corpus_id = :id)
    RETURNING p.*)
INSERT INTO toolret_vectors
    (model_id, doc_key, dimension, embedding, role, kind, tool_name, text, created_at)
SELECT model_id, doc_key, dimension, embedding, role, kind, tool_name, text, created_at
FROM moved
ON CONFLICT DO NOTHING
"""
"""Serve a corpus's pending vectors: move them into ``toolret_vectors``."""

CARRY_LEARNED = """
WITH source AS (
    SELECT DISTINCT ON (m.tool_name) m.tool_name, c.corpus_hash
    FROM toolret_corpus_documents m
    JOIN toolret_vectors v
      ON v.model_id = :model AND v.doc_key = m.doc_key AND v.kind = 'description'
    JOIN toolret_corpora c
      ON c.model_id = :model AND c.id <> :id AND c.published_at IS NOT NULL
    JOIN toolret_corpus_documents d
      ON d.corpus_id = c.id AND d.doc_key = m.doc_key AND d.tool_name = m.tool_name
    WHERE m.corpus_id = :id
      AND EXISTS (SELECT FROM toolret_learned_vectors WHERE model_id = :model)
    ORDER BY m.tool_name, c.published_at DESC, c.id DESC)
INSERT INTO toolret_learned_vectors
    (model_id, corpus_hash, doc_key, tool_name, dimension, embedding, turn_id, created_at)
SELECT l.model_id, :corpus, l.doc_key, l.tool_name, l.dimension, l.embedding, l.turn_id,
       l.created_at
FROM source s
JOIN toolret_learned_vectors l
  ON l.model_id = :model AND l.corpus_hash = s.corpus_hash AND l.tool_name = s.tool_name
ON CONFLICT DO NOTHING
"""
"""A new corpus ``:id`` (``:corpus``) takes over the learned vectors of each of its tools whose
description is unchanged, from the latest other published corpus of the model that has the same
description: learning survives an edit to another tool, or a server added to a fleet."""

COPY_VECTORS = """
WITH copied AS (
    INSERT INTO toolret_corpus_vectors (corpus_id, tool_name, doc_key, kind, embedding)
    SELECT d.corpus_id, d.tool_name, d.doc_key, v.kind, v.embedding
    FROM toolret_corpus_documents d
    JOIN toolret_vectors v ON v.model_id = :model AND v.doc_key = d.doc_key
    WHERE d.corpus_id = :id
    ON CONFLICT DO NOTHING)
UPDATE toolret_corpora SET copied = true WHERE id = :id
"""
"""Copy corpus ``:id``'s documents' served vectors into its own rows (``toolret_corpus_vectors``),
with each document's stored kind, and mark it copied: run at publication, after its pending
vectors are served (so every document has one), for a corpus within ``COPY_LIMIT``."""

HAS_COPIES = "SELECT to_regclass('toolret_corpus_vectors') IS NOT NULL"
"""Whether the database has migration 0010's copies: a database one migration behind has none,
and its corpora are ranked by probes and published without a copy (``StorePool.copies``)."""

MARK_PUBLISHED = (
    "UPDATE toolret_corpora SET published_at = now(), last_seen_at = now() WHERE id = :id"
)

ANALYZE_PENDING = "ANALYZE toolret_pending_vectors, toolret_corpus_documents"
ANALYZE_SERVED = "ANALYZE toolret_vectors"
ANALYZE_SUMMARIES = "ANALYZE toolret_summary_vectors, toolret_corpus_summaries"

PUBLISHED_ID = """
SELECT id FROM toolret_corpora
WHERE model_id = :model AND corpus_hash = :corpus AND published_at IS NOT NULL
"""

GC_CORPORA = """
DELETE FROM toolret_corpora
WHERE last_seen_at < coalesce(CAST(:now AS timestamptz), now()) - CAST(:grace AS interval)
"""


def gc_vectors(table: str) -> str:
    """Delete a vector table's rows that no corpus references and that are older than grace."""
    return f"""
DELETE FROM {table} v
WHERE v.created_at < coalesce(CAST(:now AS timestamptz), now()) - CAST(:grace AS interval)
  AND NOT EXISTS (SELECT FROM toolret_corpus_documents d
                  JOIN toolret_corpora c ON c.id = d.corpus_id
                  WHERE c.model_id = v.model_id AND d.doc_key = v.doc_key)
"""


GC_SUMMARY_VECTORS = """
DELETE FROM toolret_summary_vectors s
WHERE s.created_at < coalesce(CAST(:now AS timestamptz), now()) - CAST(:grace AS interval)
  AND NOT EXISTS (SELECT FROM toolret_corpus_summaries m
                  JOIN toolret_corpora c ON c.id = m.corpus_id
                  WHERE c.model_id = s.model_id AND m.summary_key = s.summary_key)
"""
"""Delete summary vectors no corpus files and that are older than grace."""

# -- summaries (asyncpg positional parameters, in the publishing transaction) -------------------

HAS_SUMMARIES = "SELECT $2 = ANY (summarized) FROM toolret_corpora WHERE id = $1"

MARK_SUMMARIZED = """
UPDATE toolret_corpora SET summarized = array_append(summarized, $2) WHERE id = $1
"""

CORPUS_KINDS = """
SELECT d.tool_name, d.doc_key, v.kind
FROM toolret_corpus_documents d
JOIN toolret_vectors v ON v.model_id = $2 AND v.doc_key = d.doc_key
WHERE d.corpus_id = $1
"""
"""Each served document of corpus ``$1`` (model ``$2``) with its tool and its stored kind."""

MISSING_SUMMARIES = """
SELECT k FROM unnest($1::text[]) AS k
WHERE NOT EXISTS (SELECT FROM toolret_summary_vectors s WHERE s.model_id = $2 AND s.summary_key = k)
"""

VECTORS_OF = """
SELECT doc_key, embedding FROM toolret_vectors WHERE model_id = $1 AND doc_key = ANY ($2::text[])
"""

SUMMARY_COLUMNS = ("model_id", "summary_key", "dimension", "embedding")
CORPUS_SUMMARY_COLUMNS = ("corpus_id", "score", "summary_key", "tool_name", "exact")

STATUS_MODELS = """
WITH v AS (SELECT model_id, max(dimension) AS dimension, count(*) AS n
           FROM toolret_vectors GROUP BY model_id),
p AS (SELECT model_id, max(dimension) AS dimension, count(*) AS n
      FROM toolret_pending_vectors GROUP BY model_id),
c AS (SELECT model_id, count(*) AS n, count(published_at) AS published,
             max(last_seen_at) AS last_seen
      FROM toolret_corpora GROUP BY model_id),
m AS (SELECT model_id FROM v UNION SELECT model_id FROM p UNION SELECT model_id FROM c)
SELECT m.model_id, coalesce(v.dimension, p.dimension, 0), coalesce(v.n, 0), coalesce(p.n, 0),
       coalesce(c.n, 0), coalesce(c.published, 0), c.last_seen
FROM m LEFT JOIN v USING (model_id) LEFT JOIN p USING (model_id) LEFT JOIN c USING (model_id)
ORDER BY 1
"""

STATUS_INDEXES = """
SELECT indexname FROM pg_indexes
WHERE tablename IN ('toolret_vectors', 'toolret_summary_vectors')
"""
