"""A copy of each small corpus's vectors, in the corpus's own rows.

Revision ID: 0010
Revises: 0009 (sparse vectors inline)
Create Date: 2026-12-06

A small catalog is ranked exactly: every one of its documents' vectors is read. Read from
``toolret_vectors`` (shared by every corpus and model), that is one primary-key probe per
document, and the probes were most of the statement (549 documents: ~1.5-1.9 ms of server time,
the distances ~0.3 ms). ``toolret_corpus_vectors`` holds a corpus's (tool, document) pairs with
the document's stored kind and vector, keyed by corpus first: the exact ranking reads them in
one index range scan (``toolret.store._member_sql``).

- Written in the transaction that publishes the corpus, for a corpus of at most 1,000 documents
  (``toolret.store._sql.COPY_LIMIT``: the copy doubles its vectors' storage, and a larger catalog
  is ranked through the index); ``toolret_corpora.copied`` says it is there. Deleted with its
  corpus. ``STORAGE MAIN``: a vector stays in its row up to a page, as in ``toolret_vectors``.
- A corpus published before this migration is copied by it (one statement, published corpora
  within the limit), so every existing small catalog reads its vectors from their rows at
  once. A corpus without a copy (larger, unpublished, or published by an older toolret after the
  upgrade) is ranked by probes as before.

Global, row-level security off; ``toolret_reader`` may read it.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER = "toolret_reader"
TABLE = "toolret_corpus_vectors"
COPY_LIMIT = 1000
"""Corpora of at most this many documents are copied (``toolret.store._sql.COPY_LIMIT`` then)."""


def upgrade() -> None:
    op.execute(
        f"""
        CREATE TABLE {TABLE} (
            corpus_id bigint NOT NULL REFERENCES toolret_corpora (id) ON DELETE CASCADE,
            tool_name text NOT NULL,
            doc_key   text COLLATE "C" NOT NULL,
            kind      text NOT NULL,
            embedding vector NOT NULL,
            PRIMARY KEY (corpus_id, tool_name, doc_key)
        )
        """
    )
    op.execute(f"ALTER TABLE {TABLE} ALTER COLUMN embedding SET STORAGE MAIN")
    op.execute(f"ALTER TABLE {TABLE} DISABLE ROW LEVEL SECURITY")
    op.execute(f"GRANT SELECT ON {TABLE} TO {READER}")
    op.execute("ALTER TABLE toolret_corpora ADD COLUMN copied boolean NOT NULL DEFAULT false")
    op.execute(  # every published corpus within the limit whose documents all have a vector
        f"""
        UPDATE toolret_corpora c SET copied = true
        WHERE c.published_at IS NOT NULL AND c.documents <= {COPY_LIMIT}
          AND NOT EXISTS (
              SELECT FROM toolret_corpus_documents d
              WHERE d.corpus_id = c.id
                AND NOT EXISTS (SELECT FROM toolret_vectors v
                                WHERE v.model_id = c.model_id AND v.doc_key = d.doc_key))
        """
    )
    op.execute(
        f"""
        INSERT INTO {TABLE} (corpus_id, tool_name, doc_key, kind, embedding)
        SELECT d.corpus_id, d.tool_name, d.doc_key, v.kind, v.embedding
        FROM toolret_corpora c
        JOIN toolret_corpus_documents d ON d.corpus_id = c.id
        JOIN toolret_vectors v ON v.model_id = c.model_id AND v.doc_key = d.doc_key
        WHERE c.copied
        """
    )
    op.execute(f"ANALYZE {TABLE}")


def downgrade() -> None:
    op.execute(f"DROP TABLE IF EXISTS {TABLE}")
    op.execute("ALTER TABLE toolret_corpora DROP COLUMN IF EXISTS copied")
