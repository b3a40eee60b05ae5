"""The ranking statements with the sparse signal: a tool's dense score plus a weight x its
sparse score, computed as ``toolret.retrieval._sparse.SparseIndex`` and ``ScoreParts.base``
compute them in memory.

A tool's sparse score combines its documents' sparse cosines (``toolret_sparse_vectors``, the
inner product of two normalised ``sparsevec``) as its ``ToolScore`` combines the dense ones: the
best for ``max``; for ``blend``, the description's weighted with the mean of the best few
*written* examples (learned example vectors have no sparse vector). A corpus whose sparse
vectors for the head are not all written (``toolret_corpora.sparse`` does not list it) scores
no tool by them: its statements rank by the dense score alone and say so (``ready``).

- ``exact_sparse_sql``: a small catalog, every document looked up by key (as ``exact_sql``),
  ranked by the sum; the named tools (hybrid's lexical hits) come back too.
- ``sparse_scan_sql``: a large catalog's sparse side, through the head's partial HNSW index
  (inner product): the documents nearest the message's sparse vector, the exact sparse scores of
  the tools they belong to and of the named ones, and the smallest latent score scanned (no
  unscanned tool scores above it). ``toolret.store._sparse_read`` joins it to the dense ranking.
"""

from __future__ import annotations

from toolret._profile import ToolScore
from toolret.store._schema import sql_literal, vector_cast
from toolret.store._sql import LEARNED_MAX_DISTANCE, blend_distance, query_vector
from toolret.store._statement import Placeholder

__all__ = [
    "EXACT_SPARSE_PARAMETERS",
    "SCAN_PARAMETERS",
    "exact_sparse_sql",
    "latent_score",
    "sparse_ranked",
    "sparse_scan_sql",
]

EXACT_SPARSE_PARAMETERS = (
    "query",
    "sparse_query",
    "sparse_weight",
    "tools",
    "keys",
    "limit",
    "corpus_hash",
    "named",
)
"""``exact_sparse_sql``'s parameters: ``exact_sql``'s, the message's sparse vector, the weight,
and the tools whose scores must come back wherever they rank."""
SCAN_PARAMETERS = ("sparse_query", "corpus_hash", "exclude", "named")
"""``sparse_scan_sql``'s parameters."""


def latent_score(score: ToolScore) -> str:
    """A tool's sparse score over rows ``(kind, latent, m)``, ``m`` the row's rank by latent
    among the tool's documents of its kind (NULL latents last): as ``ToolScore.combine``."""
    description = "max(latent) FILTER (WHERE kind = 'description')"
    if score.kind == "max":
        return "max(latent)"
    examples = (
        f"avg(latent) FILTER (WHERE kind = 'example' AND m <= {int(score.examples)} "
        "AND latent IS NOT NULL)"
    )
    weight = score.description_weight
    return f"coalesce({weight!r} * {description} + {1 - weight!r} * {examples}, {description})"


def sparse_ranked(score: ToolScore, p: Placeholder, *, published: str, ready: str) -> str:
    """The exact sparse statements' shared tail, over rows ``(tool_name, kind, distance,
    latent)`` named ``scored``: each tool's dense and sparse scores, then the rows ``(tool_name,
    distance, latent, ranked, published, ready)``: the ``limit`` best complete tools by dense +
    weight x sparse, the named complete ones (not ``ranked``), every incomplete one with NULLs.
    ``published`` and ``ready`` are the statement's own expressions for its corpus."""
    dense = "min(distance)" if score.kind == "max" else blend_distance(score)
    order = f"distance - {p('sparse_weight')}::float8 * coalesce(latent, 0), tool_name"
    return f"""tools AS MATERIALIZED (
    SELECT tool_name, {dense} AS distance, {latent_score(score)} AS latent,
           bool_and(distance IS NOT NULL) AS complete
    FROM (SELECT *,
                 row_number() OVER (PARTITION BY tool_name, kind ORDER BY distance) AS n,
                 row_number() OVER (PARTITION BY tool_name, kind ORDER BY latent DESC NULLS LAST)
                     AS m
          FROM scored) AS s
    GROUP BY tool_name)
SELECT r.tool_name, r.distance, r.latent, r.ranked, {published} AS published, {ready} AS ready
FROM ((SELECT tool_name, distance, latent, true AS ranked FROM tools WHERE complete
       ORDER BY {order} LIMIT {p("limit")})
      UNION ALL
      (SELECT tool_name, distance, latent, false FROM tools
       WHERE complete AND tool_name = ANY ({p("named")}::text[]))
      UNION ALL
      (SELECT tool_name, NULL, NULL, true FROM tools WHERE NOT complete)) AS r
"""


def _sparse(dimension: int, p: Placeholder) -> str:
    return f"{p('sparse_query')}::sparsevec({int(dimension)})"


def _ready(model: str, head: str, corpus_hash: str) -> str:
    return f"""coalesce((SELECT {head} = ANY (c.sparse) FROM toolret_corpora c
                 WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash}), false)"""


def exact_sparse_sql(
    model_id: str,
    dimension: int,
    score: ToolScore,
    head: str,
    sparse_dimension: int,
    p: Placeholder,
) -> str:
    """Rank a catalog's own documents exactly by dense + weight x sparse.

    Rows ``(tool_name, distance, latent, ranked, published, ready)``: the ``limit`` best complete
    tools (``ranked``), the named complete tools (not ``ranked``; possibly again), then every
    incomplete tool with NULLs. ``distance`` is one minus the dense score, ``latent`` the sparse
    score (NULL when not ``ready``).
    """
    model, head_name = sql_literal(model_id), sql_literal(head)
    cast = vector_cast(dimension)
    query, sparse = query_vector(dimension, p), _sparse(sparse_dimension, p)
    tools_of, keys, corpus_hash = p("tools"), p("keys"), p("corpus_hash")
    published = f"""(SELECT c.published_at IS NOT NULL FROM toolret_corpora c
        WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash})"""
    return f"""
WITH query AS MATERIALIZED (SELECT {query} AS q, {sparse} AS s),
ready AS MATERIALIZED (SELECT {_ready(model, head_name, corpus_hash)} AS ok),
scored AS MATERIALIZED (
    SELECT c.tool_name, v.kind, v.embedding::{cast} <=> (SELECT q FROM query) AS distance,
           -(x.sparse <#> (SELECT s FROM query)) AS latent
    FROM unnest({tools_of}::text[], {keys}::text[]) AS c(tool_name, doc_key)
    LEFT JOIN LATERAL (
        SELECT v.embedding, v.kind FROM toolret_vectors v
        WHERE v.model_id = {model} AND v.doc_key = c.doc_key
    ) AS v ON true
    LEFT JOIN LATERAL (
        SELECT x.sparse FROM toolret_sparse_vectors x
        WHERE x.model_id = {model} AND x.head = {head_name} AND x.doc_key = c.doc_key
          AND (SELECT ok FROM ready)
    ) AS x ON true
    UNION ALL  -- the corpus's learned example vectors: dense only
    SELECT l.tool_name, 'example', l.embedding::{cast} <=> (SELECT q FROM query), NULL
    FROM toolret_learned_vectors l
    WHERE l.model_id = {model} AND l.corpus_hash = {corpus_hash}
      AND l.tool_name = ANY ({tools_of}::text[])
      AND l.embedding::{cast} <=> (SELECT q FROM query) <= {LEARNED_MAX_DISTANCE}),
{sparse_ranked(score, p, published=published, ready="(SELECT ok FROM ready)")}"""


def sparse_scan_sql(
    model_id: str, score: ToolScore, head: str, sparse_dimension: int, scan: int, p: Placeholder
) -> str:
    """The sparse side of a large published corpus (parameters ``SCAN_PARAMETERS``).

    Rows ``(tool_name, latent, scanned, ready)``: each tool met among the ``scan`` documents
    nearest the message's sparse vector, and each named tool, with its exact sparse score; then
    one row with a NULL tool: ``latent`` the smallest latent scanned (every other document
    scores at most that), ``scanned`` how many documents the scan returned, ``ready`` whether
    the corpus is published with the head's vectors (when not, the only row).
    """
    model, head_name = sql_literal(model_id), sql_literal(head)
    sparse = _sparse(sparse_dimension, p)
    cast = f"sparsevec({int(sparse_dimension)})"
    corpus_hash, exclude, named = p("corpus_hash"), p("exclude"), p("named")
    corpus_id = "(SELECT id FROM corpus)"
    return f"""
WITH corpus AS MATERIALIZED (
    SELECT c.id FROM toolret_corpora c
    WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash} AND c.published_at IS NOT NULL
      AND {head_name} = ANY (c.sparse)),
nearest AS MATERIALIZED (
    SELECT x.doc_key, -(x.sparse::{cast} <#> {sparse}) AS latent
    FROM toolret_sparse_vectors x
    WHERE x.model_id = {model} AND x.head = {head_name} AND {corpus_id} IS NOT NULL
      AND EXISTS (SELECT FROM toolret_corpus_documents d
                  WHERE d.corpus_id = {corpus_id} AND d.doc_key = x.doc_key
                    AND d.tool_name <> ALL ({exclude}::text[]))
    ORDER BY x.sparse::{cast} <#> {sparse}
    LIMIT {int(scan)}),
wanted AS (
    SELECT d.tool_name FROM nearest n
    JOIN toolret_corpus_documents d ON d.corpus_id = {corpus_id} AND d.doc_key = n.doc_key
    WHERE d.tool_name <> ALL ({exclude}::text[])
    UNION
    SELECT unnest({named}::text[]) WHERE {corpus_id} IS NOT NULL),
scored AS (
    SELECT d.tool_name, v.kind, -(x.sparse <#> {sparse}) AS latent
    FROM wanted w
    JOIN toolret_corpus_documents d ON d.corpus_id = {corpus_id} AND d.tool_name = w.tool_name
    JOIN toolret_vectors v ON v.model_id = {model} AND v.doc_key = d.doc_key
    LEFT JOIN toolret_sparse_vectors x
      ON x.model_id = {model} AND x.head = {head_name} AND x.doc_key = d.doc_key)
SELECT tool_name, {latent_score(score)} AS latent, NULL::bigint AS scanned, NULL::bool AS ready
FROM (SELECT *,
             row_number() OVER (PARTITION BY tool_name, kind ORDER BY latent DESC NULLS LAST) AS m
      FROM scored) AS s
GROUP BY tool_name
UNION ALL  -- the scan itself: how far it went, and whether the corpus has the head
SELECT NULL, (SELECT min(latent) FROM nearest), (SELECT count(*) FROM nearest),
       {corpus_id} IS NOT NULL
"""
