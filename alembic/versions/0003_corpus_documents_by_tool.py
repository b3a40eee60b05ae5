"""Look up a corpus's documents by tool: the blended tool score needs every document of a tool.

Revision ID: 0003
Revises: 0002 (feedback and learned vectors)
Create Date: 2026-12-02

A blended score (``toolret._profile.ToolScore``: the description and the best few examples
together) cannot be read off the nearest vectors alone: the HNSW ranking statement nominates
candidate tools from them, then scores each candidate over all of its documents. This index
finds a tool's documents in its corpus (the primary key leads with the document key).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "toolret_corpus_documents_tool"


def upgrade() -> None:
    op.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX} "
        "ON toolret_corpus_documents (corpus_id, tool_name) INCLUDE (doc_key)"
    )


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
