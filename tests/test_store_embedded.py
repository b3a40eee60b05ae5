"""With no DATABASE_URL, the CLI runs its own Postgres: started, migrated, kept, stopped."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolret.cli import app
from toolret.embedded_pg import data_directory, local_database_url, stop_local_server
from toolret.settings import Settings


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
    assert "schema revision: 0002" in status.output

    # The server outlives the command: the next one finds it, and its database, as they were.
    url = local_database_url(Settings(), migrate=False)
    assert url.startswith("postgresql://postgres@/toolret?host=")

    stopped = runner.invoke(app, ["db", "stop"])
    assert stopped.exit_code == 0, stopped.output
    assert "stopped" in stopped.output
    assert not stop_local_server(Settings())
