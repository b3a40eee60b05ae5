"""Registered catalogs kept as written: ``toolret_catalogs.source`` becomes ``json``.

Revision ID: 0006
Revises: 0005 (tool summary vectors)
Create Date: 2026-12-02

``jsonb`` stores an object's keys in an order of its own (shorter keys first), so a process that
read a registration back built tools whose parameters were listed in another order than the
registering process had: other documents, without vectors. ``json`` keeps the text as written.

The rows already stored keep the text ``jsonb`` gives them (the order they were sent in is gone),
and ``content_hash`` becomes the SHA-256 of that text, as the service computes it for a new
registration. Every process then builds the same tools from them; registering the catalog again
as the application sends it replaces the row, and its tools are indexed as sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "toolret_catalogs"
_HASH_OF_TEXT = "encode(sha256(convert_to(source::text, 'UTF8')), 'hex')"


def upgrade() -> None:
    op.execute(f"ALTER TABLE {TABLE} ALTER COLUMN source TYPE json USING source::text::json")
    op.execute(f"UPDATE {TABLE} SET content_hash = {_HASH_OF_TEXT}")


def downgrade() -> None:
    # The hashes stay: a registration sent again after the downgrade replaces its row.
    op.execute(f"ALTER TABLE {TABLE} ALTER COLUMN source TYPE jsonb USING source::jsonb")
