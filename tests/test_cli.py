"""The ``toolret`` command line, run as a user runs it (real database, real model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolret.cli import app

COMMANDS = [[], ["search"], ["demo"], ["eval"], ["status"], ["reindex"], ["db"], ["db", "upgrade"]]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    """A runner whose environment points at the test database and has no Gemini key."""
    monkeypatch.setenv("TOOLRET_DATABASE_URL", database_url)
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
