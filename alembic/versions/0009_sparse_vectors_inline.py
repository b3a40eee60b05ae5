"""Sparse vectors stored in their rows, not in TOAST.

Revision ID: 0009
Revises: 0008 (sparse vectors)
Create Date: 2026-12-06

pgvector gives ``sparsevec`` the ``EXTERNAL`` storage: a value past ~2 KB (a vector of more
than ~250 latents; the bundled model's keep up to 512, ~3.3 KB on average) moves out of its row,
uncompressed, into the table's TOAST relation. The exact sparse ranking statement reads every
document of a catalog by key (``toolret.store._sparse_member_sql``): each one then costs a TOAST
index probe and its chunks besides the row, and that was most of the statement (527 documents:
6.3 ms, against 2.3 ms for the same statement without the sparse part).

``MAIN`` keeps the value in its row (a heap page holds up to ~8 KB; a larger one still moves
out, as a last resort), so a document's sparse vector is read with its row. Vectors already
written are rewritten once (the same values: the text form round-trips a ``real`` exactly), so
their rows hold them too. Storage only: no value, index or result changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "toolret_sparse_vectors"


def upgrade() -> None:
    op.execute(f"ALTER TABLE {TABLE} ALTER COLUMN sparse SET STORAGE MAIN")
    # SET STORAGE applies to rows written from now on: rewrite the ones stored out of line.
    op.execute(
        f"UPDATE {TABLE} SET sparse = sparse::text::sparsevec "
        "WHERE pg_column_size(sparse) > 2000"
    )


def downgrade() -> None:
    op.execute(f"ALTER TABLE {TABLE} ALTER COLUMN sparse SET STORAGE EXTERNAL")
