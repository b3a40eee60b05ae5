"""The ``toolret`` command line, run as a user runs it (real database, real model)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner, Result

from toolret.cli._app import app
from toolret.store._migrate import head_revision

COMMANDS = [
    [],
    ["search"],
    ["demo"],
    ["recall"],
    ["eval"],
    ["lint"],
    ["status"],
    ["reindex"],
    ["db"],
    ["db", "upgrade"],
    ["db", "downgrade"],
    ["db", "start"],
    ["db", "url"],
]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    """A runner whose environment points at the test database and has no Gemini key.

    The time budget is generous: these tests are about what is selected, and a loaded machine
    can take seconds per embedding.
    """
    monkeypatch.setenv("TOOLRET_DATABASE_URL", database_url)
    monkeypatch.setenv("TOOLRET_TIME_BUDGET_MS", "60000")
    for name in ("GEMINI_API_KEY", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"TOOLRET_{name}", raising=False)
    return CliRunner()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "toolret")
def test_every_command_explains_itself(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    assert len(result.output.split()) > 20


def test_search_with_bm25_on_a_json_catalog(tmp_path: Path) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "description": f"Tool number {i} does something quite specific, number {i}.",
            },
        }
        for i in range(15)
    ]
    tools.append(
        {
            "type": "function",
            "function": {
                "name": "export_csv",
                "description": "Export the records of an object to a CSV file to download.",
            },
        }
    )
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    result = CliRunner().invoke(
        app, ["search", "export to csv", "-c", str(path), "--mode", "bm25", "-k", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "export_csv" in result.output
    assert "narrowed" in result.output
    assert "2/16 tools" in result.output


def test_a_bad_catalog_spec_says_what_is_wrong() -> None:
    result = CliRunner().invoke(app, ["search", "hi", "-c", "no_such_module:catalog"])
    assert result.exit_code == 2
    assert "cannot import 'no_such_module'" in result.output


def test_demo_indexes_the_roster_and_narrows_every_message(cli: CliRunner) -> None:
    result = cli.invoke(app, ["demo"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert result.output.count("17/44") == 6
    assert "blank_message" in result.output
    assert "399 embedded now" in " ".join(result.output.split())
    again = cli.invoke(app, ["demo"], terminal_width=200)
    assert again.exit_code == 0, again.output
    assert "0 embedded now, 399 already stored" in " ".join(again.output.split())


def test_a_catalog_module_in_the_working_directory_is_found(tmp_path: Path) -> None:
    (tmp_path / "myagent.py").write_text(
        "from toolret import Catalog, Tool\n"
        "catalog = Catalog([Tool(f'tool_{i}', f'Tool number {i} does one specific thing {i}.')"
        " for i in range(14)] + [Tool('export_csv', 'Export the records of an object to a CSV"
        " file to download.')])\n"
    )
    toolret = Path(sys.executable).with_name("toolret")
    result = subprocess.run(
        [toolret, "search", "export csv", "-c", "myagent:catalog", "--mode", "bm25", "-k", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert result.returncode == 0, result.stderr
    assert "export_csv" in result.stdout


# -- error paths: one line that says what to do, a non-zero exit, never a traceback -----------


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


CLOSED_DATABASE = f"postgresql://nobody@127.0.0.1:{_closed_port()}/toolret"
CLEAN = dict.fromkeys(
    [
        f"{prefix}{name}"
        for name in ("DATABASE_URL", "REDIS_URL", "GEMINI_API_KEY")
        for prefix in ("", "TOOLRET_")
    ]
)
"""Unset for every error-path run, so only what a case sets is configured."""
ERROR_PATHS = [
    ("search", ["search", "delete a contact", "-c", "tests.support.tools:crm_catalog"]),
    ("demo", ["demo"]),
    ("status", ["status"]),
    ("reindex", ["reindex", "-c", "tests.support.tools:crm_catalog"]),
    ("db upgrade", ["db", "upgrade"]),
]


def _assert_one_line_error(result: Result, fix: str, code: int = 1) -> None:
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # exited, not crashed
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert fix in lines[0]


@pytest.mark.parametrize(("name", "command"), ERROR_PATHS, ids=[n for n, _ in ERROR_PATHS])
def test_a_database_that_cannot_be_reached_is_one_line_with_the_fix(
    name: str, command: list[str]
) -> None:
    environment = {**CLEAN, "TOOLRET_DATABASE_URL": CLOSED_DATABASE}
    result = CliRunner().invoke(app, command, env=environment, terminal_width=100)
    fix = "Postgres with pgvector runs there" if name == "db upgrade" else "TOOLRET_DATABASE_URL"
    _assert_one_line_error(result, fix)


def test_reindex_enqueue_with_redis_down_is_one_line_with_the_fix(tmp_path: Path) -> None:
    environment = {**CLEAN, "REDIS_URL": f"unix://{tmp_path / 'no-redis.sock'}"}
    command = ["reindex", "-c", "tests.support.tools:crm_catalog", "--enqueue"]
    result = CliRunner().invoke(app, command, env=environment)
    _assert_one_line_error(result, "check REDIS_URL")


def test_db_stop_with_an_unreadable_pid_file_is_one_line_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "postgres").mkdir()
    (tmp_path / "postgres" / "postmaster.pid").write_text("not a pid file\n")
    result = CliRunner().invoke(
        app, ["db", "stop"], env={**CLEAN, "TOOLRET_DATA_DIR": str(tmp_path)}
    )
    _assert_one_line_error(result, "delete the file")


@pytest.mark.parametrize("command", [["recall"], ["search", "hi"], ["status"]], ids=" ".join)
def test_a_setting_that_does_not_parse_is_one_line_naming_the_variable(command: list[str]) -> None:
    result = CliRunner().invoke(app, command, env={**CLEAN, "TOOLRET_K": "twelve"})
    _assert_one_line_error(result, "TOOLRET_K")


def test_status_says_plainly_that_the_database_is_not_migrated(empty_database_url: str) -> None:
    environment = {**CLEAN, "TOOLRET_DATABASE_URL": empty_database_url}
    result = CliRunner().invoke(app, ["status"], env=environment)
    _assert_one_line_error(result, "not migrated): run `toolret db upgrade`")


def test_status_says_plainly_that_the_schema_is_outdated(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute("UPDATE toolret_alembic_version SET version_num = '0000'")
    environment = {**CLEAN, "TOOLRET_DATABASE_URL": database_url}
    result = CliRunner().invoke(app, ["status"], env=environment)
    _assert_one_line_error(
        result, f"revision 0000, this toolret needs {head_revision()}: run `toolret db upgrade`"
    )


def test_the_installed_command_prints_one_line_and_exits_1() -> None:
    toolret = Path(sys.executable).with_name("toolret")
    environment = {name: value for name, value in os.environ.items() if name not in CLEAN}
    result = subprocess.run(
        [toolret, "status"],
        env={**environment, "TOOLRET_DATABASE_URL": CLOSED_DATABASE, "COLUMNS": "80"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: cannot reach the database")
    assert "TOOLRET_DATABASE_URL" in lines[0]
