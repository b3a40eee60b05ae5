"""Per-tool summary vectors: the blended score through one nearest-neighbour scan.

Revision ID: 0005
Revises: 0004 (registered catalogs)
Create Date: 2026-12-01

A tool's blended score (its description and the mean of its best few examples) is the largest
inner product of the query with a few vectors derived from its documents
(``toolret.store._summaries``). The ranking statement of a large catalog scans those instead of
the documents, so one scan ranks tools by their blended score.

- ``toolret_summary_vectors``: the derived vectors, one per (model id, summary key); the key is
  a content address (the score's weight and the member documents' keys), so a vector is written
  once for every corpus that has the same tool. Each model gets a partial HNSW index over them
  (inner product) when it is first indexed, like its documents.
- ``toolret_corpus_summaries``: which summary vectors belong to which tool of a corpus, under
  which score, and whether they give the tool's score exactly (else a bound, and the statement
  scores the tool from its documents). Written in the transaction that publishes the corpus.
- ``toolret_corpora.summarized``: the scores a corpus has summaries for, read with the corpus
  row the statement looks up anyway (a probe of the summaries table itself was planned as a
  scan through every other corpus's rows: 10 ms at 100,000 tools).

Both global, row-level security off; ``toolret_reader`` may read them.

And a hash index on ``toolret_vectors.doc_key``: a small catalog is ranked by looking up each
of its documents by key (394 look-ups for the 44-tool roster), and a hash probe reads fewer
pages than the primary key's B-tree over (model id, 64-character key): the statement takes a
fifth less time in a 100,000-tool table (``docs/decisions.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER = "toolret_reader"
TABLES = ("toolret_summary_vectors", "toolret_corpus_summaries")
DOC_KEY_INDEX = "toolret_vectors_doc_key_hash"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE toolret_summary_vectors (
            model_id    text COLLATE "C" NOT NULL,
            summary_key text COLLATE "C" NOT NULL,
            dimension   integer NOT NULL CHECK (dimension > 0),
            embedding   vector NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (model_id, summary_key),
            CONSTRAINT toolret_summary_vectors_dimension CHECK (vector_dims(embedding) = dimension)
        )
        """
    )
    # Inline, as toolret_vectors: every probe of a scanned summary reads its vector.
    op.execute(
        "ALTER TABLE toolret_summary_vectors ALTER COLUMN embedding SET STORAGE MAIN, "
        "SET (toast_tuple_target = 8160)"
    )
    op.execute(
        """
        CREATE TABLE toolret_corpus_summaries (
            corpus_id   bigint NOT NULL REFERENCES toolret_corpora (id) ON DELETE CASCADE,
            score       text COLLATE "C" NOT NULL,
            summary_key text COLLATE "C" NOT NULL,
            tool_name   text NOT NULL,
            exact       boolean NOT NULL,
            PRIMARY KEY (corpus_id, score, summary_key, tool_name)
        )
        """
    )
    op.execute(
        "ALTER TABLE toolret_corpora ADD COLUMN summarized text[] COLLATE \"C\" NOT NULL "
        "DEFAULT '{}'"
    )
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.execute(f"GRANT SELECT ON {', '.join(TABLES)} TO {READER}")
    op.execute(f"CREATE INDEX IF NOT EXISTS {DOC_KEY_INDEX} ON toolret_vectors USING hash (doc_key)")


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {DOC_KEY_INDEX}")
    op.execute(f"DROP TABLE IF EXISTS {', '.join(reversed(TABLES))}")
    op.execute("ALTER TABLE toolret_corpora DROP COLUMN IF EXISTS summarized")
