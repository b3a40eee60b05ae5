"""The TypeScript client under test: node, its pinned npm packages, its build, and its tests.

``make test`` installs ``clients/typescript``'s packages from its lockfile (``npm ci``) before
pytest runs; ``built()`` compiles the package and its node tests once per session (``tsc``),
and ``node_tests`` runs one compiled test file with node's test runner. Node.js and npm are the
pinned ones of ``tests.support.node``, never the machine's.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.node import node, node_major

__all__ = [
    "NODE_MAJOR",
    "PACKAGE",
    "built",
    "node_run",
    "node_script",
    "node_tests",
    "require_node",
]

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NODE_MAJOR = 20
"""The oldest node the package supports (``engines`` in its package.json)."""


def require_node() -> str:
    """The path of the suite's ``node`` (``tests.support.node``), checked to be >= 20."""
    major = node_major()
    assert major >= NODE_MAJOR, f"{node()} is Node.js {major}, older than {NODE_MAJOR}"
    return node()


@functools.cache
def built() -> Path:
    """The package compiled with its tests into ``build/`` (``tsconfig.json``), once a session."""
    require_node()
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    assert tsc.exists(), (
        f"{PACKAGE}'s npm packages are not installed: run `make test` (it runs npm ci there), "
        "or `npm ci` in that folder"
    )
    shutil.rmtree(PACKAGE / "build", ignore_errors=True)
    result = subprocess.run(
        [str(tsc), "-p", "tsconfig.json"], cwd=PACKAGE, capture_output=True, text=True
    )
    assert result.returncode == 0, f"tsc failed:\n{result.stdout}{result.stderr}"
    return PACKAGE / "build"


def _env(extra: Mapping[str, str]) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NO_COLOR": "1", **extra}


async def node_tests(name: str, env: Mapping[str, str]) -> str:
    """Run ``build/test/<name>.test.js`` with node's test runner; its output, or a failure
    showing it."""
    script = built() / "test" / f"{name}.test.js"
    process = await asyncio.create_subprocess_exec(
        require_node(),
        "--test",
        "--test-reporter=spec",
        str(script),
        cwd=PACKAGE,
        env=_env(env),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    output = out.decode()
    assert process.returncode == 0, f"node --test {script.name} failed:\n{output}"
    return output


async def node_script(name: str, payload: Any, env: Mapping[str, str] | None = None) -> Any:
    """Run ``build/test/<name>.js`` with ``payload`` as JSON on stdin; the JSON it prints."""
    process = await asyncio.create_subprocess_exec(
        require_node(),
        str(built() / "test" / f"{name}.js"),
        cwd=PACKAGE,
        env=_env(env or {}),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate(json.dumps(payload).encode())
    assert process.returncode == 0, f"node {name}.js failed:\n{err.decode()}"
    return json.loads(out)


async def node_run(script: Path, *arguments: str, cwd: Path = PACKAGE, **env: str) -> str:
    """Run a node ``script`` with ``arguments``; its output, or a failure showing it."""
    process = await asyncio.create_subprocess_exec(
        require_node(),
        str(script),
        *arguments,
        cwd=cwd,
        env=_env(env),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    assert process.returncode == 0, f"node {script.name} failed:\n{out.decode()}"
    return out.decode()
