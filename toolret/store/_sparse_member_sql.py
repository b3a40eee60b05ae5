"""The exact sparse ranking statement over a corpus's own membership: no arrays of names.

``exact_sparse_sql`` receives the catalog's document keys and tools as two arrays, every
request, as ``exact_sql`` did: on a catalog of a few hundred documents, encoding and decoding
them costs about as much as scoring the documents. ``member_sparse_sql`` reads a registered
corpus's (tool, document key) pairs from ``toolret_corpus_documents`` by corpus hash instead,
as ``toolret.store._member_sql`` does for the dense ranking: the request sends the two query
vectors, the weight, the corpus hash, the tools to leave out (core tools, and the tools a cut
catalog leaves out), the limit and the named tools.

It ranks as ``exact_sparse_sql`` does, row for row (same lookups, scores, order, ``ready`` and
``published``); each document's vectors are ``LIMIT 1`` primary-key probes, so no plan turns
them into joins over large shared tables. A corpus never registered returns no rows: the caller
then sends the arrays (``exact_sparse_sql``).
"""

from __future__ import annotations

from toolret._profile import ToolScore
from toolret.store._schema import sql_literal, vector_cast
from toolret.store._sparse_sql import sparse_ranked
from toolret.store._sql import LEARNED_MAX_DISTANCE, query_vector
from toolret.store._statement import Placeholder

__all__ = ["MEMBER_SPARSE_PARAMETERS", "member_sparse_sql"]

MEMBER_SPARSE_PARAMETERS = (
    "query",
    "sparse_query",
    "sparse_weight",
    "corpus_hash",
    "skip",
    "limit",
    "named",
)
"""``member_sparse_sql``'s parameters: the dense and sparse query vectors, the weight, the
corpus hash, the corpus's tools that are not candidates, how many ranked tools to return, the
tools whose scores must come back too."""


def member_sparse_sql(
    model_id: str,
    dimension: int,
    score: ToolScore,
    head: str,
    sparse_dimension: int,
    p: Placeholder,
) -> str:
    """Rank a registered corpus's candidate documents exactly by dense + weight x sparse
    (parameters: ``MEMBER_SPARSE_PARAMETERS``).

    Rows ``(tool_name, distance, latent, ranked, published, ready)`` as ``exact_sparse_sql``'s;
    no rows when the corpus is not registered.
    """
    model, head_name = sql_literal(model_id), sql_literal(head)
    cast = vector_cast(dimension)
    query = query_vector(dimension, p)
    sparse = f"{p('sparse_query')}::sparsevec({int(sparse_dimension)})"
    corpus_hash, skip = p("corpus_hash"), p("skip")
    ranked = sparse_ranked(
        score, p, published="(SELECT published FROM corpus)", ready="(SELECT ok FROM corpus)"
    )
    return f"""
WITH query AS MATERIALIZED (SELECT {query} AS q, {sparse} AS s),
corpus AS MATERIALIZED (
    SELECT c.id, c.published_at IS NOT NULL AS published,
           coalesce({head_name} = ANY (c.sparse), false) AS ok
    FROM toolret_corpora c
    WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash}),
members AS MATERIALIZED (
    SELECT d.tool_name, d.doc_key FROM toolret_corpus_documents d
    WHERE d.corpus_id = (SELECT id FROM corpus) AND d.tool_name <> ALL ({skip}::text[])),
scored AS MATERIALIZED (
    SELECT c.tool_name, v.kind, v.embedding::{cast} <=> (SELECT q FROM query) AS distance,
           -(x.sparse <#> (SELECT s FROM query)) AS latent
    FROM members c
    LEFT JOIN LATERAL (  -- one row (the primary key); LIMIT keeps it a probe per document
        SELECT v.embedding, v.kind FROM toolret_vectors v
        WHERE v.model_id = {model} AND v.doc_key = c.doc_key
        LIMIT 1
    ) AS v ON true
    LEFT JOIN LATERAL (
        SELECT x.sparse FROM toolret_sparse_vectors x
        WHERE x.model_id = {model} AND x.head = {head_name} AND x.doc_key = c.doc_key
          AND (SELECT ok FROM corpus)
        LIMIT 1
    ) AS x ON true
    UNION ALL  -- the corpus's learned example vectors: dense only
    SELECT l.tool_name, 'example', l.embedding::{cast} <=> (SELECT q FROM query), NULL
    FROM toolret_learned_vectors l
    WHERE l.model_id = {model} AND l.corpus_hash = {corpus_hash}
      AND l.tool_name IN (SELECT tool_name FROM members)
      AND l.embedding::{cast} <=> (SELECT q FROM query) <= {LEARNED_MAX_DISTANCE}),
{ranked}"""
