"""The store's ranking SQL: the request path's two statements (maintenance: ``corpus_sql``).

Both statements score each tool as its embedder's ``ToolScore`` says (``max``: its best vector;
``blend``: a weighted mean of its description and its best few examples, exactly as
``toolret.retrieval._memory.DenseIndex`` computes it) and return the best tools, in one round trip.
A tool's
examples are its written ones and the example vectors learned from misses
(``toolret_learned_vectors``) that lie within ``LEARNED_MIN_SIMILARITY`` of the message. They are
prepared once per pooled connection (asyncpg's
statement cache), so each is written to have one right plan whatever the parameters — a
prepared statement's generic plan cannot see how many documents a catalog has:

- ``exact``: a small catalog (up to ``EXACT_LIMIT`` documents, e.g. one workspace's 44 tools)
  in a table that may hold a hundred thousand rows. The catalog's document keys travel as an
  array; each is a primary-key lookup (a lateral join, so no plan can turn it into a scan) and
  the distances are sorted exactly. ``toolret_vectors`` holds only published vectors; a tool
  with a document that has none (its corpus is not published yet) comes back with a NULL
  distance: it is bound unranked, never unreachable.
- ``hnsw``: a large catalog whose exact corpus is published. The model's partial HNSW index
  (same expression, same literal ``model_id`` predicate) is scanned in distance order with
  ``hnsw.iterative_scan = relaxed_order``, filtered through an index probe of the corpus's
  membership (core and already-bound tools left out), and stops after ``3 × k`` vectors; if
  those hold fewer than ``k`` distinct tools, a second scan of ``k × documents per tool``
  vectors (enough whatever the examples) runs in the same statement. An unpublished corpus
  returns no rows at once (a one-time filter), and the caller falls back to ``exact``.

  With a ``blend`` score (and examples) a large catalog is ranked by its tools' summary
  vectors instead (``toolret.store._summary_sql``), in one scan of its own index. Both
  statements read a document's kind from its stored vector (the kind its first writer gave
  it: a text that is one tool's description and, in the same role, another tool's example
  would count as the first).

Model id, dimension and the HNSW limits are literals (they select the partial index and the
plan); every value from a request is a parameter, named (``toolret.store._statement``): each
function here writes its statement's text against a ``Placeholder``, and ``toolret.store._read``
assembles and caches the statements. The query vector travels in pgvector's binary format (the
codec is registered on each pooled connection), which is faster than a ``real[]`` parameter
cast to ``vector``.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolret._catalog import Catalog
from toolret._profile import DEFAULT_PROFILE, LEARNED_MIN_SIMILARITY, RetrievalProfile, ToolScore
from toolret._tool import Role
from toolret.store._schema import sql_literal, vector_cast
from toolret.store._statement import Placeholder
from toolret.store._summaries import summary_count

__all__ = [
    "COPY_LIMIT",
    "EXACT_LIMIT",
    "EXACT_PARAMETERS",
    "FIRST_SCAN_PER_TOOL",
    "INDEX_PARAMETERS",
    "LEARNED_MAX_DISTANCE",
    "CatalogQuery",
    "blend_distance",
    "exact_sql",
    "hnsw_sql",
    "kind_distances",
    "query_vector",
    "tool_distances",
    "with_named",
]

EXACT_PARAMETERS = ("query", "tools", "keys", "limit", "corpus_hash")
"""``exact_sql``'s parameters: the query vector, the tool of each document, the document keys,
how many ranked tools to return, the corpus hash."""
INDEX_PARAMETERS = ("query", "corpus_hash", "exclude")
"""The index statements' parameters (``hnsw_sql``, ``summary_sql``): the query vector, the
corpus hash, the tool names to leave out."""

LEARNED_MAX_DISTANCE = f"{1.0 - LEARNED_MIN_SIMILARITY:.6f}"
"""Learned vectors count only within this cosine distance (``toolret.feedback._learning``)."""

EXACT_LIMIT = 700
"""Catalogs with up to this many candidate documents are ranked exactly (``exact_sql``, or
``toolret.store._member_sql`` once the corpus is registered); above it the index statements are
the faster. Reading the documents from the corpus rather than receiving them as arrays moved
the crossover up from 500: on 549 documents (199 tools) the exact statement takes ~2.0 ms
against the summary index's 3.2–4.1 ms with hybrid's hits, on 921 documents 6.8 ms against
5.6 ms (a loaded 2-core machine; ``docs/decisions.md``, "The exact statement's limit")."""

COPY_LIMIT = 1000
"""Publishing a corpus of at most this many documents also copies its documents' vectors into
``toolret_corpus_vectors``, keyed by corpus, so its exact ranking reads them in one index range
scan instead of a probe of ``toolret_vectors`` per document (``toolret.store._member_sql``).
Every catalog ranked exactly as a whole (``EXACT_LIMIT`` candidate documents) fits, with room
for core tools; a larger corpus is ranked through the index, and a copy would double its
vectors' storage for nothing (``docs/decisions.md``, "A copy of a small corpus's vectors")."""


@dataclass(frozen=True)
class CatalogQuery:
    """What the ranking statements need from one catalog, computed once per catalog and model.

    ``tools`` and ``keys`` are parallel: the candidate (non-core) tools' documents, each
    (tool, key) once. ``score`` is how the statements combine a tool's distances.
    """

    model_id: str
    corpus_hash: str
    tools: tuple[str, ...]
    keys: tuple[str, ...]
    core: frozenset[str]
    candidates: frozenset[str]
    max_documents_per_tool: int
    score: ToolScore = DEFAULT_PROFILE.score
    max_summaries_per_tool: int = 1
    outside: frozenset[str] = frozenset()
    """Tools of the corpus that a cut catalog (``Catalog.only``) leaves out: an index scan over
    the corpus skips them as it skips core tools."""

    @classmethod
    def build(
        cls,
        catalog: Catalog,
        model_id: str,
        example_role: Role,
        profile: RetrievalProfile = DEFAULT_PROFILE,
    ) -> CatalogQuery:
        tools: list[str] = []
        keys: list[str] = []
        most = summaries = 1  # documents and summary vectors of the candidate with the most
        for tool in catalog.candidates:
            kinds = {doc.key: doc.kind for doc in tool.documents(example_role, profile.template)}
            documents = set(kinds)
            most = max(most, len(documents))
            examples = sum(kind == "example" for kind in kinds.values())
            summaries = max(summaries, summary_count(examples, profile.score))
            for key in sorted(documents):
                tools.append(tool.name)
                keys.append(key)
        return cls(
            model_id=model_id,
            corpus_hash=catalog.corpus_hash(model_id, example_role, profile.template),
            tools=tuple(tools),
            keys=tuple(keys),
            core=frozenset(tool.name for tool in catalog.core),
            candidates=frozenset(tool.name for tool in catalog.candidates),
            max_documents_per_tool=most,
            score=profile.score,
            max_summaries_per_tool=summaries,
            outside=frozenset(catalog.whole.names).difference(catalog.names),
        )

    @property
    def documents(self) -> int:
        """How many candidate documents the catalog has."""
        return len(self.keys)


def exact_sql(model_id: str, dimension: int, score: ToolScore, p: Placeholder) -> str:
    """Rank a catalog's own documents exactly (parameters: ``EXACT_PARAMETERS``).

    Rows ``(tool_name, distance, published)``: the ``limit`` nearest complete tools, then every
    incomplete tool with a NULL distance; ``published`` says whether this exact corpus is
    published. A tool's distance is one minus its ``score``.
    """
    model = sql_literal(model_id)
    cast = vector_cast(dimension)
    query, tools_of, keys = query_vector(dimension, p), p("tools"), p("keys")
    limit, corpus_hash = p("limit"), p("corpus_hash")
    tools = tool_distances(score)
    return f"""
WITH query AS MATERIALIZED (SELECT {query} AS q),
scored AS MATERIALIZED (
    SELECT c.tool_name, v.kind, v.embedding::{cast} <=> (SELECT q FROM query) AS distance
    FROM unnest({tools_of}::text[], {keys}::text[]) AS c(tool_name, doc_key)
    LEFT JOIN LATERAL (
        SELECT v.embedding, v.kind FROM toolret_vectors v
        WHERE v.model_id = {model} AND v.doc_key = c.doc_key
    ) AS v ON true
    UNION ALL  -- the corpus's learned example vectors (toolret.feedback._store)
    SELECT l.tool_name, 'example', l.embedding::{cast} <=> (SELECT q FROM query)
    FROM toolret_learned_vectors l
    WHERE l.model_id = {model} AND l.corpus_hash = {corpus_hash}
      AND l.tool_name = ANY ({tools_of}::text[])
      AND l.embedding::{cast} <=> (SELECT q FROM query) <= {LEARNED_MAX_DISTANCE}),
tools AS MATERIALIZED ({tools})
SELECT r.tool_name, r.distance,
       (SELECT c.published_at IS NOT NULL FROM toolret_corpora c
        WHERE c.model_id = {model} AND c.corpus_hash = {corpus_hash}) AS published
FROM ((SELECT tool_name, distance FROM tools WHERE complete ORDER BY distance, tool_name
       LIMIT {limit})
      UNION ALL
      (SELECT tool_name, NULL FROM tools WHERE NOT complete)) AS r
"""


FIRST_SCAN_PER_TOOL = 3
"""The first HNSW pass scans ``3 × k`` vectors, which on the demo roster holds ``k`` distinct
tools for the eval's messages; when it does not, a second pass scans ``k × most vectors of any
tool``, which always does."""


def hnsw_sql(model_id: str, dimension: int, tools: int, most_documents: int, p: Placeholder) -> str:
    """Rank a published corpus through the model's HNSW index over documents (max score).

    Parameters: ``INDEX_PARAMETERS`` (``exclude``: core tools, tools already bound). Returns the
    best ``tools`` other tools as ``(tool_name, distance)``,
    best first; no rows when the corpus is not published. A catalog without examples
    (``most_documents`` 1) scores every tool by its description, so under either score; a
    blended score with examples is ranked by ``toolret.store._summary_sql`` instead.

    A tool's score is its nearest vector, so the ``tools`` best tools are the first ``tools``
    distinct owners in distance order: scanning ``tools × most_documents`` vectors is certain
    to reach them. That can be ten times what is needed, so a first pass scans
    ``FIRST_SCAN_PER_TOOL × tools`` vectors, and the second pass runs (a one-time filter)
    only when the first found fewer distinct tools. Limits are literals, not parameters: a
    generic plan for ``LIMIT $n`` guesses a tenth of the table, and plans for that guess.
    """
    first = tools * min(FIRST_SCAN_PER_TOOL, most_documents)
    every = tools * most_documents
    model = sql_literal(model_id)
    cast = vector_cast(dimension)
    query, corpus_hash, exclude = query_vector(dimension, p), p("corpus_hash"), p("exclude")

    def scan(limit: int, gate: str) -> str:
        return f"""
    SELECT v.doc_key, v.embedding::{cast} <=> {query} AS distance
    FROM toolret_vectors v
    WHERE v.model_id = {model}
      AND {gate}
      AND EXISTS (SELECT FROM toolret_corpus_documents d
                  WHERE d.corpus_id = (SELECT id FROM corpus) AND d.doc_key = v.doc_key
                    AND d.tool_name <> ALL ({exclude}::text[]))
    ORDER BY distance
    LIMIT {int(limit)}"""

    def owners(scanned: str) -> str:
        return f"""
    SELECT d.tool_name, min(n.distance) AS distance
    FROM {scanned} n
    JOIN toolret_corpus_documents d
      ON d.corpus_id = (SELECT id FROM corpus) AND d.doc_key = n.doc_key
    WHERE d.tool_name <> ALL ({exclude}::text[])
    GROUP BY d.tool_name"""

    short = f"(SELECT id FROM corpus) IS NOT NULL AND (SELECT count(*) FROM ranked) < {int(tools)}"
    corpus = f"""
WITH corpus AS MATERIALIZED (
    SELECT id FROM toolret_corpora
    WHERE model_id = {model} AND corpus_hash = {corpus_hash} AND published_at IS NOT NULL),
learned AS MATERIALIZED (  -- the corpus's learned example vectors, scored exactly (few)
    SELECT l.tool_name, min(l.embedding::{cast} <=> {query}) AS distance
    FROM toolret_learned_vectors l
    WHERE l.model_id = {model} AND l.corpus_hash = {corpus_hash}
      AND (SELECT id FROM corpus) IS NOT NULL
      AND l.tool_name <> ALL ({exclude}::text[])
      AND l.embedding::{cast} <=> {query} <= {LEARNED_MAX_DISTANCE}
    GROUP BY l.tool_name),"""
    if first == every:
        return f"""{corpus}
nearest AS MATERIALIZED ({scan(every, "(SELECT id FROM corpus) IS NOT NULL")}),
ranked AS ({owners("nearest")})
SELECT tool_name, min(distance) AS distance
FROM (SELECT * FROM ranked UNION ALL SELECT * FROM learned) AS r
GROUP BY tool_name ORDER BY distance, tool_name LIMIT {int(tools)}
"""
    return f"""{corpus}
nearest AS MATERIALIZED ({scan(first, "(SELECT id FROM corpus) IS NOT NULL")}),
ranked AS MATERIALIZED ({owners("nearest")}),
farther AS MATERIALIZED ({scan(every, short)}),
reranked AS ({owners("farther")})
SELECT tool_name, min(distance) AS distance FROM (
    SELECT * FROM ranked WHERE (SELECT count(*) FROM ranked) >= {int(tools)}
    UNION ALL
    SELECT * FROM reranked
    UNION ALL
    SELECT * FROM learned) AS r
GROUP BY tool_name
ORDER BY distance, tool_name
LIMIT {int(tools)}
"""


def tool_distances(score: ToolScore, *, complete: bool = True) -> str:
    """Each tool's distance over rows ``(tool_name, kind, distance)`` named ``scored``, and
    whether all of its documents had a vector: ``(tool_name, distance, complete)``; without
    ``complete`` (rows that all have one), ``(tool_name, distance)``."""
    whole = ", bool_and(distance IS NOT NULL) AS complete" if complete else ""
    if score.kind == "max":
        return f"""
    SELECT tool_name, min(distance) AS distance{whole}
    FROM scored GROUP BY tool_name"""
    return f"""
    SELECT tool_name, {blend_distance(score)} AS distance{whole}
    FROM (SELECT *, row_number() OVER (PARTITION BY tool_name, kind ORDER BY distance) AS n
          FROM scored) AS s
    GROUP BY tool_name"""


def kind_distances(score: ToolScore) -> str:
    """``tool_distances(score, complete=False)``'s rows, over rows ``scored`` that all have a
    distance, with a blend's descriptions and examples scored apart: each tool's description
    distance is a minimum (no sort), and only the example rows are sorted, by tool and
    distance, for each tool's best few. The same numbers, summed in the same order; ``scored``
    must not be materialized, so that each half reads only its own kind's rows
    (``docs/decisions.md``, "A copy of a small corpus's vectors")."""
    if score.kind == "max":
        return tool_distances(score, complete=False)
    return f"""
    SELECT coalesce(d.tool_name, e.tool_name) AS tool_name,
           {_blended(score, "d.description", "e.examples")} AS distance
    FROM (SELECT tool_name, min(distance) AS description FROM scored
          WHERE kind = 'description' GROUP BY tool_name) AS d
    FULL JOIN (
        SELECT tool_name, avg(distance) AS examples
        FROM (SELECT tool_name, distance,
                     row_number() OVER (PARTITION BY tool_name ORDER BY distance) AS n
              FROM scored WHERE kind = 'example') AS x
        WHERE n <= {int(score.examples)}
        GROUP BY tool_name) AS e ON e.tool_name = d.tool_name"""


def blend_distance(score: ToolScore) -> str:
    """A tool's blended distance over rows ``(kind, distance, n)``, ``n`` the row's rank among
    the tool's documents of its kind: the weighted description and best-examples distances, or
    the description's alone for a tool without examples. One minus it is ``score``."""
    description = "min(distance) FILTER (WHERE kind = 'description')"
    examples = f"avg(distance) FILTER (WHERE kind = 'example' AND n <= {int(score.examples)})"
    return _blended(score, description, examples)


def _blended(score: ToolScore, description: str, examples: str) -> str:
    """A blend of a tool's ``description`` distance and the mean of its best examples'
    (``examples``, NULL without any): the weighted sum, or the description's alone."""
    weight = score.description_weight
    return f"coalesce({weight!r} * {description} + {1 - weight!r} * {examples}, {description})"


def query_vector(dimension: int, p: Placeholder) -> str:
    """The ``query`` parameter, a ``vector`` sent in pgvector's binary format, as the model's
    comparison type."""
    cast = vector_cast(dimension)
    plain = f"{p('query')}::vector({int(dimension)})"
    return plain if cast.startswith("vector") else f"{plain}::{cast}"


def with_named(ranking: str, named: str, *, published: str) -> str:
    """One statement: ``ranking``'s rows and ``named``'s (the exact statement over the tools a
    request names, ``toolret.store._read``). Rows ``(tool_name, distance, ranked, published)``:
    ``ranked`` false for the named tools' rows, ``published`` the expression for the ranking's
    rows; a ranking statement that finds nothing published returns no ranked row."""
    return f"""
SELECT r.tool_name, r.distance, true AS ranked, {published} AS published FROM ({ranking}) AS r
UNION ALL
SELECT n.tool_name, n.distance, false, n.published FROM ({named}) AS n
"""
