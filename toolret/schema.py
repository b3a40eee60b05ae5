"""The vector store's tables, as SQLAlchemy Core metadata.

Three global tables (no tenant column, row-level security off; the migration in ``alembic/``
creates them and is the source of truth, this module mirrors it for queries):

- ``toolret_vectors``: the served embeddings, one per (model id, document key). The key is the
  SHA-256 of a document's role and text, so a vector is written once and reused by every
  catalog version that contains the same text. ``embedding`` is an untyped ``vector``: several
  models (several dimensions) share the table, each with its own partial HNSW index
  (``hnsw_index_sql``). Only vectors of a published corpus are ever here.
- ``toolret_pending_vectors``: the same columns, for vectors an indexing run has written but
  not yet published. Publication moves them into ``toolret_vectors`` in the transaction that
  marks the corpus published (moving, not flagging: updating a row of an HNSW-indexed table
  re-inserts it into the graph).
- ``toolret_corpora``: one row per (model id, corpus hash) ever indexed, ``published_at`` NULL
  until every one of its vectors is written, ``last_seen_at`` for garbage collection.
- ``toolret_corpus_documents``: a corpus's documents in order, with the tool each belongs to.
  A table rather than an array so the request path can probe membership through an index.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import BigInteger, Column, DateTime, ForeignKey, Integer, MetaData, Table, Text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from toolret.errors import ConfigurationError, StoreError

__all__ = [
    "HNSW_MAX_DIMENSION",
    "READER_ROLE",
    "VERSION_TABLE",
    "corpora",
    "corpus_documents",
    "database_revision",
    "downgrade_database",
    "head_revision",
    "hnsw_index_name",
    "hnsw_index_sql",
    "metadata",
    "pending_vectors",
    "sql_literal",
    "upgrade_database",
    "vector_cast",
    "vectors",
]

READER_ROLE = "toolret_reader"
"""The role the migration grants SELECT on every toolret table (and nothing else)."""
VERSION_TABLE = "toolret_alembic_version"
"""Alembic's version table for toolret: its own, so it never collides with the application's."""
HNSW_MAX_DIMENSION = 4000
"""pgvector indexes ``vector`` up to 2,000 dimensions and ``halfvec`` up to 4,000."""
_VECTOR_MAX_DIMENSION = 2000

metadata = MetaData()


def _vector_columns() -> list[Column[object]]:
    return [
        Column("model_id", Text, primary_key=True),
        Column("doc_key", Text, primary_key=True),
        Column("dimension", Integer, nullable=False),
        Column("embedding", VECTOR(), nullable=False),
        Column("role", Text, nullable=False),
        Column("kind", Text, nullable=False),
        Column("tool_name", Text, nullable=False),
        Column("text", Text, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
    ]


vectors = Table(
    "toolret_vectors",
    metadata,
    *_vector_columns(),
    Column("published_at", DateTime(timezone=True), nullable=False),
)

pending_vectors = Table("toolret_pending_vectors", metadata, *_vector_columns())

corpora = Table(
    "toolret_corpora",
    metadata,
    Column("id", BigInteger, primary_key=True),
    Column("model_id", Text, nullable=False),
    Column("corpus_hash", Text, nullable=False),
    Column("documents", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=False),
    Column("published_at", DateTime(timezone=True)),
)

corpus_documents = Table(
    "toolret_corpus_documents",
    metadata,
    Column("corpus_id", BigInteger, ForeignKey("toolret_corpora.id"), primary_key=True),
    Column("doc_key", Text, primary_key=True),
    Column("tool_name", Text, primary_key=True),
    Column("position", Integer, nullable=False),
)


def sql_literal(value: str) -> str:
    """A SQL string literal (standard-conforming strings): ``it's`` becomes ``'it''s'``."""
    if "\x00" in value:
        raise ValueError("a SQL literal cannot contain NUL")
    return "'" + value.replace("'", "''") + "'"


def vector_cast(dimension: int) -> str:
    """The type a model's vectors are compared as: ``vector(d)``, or ``halfvec(d)`` above 2,000."""
    kind = "vector" if dimension <= _VECTOR_MAX_DIMENSION else "halfvec"
    return f"{kind}({int(dimension)})"


def hnsw_index_name(model_id: str) -> str:
    """The name of a model's partial HNSW index (a hash: model ids are not identifiers)."""
    return "toolret_hnsw_" + hashlib.sha256(model_id.encode()).hexdigest()[:16]


def hnsw_index_sql(model_id: str, dimension: int) -> str:
    """``CREATE INDEX`` for one model: cosine HNSW over ``embedding::vector(d)``, only its rows.

    The ranking query repeats the same expression and the same literal ``model_id`` predicate,
    which is what lets the planner use this index (a ``model_id = $1`` parameter would not).
    """
    cast = vector_cast(dimension)
    ops = "vector_cosine_ops" if cast.startswith("vector") else "halfvec_cosine_ops"
    return (
        f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(model_id)} ON toolret_vectors "
        f"USING hnsw ((embedding::{cast}) {ops}) WHERE model_id = {sql_literal(model_id)}"
    )


def upgrade_database(url: str, revision: str = "head") -> None:
    """Migrate the database at ``url`` to ``revision`` (``alembic upgrade``), in this process.

    Blocking; Alembic runs its own event loop (in a thread of its own when called from async
    code). Safe to run concurrently: migrations hold an advisory lock. Raises ``StoreError``
    (saying what to check) when the database cannot be reached or migrated.
    """
    from alembic import command, util

    try:
        command.upgrade(_alembic_config(url), revision)
    except (SQLAlchemyError, OSError, util.CommandError) as error:
        raise StoreError(
            f"migrating {_without_password(url)} failed ({_first_line(error)}): check the URL, "
            "that Postgres with pgvector runs there, and that the role may create tables and "
            "the vector extension (migrate as the database owner)"
        ) from error


def head_revision() -> str:
    """The schema revision this toolret's statements are written for (Alembic's head)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config("")).get_current_head()
    if head is None:  # pragma: no cover - the package ships its migrations
        raise ConfigurationError("toolret's migrations have no head revision")
    return head


def downgrade_database(url: str, revision: str = "base") -> None:
    """Undo toolret's migrations down to ``revision`` (``alembic downgrade``), in this process.

    ``revision`` is a revision id, ``base`` (remove everything toolret created) or ``-N`` (N
    steps back). Raises ``ConfigurationError`` naming the known revisions when toolret has no
    such revision, and ``StoreError`` when the database cannot be reached or migrated.
    """
    from alembic.script import ScriptDirectory

    from alembic import command, util

    config = _alembic_config(url)
    known = [script.revision for script in ScriptDirectory.from_config(config).walk_revisions()]
    if revision != "base" and revision not in known and not _steps_back(revision):
        raise ConfigurationError(
            f"toolret has no schema revision {revision!r}: give one of "
            f"{', '.join(reversed(known))}, base (remove toolret's tables), or -N (N steps back)"
        )
    try:
        command.downgrade(config, revision)
    except (SQLAlchemyError, OSError, util.CommandError) as error:
        raise StoreError(
            f"downgrading {_without_password(url)} to {revision} failed ({_first_line(error)}): "
            "check the URL and the revision (`toolret status` shows the current one), and "
            "migrate as the database owner"
        ) from error


def database_revision(url: str) -> str | None:
    """The toolret schema revision of the database at ``url`` (``None``: not migrated).

    Blocking: runs its own event loop, like ``upgrade_database``.
    """
    import asyncio

    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import pool
    from sqlalchemy.ext.asyncio import create_async_engine

    from toolret.store import asyncpg_url

    def current(connection: Any) -> str | None:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        revision: str | None = context.get_current_revision()
        return revision

    async def read() -> str | None:
        engine = create_async_engine(asyncpg_url(url), poolclass=pool.NullPool)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(current)
        finally:
            await engine.dispose()

    try:
        return asyncio.run(read())
    except (SQLAlchemyError, OSError) as error:
        raise StoreError(
            f"reading the schema revision of {_without_password(url)} failed "
            f"({_first_line(error)}): check the URL and that Postgres runs there"
        ) from error


def _steps_back(revision: str) -> bool:
    return revision.startswith("-") and revision[1:].isdigit() and int(revision[1:]) > 0


def _without_password(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "the database"


def _first_line(error: BaseException) -> str:
    """The driver's own message when SQLAlchemy wraps one (its text adds the SQL and a link)."""
    text = str(getattr(error, "orig", None) or error).strip()
    return text.splitlines()[0] if text else repr(error)


def migrations_dir() -> Path:
    """Where toolret's Alembic scripts are: ``toolret/migrations`` inside the package.

    In a checkout that is a link to the top-level ``alembic/`` (what ``alembic.ini`` runs); the
    wheel carries the files themselves, so an installed toolret migrates any database.
    """
    return Path(__file__).resolve().parent / "migrations"


def _alembic_config(url: str) -> Any:
    from alembic.config import Config

    scripts = migrations_dir()
    if not (scripts / "env.py").is_file():
        raise ConfigurationError(
            f"toolret's migrations are not at {scripts}: the installation is incomplete; "
            "reinstall toolret (pip install --force-reinstall toolret)"
        )
    config = Config()
    config.set_main_option("script_location", str(scripts))
    config.attributes["database_url"] = url
    return config
