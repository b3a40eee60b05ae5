"""The README's examples for agents in other languages, run as written against a real service.

The curl block runs in bash with ``TOOLRET_URL``, ``TOOLRET_TOKEN`` and ``crm-tools.json`` in its
directory. The TypeScript block runs in node once its type annotations are removed (node runs
JavaScript; the annotations are the only TypeScript in it, and the removal is checked to leave
none), with a driver that passes it the registered tools.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
from pathlib import Path
from typing import Any

import httpx

from tests.support.http_serving import serving
from tests.support.service_catalog import registration
from toolret.retrieval._client import ToolRetrievalClient
from toolret.service._app import create_app
from toolret.service._settings import ServiceSettings

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## Agents in any language: `toolret serve`", 1)[1].split("\n## ", 1)[0]
CURL = next(
    block for block in re.findall(r"```sh\n(.*?)```", SECTION, re.DOTALL) if "curl" in block
)
TYPESCRIPT = re.findall(r"```typescript\n(.*?)```", SECTION, re.DOTALL)[0]
TOKEN = "tok-readme"


def javascript(typescript: str) -> str:
    """The TypeScript example without its types: declarations, annotations and casts."""
    code = re.sub(r"^interface \w+ \{\n.*?^\}\n", "", typescript, flags=re.DOTALL | re.MULTILINE)
    code = re.sub(r"^type \w+ = .*?;\n", "", code, flags=re.DOTALL | re.MULTILINE)
    code = re.sub(r"\): Promise<[^\n]*?> \{", ") {", code)
    code = re.sub(r"(\w+): (string|OpenAITool\[\])(?=[,)])", r"\1", code)
    code = re.sub(r" as [A-Z]\w*(?=[);])", "", code)
    typescript_left = r"\binterface\b|\btype \w+ =|: (string|number|Promise)\b| as [A-Z]"
    assert not re.search(typescript_left, code), code
    return code


async def run(*command: str, cwd: Path, env: dict[str, str]) -> str:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_the_curl_and_typescript_examples_work_as_written(
    database_url: str, tmp_path: Path
) -> None:
    assert shutil.which("curl"), "curl ships with the machine image"
    assert shutil.which("node"), "node (20) ships with the machine image: it runs the example"
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

        message = "Delete the duplicate contact for Acme Corp"
        driver = (
            f"\nconst allTools = {json.dumps(body['tools'])};\n"
            f"const chosen = await toolsFor({json.dumps(message)}, allTools);\n"
            "console.log(JSON.stringify(chosen.map((tool) => tool.function.name)));\n"
        )
        script = javascript(TYPESCRIPT) + driver
        node = ("node", "--input-type=module", "-e", script)
        chosen = json.loads(await run(*node, cwd=tmp_path, env=env))
        async with httpx.AsyncClient(base_url=server.url) as http:
            expected = await http.post(
                "/v1/select",
                json={"catalog": "crm", "message": message},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
        assert chosen == expected.json()["names"]
        assert len(chosen) < len(body["tools"])

        unreachable = {**env, "TOOLRET_URL": f"http://127.0.0.1:{_closed_port()}"}
        every = json.loads(await run(*node, cwd=tmp_path, env=unreachable))
        assert len(every) == len(body["tools"]), "toolret unreachable: every tool is sent"


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


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_the_typescript_example_keeps_the_request_fields_of_the_api() -> None:
    from toolret.service._models import SelectRequest, SelectResponse

    fields: dict[str, Any] = SelectResponse.model_fields
    interface = re.search(r"interface Selection \{\n(.*?)\n\}", TYPESCRIPT, re.DOTALL)
    assert interface is not None
    declared = {line.strip().split(":")[0] for line in interface[1].splitlines()}
    assert declared == set(fields)
    sent = re.search(r"JSON\.stringify\(\{ (.*?) \}\)", TYPESCRIPT)
    assert sent is not None
    assert set(sent[1].split(", ")) <= set(SelectRequest.model_fields)
