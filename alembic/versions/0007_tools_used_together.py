"""Tools used together: how often the model called each tool, and each pair in one turn.

Revision ID: 0007
Revises: 0006 (registered catalogs as written)
Create Date: 2026-12-03

- ``toolret_companions``: one row per tool (``companion = tool_name``: the turns the model called
  it in) and per pair of tools called in the same turn (``tool_name < companion``: the turns it
  called both), each count decayed to ``updated_at`` (``toolret.store._companion_sql``). Tool
  names and counts only: no turn, catalog, model or text. The worker writes it from reported
  turns; ``toolret_reader`` reads it on the request path, where a tool bound or called brings
  its usual companions (``toolret.retrieval._companions``).

Global, row-level security off, like every toolret table.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER = "toolret_reader"
TABLE = "toolret_companions"


def upgrade() -> None:
    op.execute(
        f"""
        CREATE TABLE {TABLE} (
            tool_name   text COLLATE "C" NOT NULL,
            companion   text COLLATE "C" NOT NULL,
            turns       double precision NOT NULL CHECK (turns >= 0),
            updated_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (tool_name, companion),
            CONSTRAINT {TABLE}_ordered CHECK (tool_name <= companion)
        )
        """
    )
    op.execute(f"ALTER TABLE {TABLE} DISABLE ROW LEVEL SECURITY")
    op.execute(f"GRANT SELECT ON {TABLE} TO {READER}")


def downgrade() -> None:
    op.execute(f"DROP TABLE IF EXISTS {TABLE}")
