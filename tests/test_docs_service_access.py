"""``docs/service.md``'s blocks, run as written: the Python example against a real database, the
tokens JSON as ``TOOLRET_SERVE_TOKENS`` of a real service, and the curl call against it."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from tests.support.http_serving import serving
from tests.support.serve_process import run_ok as run
from tests.support.service_catalog import registration
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._app import create_app
from toolret.service._settings import ServiceSettings, read_tokens

GUIDE = (Path(__file__).resolve().parent.parent / "docs" / "service.md").read_text(encoding="utf-8")
SECTION = GUIDE.split("## Many processes, partly indexed catalogs", 1)[1].split("\n## ", 1)[0]
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", SECTION, re.DOTALL)


def block(language: str) -> str:
    (text,) = [text for lang, text in BLOCKS if lang == language]
    return text


def test_every_block_of_the_section_is_run_here() -> None:
    assert sorted(lang for lang, _ in BLOCKS) == ["json", "python", "sh"]


async def test_the_python_example_ranks_only_among_the_allowed_tools(
    database_url: str, tmp_path: Path
) -> None:
    script = tmp_path / "example.py"
    shown = "print(selection.names, selection.mode.value, selection.reason, selection.unranked)"
    code = block("python").replace("print(len(selection.names))", shown)  # what the prose says
    assert shown in code
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("REDIS_URL", None)
    output = await run(sys.executable, str(script), cwd=tmp_path, env=env)
    names_text, rest = output.strip().split("] ", 1)
    names = ast.literal_eval(names_text + "]")
    assert names[0] == "find_records"
    assert len(names) == 3
    assert all(
        n in ("find_records", "merge_records") or n.startswith(("delete_", "bulk_")) for n in names
    )
    assert rest == "narrowed None ()"


async def test_the_token_json_and_the_curl_call_work_as_written(
    database_url: str, tmp_path: Path
) -> None:
    assert shutil.which("curl"), "curl ships with the machine image"
    tokens = read_tokens(block("json"))
    client = ToolRetrievalClient(database_url, time_budget=10.0)
    app = create_app(ServiceSettings(tokens=tokens), client=client)
    async with client, serving(app) as server:
        env = {"PATH": "/usr/bin:/bin", "TOOLRET_URL": server.url}
        (tmp_path / "crm-tools.json").write_text(json.dumps(registration()), encoding="utf-8")
        register = (
            'curl -sS "$TOOLRET_URL/v1/catalogs/crm" -H "Authorization: Bearer tok-ops" '
            "-H 'Content-Type: application/json' -d @crm-tools.json"
        )
        await run("bash", "-e", "-c", register, cwd=tmp_path, env=env)
        selected: dict[str, Any] = json.loads(
            await run("bash", "-e", "-c", block("sh"), cwd=tmp_path, env=env)
        )
    assert selected["mode"] == "narrowed"
    assert (selected["reason"], selected["unranked"]) == (None, [])
    assert len(selected["names"]) == 2
    assert all(name.startswith("delete_") for name in selected["names"]), selected
