"""The service guide's curl example for agents in other languages, run as written against a real
service, in bash with ``TOOLRET_URL``, ``TOOLRET_TOKEN`` and ``crm-tools.json`` in its directory.
The TypeScript guide's blocks run from the packed npm client (``tests/test_typescript_package.py``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from tests.support.http_serving import serving
from tests.support.serve_process import run_ok as run
from tests.support.service_catalog import registration
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._app import create_app
from toolret.service._settings import ServiceSettings

GUIDE = (Path(__file__).resolve().parent.parent / "docs" / "service.md").read_text("utf-8")
SECTION = GUIDE.split("## Agents in any language: `toolret serve`", 1)[1].split("\n## ", 1)[0]
CURL = next(
    block for block in re.findall(r"```sh\n(.*?)```", SECTION, re.DOTALL) if "curl" in block
)
TOKEN = "tok-readme"


async def test_the_curl_example_works_as_written(database_url: str, tmp_path: Path) -> None:
    assert shutil.which("curl"), "curl ships with the machine image"
    body = registration()
    (tmp_path / "crm-tools.json").write_text(json.dumps(body), encoding="utf-8")
    client = ToolRetrievalClient(database_url, time_budget=10.0)
    app = create_app(ServiceSettings(tokens={TOKEN: ("crm",)}), client=client)
    async with client, serving(app) as server:
        env = {"PATH": "/usr/bin:/bin", "TOOLRET_URL": server.url, "TOOLRET_TOKEN": TOKEN}
        output = await run("bash", "-e", "-c", CURL, cwd=tmp_path, env=env)
        registered, selected = _objects(output)
        assert registered["catalog"] == "crm"
        assert registered["indexing"]["state"] == "indexed"
        assert selected["mode"] == "narrowed"
        assert "delete_record" in selected["names"]


def _objects(output: str) -> list[Any]:
    """The JSON bodies curl printed one after the other (with no newline between them)."""
    decoder, objects, at = json.JSONDecoder(), [], 0
    while at < len(output.rstrip()):
        value, at = decoder.raw_decode(output, at)
        objects.append(value)
        while at < len(output) and output[at].isspace():
            at += 1
    assert len(objects) == 2, output
    return objects
