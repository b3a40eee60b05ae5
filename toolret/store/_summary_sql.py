"""The blended score's ranking statement for a large catalog: one scan of summary vectors.

A tool's blended score is the largest inner product of the query with its summary vectors
(``toolret.store._summaries``), so the statement reads like the max score's: the model's HNSW
index over summary vectors (inner product) is scanned in order, filtered through an index probe
of the corpus's summaries (core and already-bound tools left out), and each tool met scores its
nearest summary. Two kinds of tool are scored from their documents instead (looked up by
corpus and tool, as ``exact_sql`` scores them): those whose summaries only bound their score
(many examples), and those with a learned example vector near the message.

A tool none of whose summaries was scanned scores no better than the farthest one scanned
(its exact vectors are all farther, or its bounds are). So when ``k`` scored tools are within
that distance, no other tool can displace them and the answer is exact (given the index's
nearest neighbours). The first pass scans ``SUMMARIES_PER_TOOL × k`` summaries; when it does
not certify its answer, a second pass scans ``k ×`` the most summaries any tool has, in the
same statement. A published corpus without summaries for this score (published by a toolret
from before them) returns one row of NULLs, so the caller can rank it exactly and ask the
worker to summarize it.
"""

from __future__ import annotations

from toolret._profile import ToolScore
from toolret.store._schema import sql_literal, summary_cast, vector_cast
from toolret.store._sql import LEARNED_MAX_DISTANCE, blend_distance
from toolret.store._statement import Placeholder
from toolret.store._summaries import score_tag

__all__ = ["SUMMARIES_PER_TOOL", "summary_sql"]

SUMMARIES_PER_TOOL = 3
"""The first pass scans ``3 × k`` summaries: with three examples a tool (three pair vectors)
the best ``k`` tools lie well within them, and within the index's candidate list
(``hnsw.ef_search``) a longer scan costs little (``docs/decisions.md``)."""


def summary_sql(
    model_id: str, dimension: int, tools: int, most_summaries: int, score: ToolScore, p: Placeholder
) -> str:
    """Rank a published corpus by its summary vectors.

    Parameters: ``toolret.store._sql.INDEX_PARAMETERS``. Returns the best ``tools`` other tools
    as ``(tool_name, distance)``, best first; no rows when the corpus is not published; one
    ``(NULL, NULL)`` row when it has no summaries for ``score``.
    """
    model = sql_literal(model_id)
    tag = sql_literal(score_tag(score))
    cast = vector_cast(dimension)
    scan_cast = summary_cast(dimension)
    query = f"{p('query')}::vector({int(dimension)})"
    corpus_hash, exclude = p("corpus_hash"), p("exclude")
    corpus_id = "(SELECT id FROM corpus)"
    first = tools * SUMMARIES_PER_TOOL
    every = max(first, tools * most_summaries)

    def scan(limit: int, gate: str) -> str:
        # Ordered by the index's expression; each summary's distance in full precision.
        return f"""
    SELECT s.summary_key, s.embedding::{cast} <#> {query}::{cast} AS distance
    FROM toolret_summary_vectors s
    WHERE s.model_id = {model} AND {gate}
      AND EXISTS (SELECT FROM toolret_corpus_summaries m
                  WHERE m.corpus_id = {corpus_id} AND m.score = {tag}
                    AND m.summary_key = s.summary_key AND m.tool_name <> ALL ({exclude}::text[]))
    ORDER BY s.embedding::{scan_cast} <#> {query}::{scan_cast}
    LIMIT {int(limit)}"""

    def ranked(scanned: str) -> str:
        return f"""
    WITH met AS (
        SELECT m.tool_name, 1 + min(n.distance) AS distance, bool_and(m.exact) AS exact
        FROM {scanned} n
        JOIN toolret_corpus_summaries m
          ON m.corpus_id = {corpus_id} AND m.score = {tag} AND m.summary_key = n.summary_key
        WHERE m.tool_name <> ALL ({exclude}::text[])
        GROUP BY m.tool_name),
    rescored AS (SELECT tool_name FROM met WHERE NOT exact UNION SELECT tool_name FROM learned)
    SELECT tool_name, distance FROM met
    WHERE exact AND tool_name NOT IN (SELECT tool_name FROM learned)
    UNION ALL
    SELECT tool_name, {blend_distance(score)} FROM (
        SELECT *, row_number() OVER (PARTITION BY tool_name, kind ORDER BY distance) AS n
        FROM (SELECT d.tool_name, v.kind, v.embedding::{cast} <=> {query}::{cast} AS distance
              FROM rescored r
              JOIN toolret_corpus_documents d
                ON d.corpus_id = {corpus_id} AND d.tool_name = r.tool_name
              JOIN toolret_vectors v ON v.model_id = {model} AND v.doc_key = d.doc_key
              UNION ALL
              SELECT tool_name, 'example', distance FROM learned) AS scored) AS s
    GROUP BY tool_name"""

    def certain(number: int, limit: int) -> str:
        # Every summary was scanned when the scan came back short: nothing is farther.
        bound = (
            f"(SELECT CASE WHEN count(*) < {int(limit)} THEN 'Infinity'::float8 "
            f"ELSE 1 + max(distance) END FROM nearest_{number})"
        )
        return f"(SELECT count(*) >= {int(tools)} FROM ranked_{number} WHERE distance <= {bound})"

    opened = f"{corpus_id} IS NOT NULL AND (SELECT summarized FROM corpus)"
    if every > first:  # a second, wider pass unless the first certified its answer
        passes = f"""
certain AS MATERIALIZED (SELECT {certain(1, first)} AS ok),
nearest_2 AS MATERIALIZED ({scan(every, f"{opened} AND NOT (SELECT ok FROM certain)")}),
ranked_2 AS MATERIALIZED ({ranked("nearest_2")}),
ranked AS (SELECT * FROM ranked_1 WHERE (SELECT ok FROM certain)
           UNION ALL SELECT * FROM ranked_2),"""
    else:  # the first pass met k × the most summaries of any tool: as far as it can go
        passes = """
ranked AS (SELECT * FROM ranked_1),"""
    return f"""
WITH corpus AS MATERIALIZED (
    SELECT c.id, {tag} = ANY (c.summarized) AS summarized
    FROM toolret_corpora c
    WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash} AND c.published_at IS NOT NULL),
learned AS MATERIALIZED (  -- learned example vectors near the message: scored exactly
    SELECT l.tool_name, l.embedding::{cast} <=> {query}::{cast} AS distance
    FROM toolret_learned_vectors l
    WHERE l.model_id = {model} AND l.corpus_hash = {corpus_hash} AND {opened}
      AND l.tool_name <> ALL ({exclude}::text[])
      AND l.embedding::{cast} <=> {query}::{cast} <= {LEARNED_MAX_DISTANCE}),
nearest_1 AS MATERIALIZED ({scan(first, opened)}),
ranked_1 AS MATERIALIZED ({ranked("nearest_1")}),{passes}
best AS (
    SELECT tool_name, distance FROM ranked WHERE distance IS NOT NULL
    ORDER BY distance, tool_name LIMIT {int(tools)})
SELECT tool_name, distance FROM best
UNION ALL
SELECT NULL, NULL WHERE {corpus_id} IS NOT NULL AND NOT (SELECT summarized FROM corpus)
"""
