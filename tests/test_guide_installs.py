"""Installs that run the guides: each integration's extra, alone, runs its guide's snippet.

The wheel is built once and installed into a fresh venv per extra with that extra only
(``pip install 'toolret[pydantic-ai]'``, pinned by constraints.txt); the guide's code block runs
there as written, from an empty directory, after a prelude defining what the guide says is the
reader's own (``MODEL``, ``run_tool``, the tools), against the strict local model server
(``tests/support/fake_llm.py``). A missing package fails the import, as it would for a user.
Slow (a real install per extra), so these are marked ``wheel`` as ``tests/test_wheel.py`` is.
The deployment guide's extras table lists every extra ``pyproject.toml`` declares.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_gemini import FakeGemini
from tests.support.fake_llm import (
    CHAT,
    MESSAGES,
    RESPONSES,
    FakeLLM,
    anthropic_message,
    chat_completion,
    responses_response,
)
from tests.test_docs_providers import BLOCKS, CRM_FUNCTIONS, LANGCHAIN_TOOLS
from tests.test_wheel import _install, built_wheel

REPO = Path(__file__).resolve().parent.parent
EXTRAS: dict[str, list[str]] = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))[
    "project"
]["optional-dependencies"]
DEPLOYMENT = (REPO / "docs" / "deployment.md").read_text("utf-8")
GEMINI = "generateContent"
"""The Gemini guide's calls, served by ``tests/support/fake_gemini.py``."""

DRIVER = """
import ast, asyncio, sys
from pathlib import Path

here = Path(sys.argv[1])
namespace = {"__name__": "guide"}
exec(compile((here / "prelude.py").read_text("utf-8"), "prelude", "exec"), namespace)

async def main():
    for part in ("block.py", "after.py"):
        code = compile((here / part).read_text("utf-8"), part, "exec",
                       flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)
        if result is not None:
            await result

asyncio.run(main())
"""
"""Runs a guide's block as tests/test_docs_providers.py does, in the venv under test."""

READER = """
import json
MODEL = "gpt-fake"
ran = []
async def run_tool(name, arguments):
    ran.append(name)
    return "ok"
def _function(name, doc):
    def tool(query: str) -> str:
        return "ok"
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    return tool
functions = [_function(name, doc) for name, doc in json.loads(CRM).items()]
"""
"""What every guide says is the reader's: the model, ``run_tool``, their functions."""

MAILBOX = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("beta", log_level="WARNING")
@server.tool(description="Send an email message to one or more recipients with a subject.")
def send_email(to: list[str], subject: str, body: str) -> str:
    return "sent"
server.run("stdio")
"""
"""An MCP server for the Agents SDK guide's ``params``, run by the venv's own Python."""


def _text_reply(path: str, words: str) -> dict[str, Any]:
    if path == CHAT:
        return chat_completion(words)
    if path == MESSAGES:
        return anthropic_message([{"type": "text", "text": words}])
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": words, "annotations": []}]}  # fmt: skip
    return responses_response([message])


GUIDES: dict[str, tuple[str, str, str, str]] = {
    # extra: (the block's marker, the path it calls, the reader's prelude, what runs after it)
    "openai": (
        "async def reply(",
        CHAT,
        "",
        "async with retrieval:\n"
        "    response = await reply([], 'Delete the duplicate contact')\n"
        "print('ANSWER', response.choices[0].message.content)\n",
    ),
    "anthropic": (
        "anthropic_tools(",
        MESSAGES,
        "from toolret.demo.roster import catalog as units_catalog\n",
        "reply = await turn([{'role': 'user', 'content': 'Delete the duplicate contact'}])\n"
        "print('ANSWER', reply.content[0].text)\n",
    ),
    "langchain": (
        "create_agent(",
        CHAT,
        LANGCHAIN_TOOLS,
        "print('ANSWER', result['messages'][-1].content)\n",
    ),
    "gemini": (
        "generate_content(",
        GEMINI,
        "from toolret.demo.roster import catalog as units_catalog\n",
        "response = await turn([], 'Delete the duplicate contact')\n"
        "print('ANSWER', response.text)\n",
    ),
    "pydantic-ai": (
        "capabilities=[retrieval]",
        RESPONSES,
        "tools = functions\n",
        "print('ANSWER', later.output)\n",
    ),
    "openai-agents": (
        "hooks=retrieval",
        RESPONSES,
        "import sys\nfrom agents import function_tool\n"
        "tools = [function_tool(f) for f in functions]\n"
        f"params = {{'command': sys.executable, 'args': ['-c', {MAILBOX!r}]}}\n",
        "print('ANSWER', result.final_output)\n",
    ),
}
"""Each integration's extra, and the guide block it must run (the README's for ``openai``)."""
REPLIES: dict[str, int] = {"pydantic-ai": 2}
"""Model calls a guide block makes (one, unless named here)."""
SENT: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    CHAT: lambda body: [tool["function"]["name"] for tool in body.get("tools", [])],
    MESSAGES: lambda body: [tool["name"] for tool in body.get("tools", [])],
    RESPONSES: lambda body: [tool["name"] for tool in body.get("tools", [])],
    GEMINI: lambda body: [tool["name"] for tool in body["tools"][0]["functionDeclarations"]],
}


@pytest.fixture(scope="module")
def built() -> Iterator[tuple[Path, Path]]:
    """The wheel, built once for this module."""
    with built_wheel() as found:
        yield found


def test_every_integration_with_a_guide_is_installed_here() -> None:
    integrations = {"anthropic", "openai", "gemini", "langchain", "pydantic-ai", "openai-agents"}
    assert set(GUIDES) == integrations
    assert integrations <= set(EXTRAS)


def test_the_deployment_guide_lists_every_extra() -> None:
    listed = re.findall(r"^\| `toolret\[([\w-]+)\]` \|", DEPLOYMENT, re.MULTILINE)
    assert sorted(listed) == sorted(set(listed))
    assert set(listed) == set(EXTRAS)


@pytest.mark.wheel
@pytest.mark.parametrize("extra", sorted(GUIDES))
def test_an_extra_alone_runs_its_guides_snippet(
    extra: str, built: tuple[Path, Path], database_url: str, tmp_path: Path
) -> None:
    root, wheel = built
    venv = _install(root, wheel, f"{extra}-venv", f"{wheel}[{extra}]")
    marker, path, prelude, after = GUIDES[extra]
    (block,) = [code for code in BLOCKS if marker in code]
    reader = f"CRM = {json.dumps(json.dumps(CRM_FUNCTIONS))}\n{READER}\n{prelude}"
    for name, text in {"block.py": block, "prelude.py": reader, "after.py": after}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with ExitStack() as serving:
        fake, gemini = serving.enter_context(FakeLLM()), serving.enter_context(FakeGemini())
        for _ in range(REPLIES.get(extra, 1)):
            if path == GEMINI:
                gemini.reply_content([{"text": "Done."}])
            else:
                fake.reply(path, _text_reply(path, "Done."))
        venv.env |= {
            "OPENAI_BASE_URL": f"{fake.url}/v1",
            "OPENAI_API_KEY": "test",
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "test",
            "GOOGLE_GEMINI_BASE_URL": gemini.url,
            "GOOGLE_API_KEY": "test",
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "DATABASE_URL": database_url,  # the README's service: the run's Postgres
            "TOOLRET_K": "3",
            "TOOLRET_TIME_BUDGET_MS": "60000",
        }
        ran = venv.run(str(venv.bin / "python"), "-c", DRIVER, str(tmp_path), check=False)
        if path == GEMINI:
            bodies = [r.body for r in gemini.requests if r.endpoint == GEMINI]
        else:
            bodies = fake.bodies(path)
        rejections = [*fake.rejections, *gemini.rejections]
    assert ran.returncode == 0, f"toolret[{extra}]:\n{ran.stdout}\n{ran.stderr}"
    assert "ANSWER Done." in ran.stdout, ran.stdout
    assert rejections == []
    sent = SENT[path](bodies[0])
    assert "find_records" in sent  # a core tool of every guide's catalog
    others = {"langchain": "langchain", "pydantic-ai": "pydantic_ai", "openai-agents": "agents"}
    other = next(module for name, module in others.items() if name != extra)
    absent = venv.run(str(venv.bin / "python"), "-c", f"import {other}", check=False)
    assert absent.returncode != 0, f"toolret[{extra}] brings {other}: not its extra alone"
