"""Catalogs registered over HTTP (``toolret serve``), shared by every process behind a balancer.

Revision ID: 0004
Revises: 0003 (corpus documents by tool)
Create Date: 2026-12-02

- ``toolret_catalogs``: one row per registered catalog name, holding the registration as sent
  (``source``: the tool JSON or MCP listings, core names, examples) and ``content_hash``, the
  SHA-256 of that source. A process keeps the catalogs it has built and re-reads a row only when
  its hash changed, so a replaced catalog is seen by every process on its next request.
- ``toolret_reader`` may read it: selections for registered catalogs work on the read-only role.
- ``toolret_catalog_writer`` (``NOLOGIN``, a member of ``toolret_reader``) may also write it and
  nothing else: the role a ``toolret serve`` that registers catalogs logs in through. Indexing
  still takes the owner's role (the worker, or ``toolret serve`` indexing inline).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER = "toolret_reader"
WRITER = "toolret_catalog_writer"
TABLE = "toolret_catalogs"


def upgrade() -> None:
    op.execute(
        f"""
        CREATE TABLE {TABLE} (
            name          text COLLATE "C" PRIMARY KEY,
            format        text NOT NULL CHECK (format IN ('openai', 'anthropic', 'mcp')),
            source        jsonb NOT NULL,
            content_hash  text COLLATE "C" NOT NULL,
            created_at    timestamptz NOT NULL DEFAULT now(),
            updated_at    timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute(f"ALTER TABLE {TABLE} DISABLE ROW LEVEL SECURITY")
    op.execute(f"GRANT SELECT ON {TABLE} TO {READER}")
    op.execute(
        f"""
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{WRITER}') THEN
                CREATE ROLE {WRITER} NOLOGIN IN ROLE {READER};
            END IF;
        EXCEPTION WHEN duplicate_object THEN
            NULL;  -- created by a concurrent migration of another database
        END
        $$
        """
    )
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {WRITER}")


def downgrade() -> None:
    op.execute(f"DROP TABLE IF EXISTS {TABLE}")
    op.execute(
        f"""
        DO $$
        BEGIN
            IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{WRITER}') THEN
                BEGIN
                    DROP ROLE {WRITER};
                EXCEPTION WHEN dependent_objects_still_exist THEN
                    RAISE NOTICE '{WRITER} still has privileges in another database; kept';
                END;
            END IF;
        END
        $$
        """
    )
