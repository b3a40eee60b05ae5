"""Feedback from real turns, and the learned example vectors promoted from it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

- ``toolret_feedback_turns``: one row per reported turn, keyed by (model id, corpus hash): the
  query vector the client already computed for the opening message, what the selection bound
  (non-core tools, best first), how many find_tools calls the turn made and the ``k`` it was
  selected with. ``text`` is NULL unless the operator opted in (``TOOLRET_FEEDBACK_TEXT=1``).
  ``learn`` records whether the application opted this catalog into learning.
- ``toolret_feedback_events``: per turn, each non-core tool the model called: a ``hit`` (the
  selection bound it) or a ``miss`` (it did not), whether find_tools surfaced it, and what the
  worker decided about promoting it (``promotion``: NULL until considered).
- ``toolret_learned_vectors``: the learned layer, per (model id, catalog corpus hash): miss
  vectors promoted to example vectors of the tool that was needed. Content-addressed
  (``doc_key`` is the SHA-256 of the model and the vector's bytes); the ranking statement unions
  them with the corpus's own documents. The only feedback table the read-only role can read.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER = "toolret_reader"
TABLES = ("toolret_feedback_turns", "toolret_feedback_events", "toolret_learned_vectors")


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE toolret_feedback_turns (
            id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            model_id         text COLLATE "C" NOT NULL,
            corpus_hash      text COLLATE "C" NOT NULL,
            created_at       timestamptz NOT NULL DEFAULT now(),
            k                integer NOT NULL CHECK (k > 0),
            bound            text[] NOT NULL,
            core             text[] NOT NULL DEFAULT '{}',
            find_tools_calls integer NOT NULL DEFAULT 0 CHECK (find_tools_calls >= 0),
            learn            boolean NOT NULL DEFAULT false,
            dimension        integer NOT NULL CHECK (dimension > 0),
            embedding        vector NOT NULL,
            text             text,
            CONSTRAINT toolret_feedback_turns_dimension CHECK (vector_dims(embedding) = dimension)
        )
        """
    )
    op.execute(
        "CREATE INDEX toolret_feedback_turns_corpus "
        "ON toolret_feedback_turns (model_id, corpus_hash, created_at)"
    )
    op.execute("CREATE INDEX toolret_feedback_turns_created ON toolret_feedback_turns (created_at)")
    op.execute(
        """
        CREATE TABLE toolret_feedback_events (
            turn_id         bigint NOT NULL REFERENCES toolret_feedback_turns (id)
                            ON DELETE CASCADE,
            tool_name       text NOT NULL,
            outcome         text NOT NULL CHECK (outcome IN ('hit', 'miss')),
            via_find_tools  boolean NOT NULL DEFAULT false,
            promotion       text,
            PRIMARY KEY (turn_id, tool_name)
        )
        """
    )
    op.execute(
        "CREATE INDEX toolret_feedback_events_unconsidered ON toolret_feedback_events (turn_id) "
        "WHERE outcome = 'miss' AND promotion IS NULL"
    )
    op.execute(
        """
        CREATE TABLE toolret_learned_vectors (
            model_id     text COLLATE "C" NOT NULL,
            corpus_hash  text COLLATE "C" NOT NULL,
            doc_key      text COLLATE "C" NOT NULL,
            tool_name    text NOT NULL,
            dimension    integer NOT NULL CHECK (dimension > 0),
            embedding    vector NOT NULL,
            turn_id      bigint REFERENCES toolret_feedback_turns (id) ON DELETE SET NULL,
            created_at   timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (model_id, corpus_hash, doc_key),
            CONSTRAINT toolret_learned_vectors_dimension CHECK (vector_dims(embedding) = dimension)
        )
        """
    )
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.execute(f"GRANT SELECT ON toolret_learned_vectors TO {READER}")


def downgrade() -> None:
    op.execute(f"DROP TABLE IF EXISTS {', '.join(reversed(TABLES))}")
