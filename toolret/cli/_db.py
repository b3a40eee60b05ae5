"""``toolret db``: migrate the database; start, locate and stop the embedded server."""

from __future__ import annotations

from typing import Annotated

import typer

from toolret.cli._errors import error_console, fail
from toolret.cli._options import UrlOption, console

__all__ = ["db_app"]

db_app = typer.Typer(
    help="The vector database: migrate it; start, locate or stop the embedded Postgres that "
    "commands use when DATABASE_URL is not set."
)


@db_app.command("upgrade")
def db_upgrade(url: UrlOption = None) -> None:
    """Migrate the database to the latest schema (alembic upgrade head)."""
    from toolret.store._migrate import upgrade_database
    from toolret.store.embedded import resolve_database_url

    target = url or resolve_database_url()
    upgrade_database(target)
    console.print("database at the latest schema")


@db_app.command("downgrade", context_settings={"ignore_unknown_options": True})
def db_downgrade(
    revision: Annotated[
        str,
        typer.Argument(help="A revision id, base (remove toolret's tables), or -N steps back."),
    ] = "-1",
    url: UrlOption = None,
) -> None:
    """Undo toolret's migrations to REVISION (alembic downgrade; default one step, -1)."""
    from toolret.store._migrate import database_revision, downgrade_database
    from toolret.store.embedded import resolve_database_url

    target = url or resolve_database_url()
    before = database_revision(target)
    if before is None:
        console.print("the database has no toolret schema: nothing to downgrade")
        return
    downgrade_database(target, revision)
    after = database_revision(target) or "base (no toolret tables)"
    console.print(f"database downgraded from {before} to {after}")


@db_app.command("start")
def db_start() -> None:
    """Start the embedded Postgres (if it is not running), migrate it, print its URL.

    The URL is the only thing on stdout, for scripts and the worker:
    export DATABASE_URL=$(toolret db start). Running it again changes nothing.
    """
    from toolret.store.embedded import data_directory, local_database_url, running_database_url

    was_running = running_database_url() is not None
    url = local_database_url()
    state = "was already running" if was_running else "started"
    error_console.print(f"the embedded Postgres in {data_directory()} {state}; its URL:")
    typer.echo(url)


@db_app.command("url")
def db_url() -> None:
    """Print the URL of the running embedded Postgres (nothing else on stdout).

    Exits 1 if it is not running: `toolret db start` starts it and prints the same URL.
    """
    from toolret.store.embedded import data_directory, running_database_url

    url = running_database_url()
    if url is None:
        fail(
            f"the embedded Postgres in {data_directory()} is not running: `toolret db start` "
            "starts it and prints its URL"
        )
    typer.echo(url)


@db_app.command("stop")
def db_stop() -> None:
    """Stop the embedded Postgres (it keeps running between commands otherwise)."""
    from toolret.store.embedded import stop_local_server

    console.print("stopped" if stop_local_server() else "the embedded Postgres was not running")
