"""The exact ranking statement over a corpus's own membership: no arrays of names to send.

``exact_sql`` receives the catalog's document keys and tools as two arrays, every request: on
a catalog of a few hundred documents, encoding them (client) and decoding them (server) costs
more than scoring the documents. Once a corpus is registered, the store already holds those
pairs (``toolret_corpus_documents``, filed under the corpus hash), so ``member_sql`` reads
them there instead; the request sends the query vector, the corpus hash, the few tools to
leave out (core tools, and the tools a cut catalog leaves out) and the names of the tools
whose scores must come back (hybrid's lexical hits).

A corpus published with a copy of its vectors (``copied``: at most ``_sql.COPY_LIMIT`` documents,
``toolret_corpus_vectors``) is read in one index range scan, each document's vector in its
row. Any other corpus has each document's vector looked up by key (a lateral primary-key probe
that no plan turns into a join over the table: a small catalog in a table of a hundred
thousand vectors reads only its own); a probe per document was most of the statement's time
(``docs/decisions.md``, "A copy of a small corpus's vectors"). Both branches sit in the one
statement behind the corpus row's ``copied``, so it is still one round trip.

It ranks exactly as ``exact_sql`` does, row for row: the same kind (the stored vector's), the
same distance, the same ``ToolScore`` (``tool_distances``), the same learned example vectors,
the same order, and a tool with a document without a vector (a corpus not published, so never
copied) comes back unranked (a NULL distance). A corpus never
registered returns no rows: the caller then sends the arrays (``exact_sql``).

``copy_sql`` is the copied branch alone, the statement a corpus is first asked with: the same
rows from a plan with nothing of the probes in it (no lookup of ``toolret_corpus_documents`` or
``toolret_vectors`` to set up on each execution, even unexecuted) and no test of completeness (a
copy is made only of a corpus whose every document has a vector; ``docs/decisions.md``, "A copy
of a small corpus's vectors"). It returns no rows for a corpus without a copy. Its scored rows
are not materialized, so a blend scores descriptions and examples apart (``kind_distances``):
only the examples are sorted for each tool's best few, not every row by tool and kind.
"""

from __future__ import annotations

from toolret._profile import ToolScore
from toolret.store._schema import sql_literal, vector_cast
from toolret.store._sql import LEARNED_MAX_DISTANCE, kind_distances, query_vector, tool_distances
from toolret.store._statement import Placeholder

__all__ = ["MEMBER_PARAMETERS", "copy_sql", "member_sql"]

MEMBER_PARAMETERS = ("query", "corpus_hash", "skip", "limit", "named")
"""``member_sql``'s parameters: the query vector, the corpus hash, the corpus's tools that are
not candidates, how many ranked tools to return, the tools whose scores must come back too."""


def member_sql(
    model_id: str, dimension: int, score: ToolScore, p: Placeholder, *, copies: bool = True
) -> str:
    """Rank a registered corpus's candidate documents exactly (parameters:
    ``MEMBER_PARAMETERS``).

    Rows ``(tool_name, distance, ranked, published)``: the ``limit`` nearest complete tools
    (``ranked``), the named complete tools (not ``ranked``; possibly again), then every
    incomplete tool with a NULL distance; ``published`` says whether the corpus is published.
    No rows when the corpus is not registered. Without ``copies`` (a database before migration
    0010) it reads no copy: every document is probed.
    """
    model = sql_literal(model_id)
    cast = vector_cast(dimension)
    query, corpus_hash, skip = query_vector(dimension, p), p("corpus_hash"), p("skip")
    tools = tool_distances(score)
    copied, copy = "false", ""
    if copies:
        copied = "c.copied"
        copy = f"""
    SELECT c.tool_name, c.kind, c.embedding::{cast} <=> (SELECT q FROM query) AS distance
    FROM toolret_corpus_vectors c  -- a copied corpus: its vectors in its rows, one range scan
    WHERE c.corpus_id = (SELECT id FROM corpus) AND (SELECT copied FROM corpus)
      AND c.tool_name <> ALL ({skip}::text[])
    UNION ALL  -- any other: each document's vector, probed by key"""
    return f"""
WITH query AS MATERIALIZED (SELECT {query} AS q),
corpus AS MATERIALIZED (
    SELECT c.id, c.published_at IS NOT NULL AS published, {copied} AS copied
    FROM toolret_corpora c
    WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash}),
scored AS MATERIALIZED ({copy}
    SELECT d.tool_name, v.kind, v.embedding::{cast} <=> (SELECT q FROM query) AS distance
    FROM toolret_corpus_documents d
    LEFT JOIN LATERAL (  -- one row (the primary key); LIMIT keeps it a probe per document
        SELECT v.embedding, v.kind FROM toolret_vectors v
        WHERE v.model_id = {model} AND v.doc_key = d.doc_key
        LIMIT 1
    ) AS v ON true
    WHERE d.corpus_id = (SELECT id FROM corpus) AND NOT (SELECT copied FROM corpus)
      AND d.tool_name <> ALL ({skip}::text[])
{_learned(model, cast, corpus_hash, skip, "toolret_corpus_documents")}
tools AS MATERIALIZED ({tools})
SELECT r.tool_name, r.distance, r.ranked, (SELECT published FROM corpus) AS published
FROM ((SELECT tool_name, distance, true AS ranked FROM tools WHERE complete
       ORDER BY distance, tool_name LIMIT {p("limit")})
      UNION ALL
      (SELECT tool_name, distance, false FROM tools
       WHERE complete AND tool_name = ANY ({p("named")}::text[]))
      UNION ALL
      (SELECT tool_name, NULL, true FROM tools WHERE NOT complete)) AS r
"""


def copy_sql(model_id: str, dimension: int, score: ToolScore, p: Placeholder) -> str:
    """``member_sql``'s rows for a corpus with a copy (``copied``), read from the copy alone
    (parameters: ``MEMBER_PARAMETERS``); no rows for any other corpus. Every row of a copy, and
    of the learned vectors, has a vector: every tool is complete."""
    model = sql_literal(model_id)
    cast = vector_cast(dimension)
    query, corpus_hash, skip = query_vector(dimension, p), p("corpus_hash"), p("skip")
    return f"""
WITH query AS MATERIALIZED (SELECT {query} AS q),
corpus AS MATERIALIZED (
    SELECT c.id, c.published_at IS NOT NULL AS published
    FROM toolret_corpora c
    WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash} AND c.copied),
scored AS NOT MATERIALIZED (  -- each kind's half reads only its rows (kind_distances)
    SELECT c.tool_name, c.kind, c.embedding::{cast} <=> (SELECT q FROM query) AS distance
    FROM toolret_corpus_vectors c  -- its vectors in its rows, one range scan
    WHERE c.corpus_id = (SELECT id FROM corpus) AND c.tool_name <> ALL ({skip}::text[])
{_learned(model, cast, corpus_hash, skip, "toolret_corpus_vectors")}
tools AS MATERIALIZED ({kind_distances(score)})
SELECT r.tool_name, r.distance, r.ranked, (SELECT published FROM corpus) AS published
FROM ((SELECT tool_name, distance, true AS ranked FROM tools
       ORDER BY distance, tool_name LIMIT {p("limit")})
      UNION ALL
      (SELECT tool_name, distance, false FROM tools
       WHERE tool_name = ANY ({p("named")}::text[]))) AS r
"""


def _learned(model: str, cast: str, corpus_hash: str, skip: str, members: str) -> str:
    """The branch both statements add to their scored rows: the corpus's learned example
    vectors within ``LEARNED_MAX_DISTANCE`` of the message, of the tools ``members`` (the
    corpus's documents, or its copy) holds."""
    return f"""    UNION ALL  -- the corpus's learned example vectors (toolret.feedback._store)
    SELECT l.tool_name, 'example', l.embedding::{cast} <=> (SELECT q FROM query)
    FROM toolret_learned_vectors l
    WHERE l.model_id = {model} AND l.corpus_hash = {corpus_hash}
      AND l.tool_name <> ALL ({skip}::text[])
      AND EXISTS (SELECT FROM {members} d
                  WHERE d.corpus_id = (SELECT id FROM corpus) AND d.tool_name = l.tool_name)
      AND l.embedding::{cast} <=> (SELECT q FROM query) <= {LEARNED_MAX_DISTANCE}),"""
