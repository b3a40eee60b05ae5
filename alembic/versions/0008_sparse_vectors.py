"""Sparse vectors: each document's "latent terms", for a model with a sparse head.

Revision ID: 0008
Revises: 0007 (tools used together)
Create Date: 2026-12-03

A model with a sparse head (the bundled model's: 16,384 latents, each vector keeping its 1,000
strongest) gives every document a ``sparsevec`` beside its dense vector. Ranking adds a tool's
sparse score to its dense one for the messages its profile gives the signal to
(``toolret.retrieval._sparse``).

- ``toolret_sparse_vectors``: one per (model id, head, document key), content-addressed like the
  dense vectors and written ahead of publication, as summary vectors are (unreachable until a
  published corpus marks the head). Each (model, head) gets a partial HNSW index (inner product)
  when its first corpus is published; pgvector indexes a ``sparsevec`` of at most 1,000
  non-zero elements, which the head's ``top_k`` respects.
- ``toolret_corpora.sparse``: the heads a corpus has every sparse vector for. A corpus published
  before (or by a toolret without the head) has none until the worker writes them; until then
  its messages are ranked without the sparse signal, and the client asks the worker.

A separate table, not a column of ``toolret_vectors``: the dense rows (and the learned vectors
filed under their corpora) stay as they are, a head's vectors are added to an existing corpus
without rewriting its rows, and a new head (another ``top_k``) never mixes with the old.
Global, row-level security off; ``toolret_reader`` may read it.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER = "toolret_reader"
TABLE = "toolret_sparse_vectors"


def upgrade() -> None:
    op.execute(
        f"""
        CREATE TABLE {TABLE} (
            model_id   text COLLATE "C" NOT NULL,
            head       text COLLATE "C" NOT NULL,
            doc_key    text COLLATE "C" NOT NULL,
            sparse     sparsevec NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (model_id, head, doc_key)
        )
        """
    )
    op.execute(f"ALTER TABLE {TABLE} DISABLE ROW LEVEL SECURITY")
    op.execute(f"GRANT SELECT ON {TABLE} TO {READER}")
    op.execute(
        "ALTER TABLE toolret_corpora ADD COLUMN sparse text[] COLLATE \"C\" NOT NULL DEFAULT '{}'"
    )


def downgrade() -> None:
    op.execute(f"DROP TABLE IF EXISTS {TABLE}")
    op.execute("ALTER TABLE toolret_corpora DROP COLUMN IF EXISTS sparse")
