"""Vectors and corpora: pgvector, the global tables, the read-only role.

Revision ID: 0001
Revises:
Create Date: 2025-11-29

- ``toolret_vectors``: the served embeddings, one per (model id, document key), an untyped
  ``vector`` column so several models and dimensions share the table; each model gets a partial
  HNSW index (``embedding::vector(d)`` WHERE model_id = '...') when it is first indexed, which
  needs no migration when ``AI_EMBEDDINGS_MODEL`` changes.
- ``toolret_pending_vectors``: embeddings written by an indexing run whose corpus is not
  published yet (no HNSW index); publication moves them into ``toolret_vectors``.
- ``toolret_corpora`` and ``toolret_corpus_documents``: which (model, corpus hash) sets exist,
  their documents in order, and whether they are complete (published).
- Row-level security explicitly off; no tenant column: tool descriptions are application code.
- ``toolret_reader`` (NOLOGIN, created if absent): SELECT only on what the request path reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("toolret_vectors", "toolret_corpora", "toolret_corpus_documents")
ALL_TABLES = (*TABLES, "toolret_pending_vectors")
READER = "toolret_reader"


def _vector_table(name: str, extra_column: str = "") -> str:
    """The served and the pending vector tables share their columns; only the served one
    records when it was published."""
    return f"""
        CREATE TABLE {name} (
            model_id     text COLLATE "C" NOT NULL,
            doc_key      text COLLATE "C" NOT NULL,
            dimension    integer NOT NULL CHECK (dimension > 0),
            embedding    vector NOT NULL,
            role         text NOT NULL CHECK (role IN ('document', 'query')),
            kind         text NOT NULL CHECK (kind IN ('description', 'example')),
            tool_name    text NOT NULL,
            text         text NOT NULL,
            created_at   timestamptz NOT NULL DEFAULT now(),
            {extra_column}
            PRIMARY KEY (model_id, doc_key),
            CONSTRAINT {name}_dimension CHECK (vector_dims(embedding) = dimension)
        )
        """


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute(_vector_table("toolret_vectors", "published_at timestamptz NOT NULL DEFAULT now(),"))
    op.execute(_vector_table("toolret_pending_vectors"))
    op.execute(
        """
        CREATE TABLE toolret_corpora (
            id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            model_id     text COLLATE "C" NOT NULL,
            corpus_hash  text COLLATE "C" NOT NULL,
            documents    integer NOT NULL CHECK (documents >= 0),
            created_at   timestamptz NOT NULL DEFAULT now(),
            last_seen_at timestamptz NOT NULL DEFAULT now(),
            published_at timestamptz,
            CONSTRAINT toolret_corpora_model_corpus UNIQUE (model_id, corpus_hash)
        )
        """
    )
    op.execute(
        """
        CREATE TABLE toolret_corpus_documents (
            corpus_id bigint NOT NULL REFERENCES toolret_corpora (id) ON DELETE CASCADE,
            doc_key   text COLLATE "C" NOT NULL,
            tool_name text NOT NULL,
            position  integer NOT NULL,
            PRIMARY KEY (corpus_id, doc_key, tool_name)
        )
        """
    )
    # Keep vectors inline: by default TOAST moves the largest column (the vector) out of line
    # once a row passes 2 kB (a long description does that), costing every ranking probe a
    # second lookup. Rows up to 8 kB (768 dimensions and text) now stay in the heap page.
    op.execute(
        "ALTER TABLE toolret_vectors ALTER COLUMN embedding SET STORAGE MAIN, "
        "SET (toast_tuple_target = 8160)"
    )
    for table in ALL_TABLES:
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.execute(
        f"""
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{READER}') THEN
                CREATE ROLE {READER} NOLOGIN;
            END IF;
        EXCEPTION WHEN duplicate_object THEN
            NULL;  -- created by a concurrent migration of another database
        END
        $$
        """
    )
    op.execute(f"DO $$ BEGIN EXECUTE format('GRANT USAGE ON SCHEMA %I TO {READER}', current_schema()); END $$")
    op.execute(f"GRANT SELECT ON {', '.join(TABLES)} TO {READER}")


def downgrade() -> None:
    op.execute(f"DROP TABLE IF EXISTS {', '.join(reversed(ALL_TABLES))}")
    op.execute(
        f"""
        DO $$
        BEGIN
            IF EXISTS (SELECT FROM pg_roles WHERE rolname = '{READER}') THEN
                EXECUTE format('REVOKE USAGE ON SCHEMA %I FROM {READER}', current_schema());
                BEGIN
                    DROP ROLE {READER};
                EXCEPTION WHEN dependent_objects_still_exist THEN
                    RAISE NOTICE '{READER} still has privileges in another database; kept';
                END;
            END IF;
        END
        $$
        """
    )
    op.execute(
        """
        DO $$
        BEGIN
            DROP EXTENSION IF EXISTS vector;
        EXCEPTION WHEN dependent_objects_still_exist THEN
            RAISE NOTICE 'the vector extension is used by other objects; kept';
        END
        $$
        """
    )
