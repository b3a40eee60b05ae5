"""toolret's migrations: upgrade, downgrade and read the schema revision of a database.

The Alembic scripts ship inside the package (``toolret/migrations``; in a checkout, a link to
the top-level ``alembic/``), so an installed toolret migrates any database. Each function is
blocking (Alembic runs its own event loop) and raises ``StoreError`` saying what to check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from toolret.errors import ConfigurationError, StoreError
from toolret.store._schema import VERSION_TABLE
from toolret.store._types import asyncpg_url

__all__ = [
    "database_revision",
    "downgrade_database",
    "head_revision",
    "migrations_dir",
    "upgrade_database",
]


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
    return Path(__file__).resolve().parent.parent / "migrations"


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
