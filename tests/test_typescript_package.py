"""The packed TypeScript client, as a user gets it: ``npm pack``, installed into an empty
directory, runs the package README's example and the TypeScript guide's agent turns
(``docs/typescript.md``) as written, type-checked against the declarations it ships, against a
live ``toolret serve`` and the strict local model servers."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path

from tests.support.fake_llm import CHAT, MESSAGES, FakeLLM, anthropic_message, chat_completion
from tests.support.serve_process import start_serve, stop_serve
from tests.support.service_catalog import registration
from tests.support.typescript import PACKAGE, node_run, require_node
from tests.test_typescript_client import TOKEN, service

ROOT = PACKAGE.parents[1]
README = (PACKAGE / "README.md").read_text(encoding="utf-8")
GUIDE = (ROOT / "docs" / "typescript.md").read_text(encoding="utf-8")


SDKS = (
    "openai",
    "@anthropic-ai/sdk",
    "ai",
    "@ai-sdk/openai",
    "zod",
    "langchain",
    "@langchain/core",
    "@langchain/openai",
)
"""The pinned SDKs and frameworks the examples import, linked into the user's app."""


def blocks(text: str) -> list[str]:
    """Every TypeScript block of a page, in order."""
    return re.findall(r"```typescript\n(.*?)```", text, re.DOTALL)


def block(text: str) -> str:
    """The first TypeScript block of a page."""
    found = re.search(r"```typescript\n(.*?)```", text, re.DOTALL)
    assert found is not None
    return found[1]


def install_packed(app: Path) -> None:
    """``npm pack`` the package, then install the tarball into the empty ``app`` (offline: it
    has no dependencies, and its frameworks are optional peers); the SDKs and frameworks the
    guide imports are the pinned ones, linked in."""
    require_node()
    pack = app.parent / "pack"
    pack.mkdir()
    packed = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", str(pack)],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
    )
    assert packed.returncode == 0, packed.stderr
    listing = json.loads(packed.stdout[packed.stdout.index("[") :])[0]
    files = {entry["path"] for entry in listing["files"]}
    assert {"dist/index.js", "dist/index.d.ts", "README.md", "package.json"} <= files
    assert not any(path.startswith(("src/", "test/", "build/")) for path in files), files
    app.mkdir()
    (app / "package.json").write_text('{"private": true, "type": "module"}', encoding="utf-8")
    installed = subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund", str(pack / listing["filename"])],
        cwd=app,
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    assert (app / "node_modules" / "@toolret" / "client" / "dist" / "index.d.ts").exists()
    for sdk in SDKS:
        link = app / "node_modules" / sdk
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(PACKAGE / "node_modules" / sdk, target_is_directory=True)
    tsconfig = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "exactOptionalPropertyTypes": True,
            "skipLibCheck": True,
            "types": ["node"],
            "typeRoots": [str(PACKAGE / "node_modules" / "@types")],
        },
        "include": ["*.ts"],
    }
    (app / "tsconfig.json").write_text(json.dumps(tsconfig), encoding="utf-8")


async def compile_app(app: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        str(PACKAGE / "node_modules" / ".bin" / "tsc"),
        "-p",
        str(app),
        cwd=app,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    assert process.returncode == 0, f"the examples do not type-check:\n{out.decode()}"


async def test_the_packed_client_runs_the_readme_and_the_guide_as_written(
    database_url: str, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    install_packed(app)
    (app / "quickstart.ts").write_text(block(README), encoding="utf-8")
    (app / "turns.ts").write_text(block(GUIDE), encoding="utf-8")
    tools = registration()["tools"]
    (app / "crm-tools.json").write_text(json.dumps(tools), encoding="utf-8")
    await compile_app(app)

    with FakeLLM() as fake:
        async with service(database_url) as server:
            env = {
                "TOOLRET_URL": server.url,
                "TOOLRET_TOKEN": TOKEN,
                "OPENAI_BASE_URL": f"{fake.url}/v1",
                "OPENAI_API_KEY": "test",
                "ANTHROPIC_BASE_URL": fake.url,
                "ANTHROPIC_API_KEY": "test",
            }
            lines = (await node_run(app / "quickstart.js", cwd=app, **env)).splitlines()
            assert len(lines) == 3, lines
            for line in lines:
                mode, reason, sent, _, total = line.split()
                assert (mode, reason, int(total)) == ("narrowed", "null", len(tools)), line
                assert int(sent) < len(tools)

            find = {"id": "call_1", "name": "find_tools", "arguments": {"capability": "حذف"}}
            look = {"id": "call_2", "name": "find_records", "arguments": {"query": "Acme"}}
            fake.reply(CHAT, chat_completion(tool_calls=[find, look]))
            fake.reply(CHAT, chat_completion("Done."))
            use = {"type": "tool_use", "id": "toolu_1", "name": "delete_record", "input": {}}
            fake.reply(MESSAGES, anthropic_message([use], "tool_use"))
            fake.reply(MESSAGES, anthropic_message([{"type": "text", "text": "Deleted."}]))
            output = (await node_run(app / "turns.js", cwd=app, **env)).splitlines()
    assert fake.rejections == []
    assert output[0] == "narrowed Done."
    assert output[1].startswith("narrowed ")
    assert "Deleted." in output[1]
    assert output[2] == "full service_unreachable true"
    first_chat, second_chat = fake.bodies(CHAT)
    assert len(first_chat["tools"]) < len(tools) + 1
    assert [m["role"] for m in second_chat["messages"]] == ["user", "assistant", "tool", "tool"]
    first_claude = fake.bodies(MESSAGES)[0]
    assert "delete_record" in [tool["name"] for tool in first_claude["tools"]]


COMMONJS = """\
import { ConfigurationError, ToolretClient, defineCatalog } from "@toolret/client";
import { findToolsDefinition } from "@toolret/client";

const catalog = defineCatalog("crm", { format: "mcp", servers: { crm: [{ name: "search" }] } });
const client = new ToolretClient({ url: "http://127.0.0.1:9", token: process.env.TOOLRET_TOKEN });
client.select(catalog, "find Acme").then((selection) => {
  let refused = "";
  try {
    new ToolretClient({ url: "http://127.0.0.1:9", timeoutMs: Number.NaN });
  } catch (error) {
    refused = error instanceof ConfigurationError ? error.option : String(error);
  }
  console.log(selection.mode, selection.names.join(), findToolsDefinition("gemini").name, refused);
});
"""


async def test_a_commonjs_consumer_under_module_node16_requires_the_package(
    tmp_path: Path,
) -> None:
    app = tmp_path / "app"
    install_packed(app)
    (app / "package.json").write_text('{"private": true, "type": "commonjs"}', encoding="utf-8")
    tsconfig = json.loads((app / "tsconfig.json").read_text(encoding="utf-8"))
    tsconfig["compilerOptions"].update(module="node16", moduleResolution="node16")
    (app / "tsconfig.json").write_text(json.dumps(tsconfig), encoding="utf-8")
    (app / "consumer.ts").write_text(COMMONJS, encoding="utf-8")
    await compile_app(app)
    compiled = (app / "consumer.js").read_text(encoding="utf-8")
    assert 'require("@toolret/client")' in compiled
    output = await node_run(app / "consumer.js", cwd=app)
    assert output.split() == ["full", "crm__search", "find_tools", "timeoutMs"]


def test_the_guide_names_every_module_the_package_imports() -> None:
    """The main entry has no npm dependencies: it imports only its own files and Node's
    modules, and the guide and the package README name each of those. A framework's sub-path
    imports only that framework, each an optional peer dependency of the package."""
    manifest = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    peers = manifest["peerDependencies"]
    assert all(manifest["peerDependenciesMeta"][peer]["optional"] for peer in peers)
    subpaths = {"ai-sdk.ts", "langchain.ts"}
    assert {f"./{Path(name).stem}" for name in subpaths} | {"."} <= set(manifest["exports"])
    imported: set[str] = set()
    for source in (PACKAGE / "src").glob("*.ts"):
        text = source.read_text(encoding="utf-8")
        found = re.findall(r'^import [^;]*? from "([^"]+)";', text, re.MULTILINE | re.DOTALL)
        outside = {name for name in found if not name.startswith("./")}
        if source.name in subpaths:
            packages = {
                "/".join(name.split("/")[: 2 if name.startswith("@") else 1]) for name in outside
            }
            assert packages <= set(peers), (source.name, packages)
        else:
            imported |= outside
    assert all(name.startswith("node:") for name in imported), imported
    for page in (GUIDE, README):
        assert "no npm dependencies" in page
        assert all(f"`{name}`" in page for name in imported), imported


AI_TOOLS = """\
import { readFileSync } from "node:fs";
import { type JSONSchema7, type ToolSet, jsonSchema, tool } from "ai";

type Entry = { function: { name: string; description: string; parameters: JSONSchema7 } };
const entries = JSON.parse(readFileSync("crm-tools.json", "utf8")) as Entry[];
export const crmTools: ToolSet = Object.fromEntries(
  entries.map(({ function: f }) => [
    f.name,
    tool({
      description: f.description,
      inputSchema: jsonSchema(f.parameters),
      execute: async () => "done",
    }),
  ]),
);
"""

LANGCHAIN_TOOLS = """\
import { readFileSync } from "node:fs";
import { tool } from "@langchain/core/tools";

type Schema = Record<string, unknown>;
type Entry = { function: { name: string; description: string; parameters: Schema } };
const entries = JSON.parse(readFileSync("crm-tools.json", "utf8")) as Entry[];
export const crmTools = entries.map(({ function: f }) =>
  tool(async () => "done", { name: f.name, description: f.description, schema: f.parameters }),
);
"""


async def test_the_guide_runs_each_framework_example_from_the_packed_package(
    database_url: str, tmp_path: Path
) -> None:
    app = tmp_path / "app"
    install_packed(app)
    _, ai_sdk, conversation, langchain = blocks(GUIDE)
    assert "result.responseMessages" in conversation
    (app / "ai-sdk.ts").write_text(ai_sdk, encoding="utf-8")
    (app / "conversation.ts").write_text(conversation, encoding="utf-8")
    (app / "langchain.ts").write_text(langchain, encoding="utf-8")
    (app / "crm-ai-tools.ts").write_text(AI_TOOLS, encoding="utf-8")
    (app / "crm-langchain-tools.ts").write_text(LANGCHAIN_TOOLS, encoding="utf-8")
    tools = registration()["tools"]
    (app / "crm-tools.json").write_text(json.dumps(tools), encoding="utf-8")
    await compile_app(app)

    find = {"id": "call_1", "name": "find_tools", "arguments": {"capabilities": ["حذف جهة اتصال"]}}
    delete = {"id": "call_2", "name": "delete_record", "arguments": {"id": "c_1"}}
    url, process = start_serve(database_url, tmp_path / "serve.log")
    try:
        with FakeLLM() as fake:
            env = {"TOOLRET_URL": url, "OPENAI_BASE_URL": f"{fake.url}/v1", "OPENAI_API_KEY": "t"}
            outputs = []
            for example in ("ai-sdk", "langchain", "conversation"):
                fake.reply(CHAT, chat_completion(tool_calls=[find]))
                fake.reply(CHAT, chat_completion(tool_calls=[delete]))
                fake.reply(CHAT, chat_completion("Deleted."))
                if example == "conversation":
                    fake.reply(CHAT, chat_completion("Here is the board."))
                outputs.append((await node_run(app / f"{example}.js", cwd=app, **env)).strip())
    finally:
        stop_serve(process)
    assert fake.rejections == []
    assert outputs == ["3 Deleted.", "6 Deleted.", "3 Deleted.\n1 Here is the board."]
    bodies = fake.bodies(CHAT)
    second_turn = [message["role"] for message in bodies[-1]["messages"]]
    assert second_turn == ["user", "assistant", "tool", "assistant", "tool", "assistant", "user"]
    sent = [[t["function"]["name"] for t in body["tools"]] for body in bodies[:6]]
    core = registration()["core"]
    for first, *later in (sent[0:3], sent[3:6]):  # narrowed: core + k + find_tools, of 20
        assert len(first) == len(core) + 12 + 1, first
        assert first[: len(core)] == core
        assert all(tools[: len(first)] == first for tools in later), later


def test_under_strict_options_the_frameworks_need_skip_lib_check(tmp_path: Path) -> None:
    """What the guide says of type-checking: with ``strict`` and ``exactOptionalPropertyTypes``
    and without ``skipLibCheck``, the framework examples fail only inside the frameworks' own
    declarations, never in ``@toolret/client``'s or in the examples."""
    app = tmp_path / "app"
    install_packed(app)
    _, ai_sdk, conversation, langchain = blocks(GUIDE)
    for name, text in {"ai-sdk.ts": ai_sdk, "conversation.ts": conversation,
                       "langchain.ts": langchain, "crm-ai-tools.ts": AI_TOOLS,
                       "crm-langchain-tools.ts": LANGCHAIN_TOOLS}.items():  # fmt: skip
        (app / name).write_text(text, encoding="utf-8")
    tsconfig = json.loads((app / "tsconfig.json").read_text(encoding="utf-8"))
    tsconfig["compilerOptions"]["skipLibCheck"] = False
    (app / "tsconfig.json").write_text(json.dumps(tsconfig), encoding="utf-8")
    checked = subprocess.run(
        [str(PACKAGE / "node_modules" / ".bin" / "tsc"), "-p", str(app), "--noEmit"],
        cwd=app,
        capture_output=True,
        text=True,
    )
    errors = re.findall(r"^(\S+?)\(\d+,\d+\): error TS\d+", checked.stdout, re.MULTILINE)
    assert checked.returncode != 0, checked.stdout
    assert errors, checked.stdout
    assert all("/node_modules/" in path for path in errors), errors  # none in the examples
    packages = {re.sub(r".*node_modules/((?:@[^/]+/)?[^/]+)/.*", r"\1", path) for path in errors}
    frameworks = re.compile(r"ai|@ai-sdk/.*|langchain|@langchain/.*|langsmith")
    assert all(frameworks.fullmatch(package) for package in packages), packages
    assert {"ai", "langchain"} <= packages
