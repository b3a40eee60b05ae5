"""``toolret feedback``: what an operator sees, candidate cases, forgetting — on a real database."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder
from toolret.cli._app import app
from toolret.feedback._signals import TurnFeedback
from toolret.feedback._store import FeedbackStore
from toolret.store._vector_store import VectorStore

SPEC = "tests.support.tools:crm_catalog"


def _turn(model_id: str, corpus: str, **fields: object) -> TurnFeedback:
    vector = np.random.default_rng(7).standard_normal(384).astype(np.float32)
    base: dict[str, object] = {
        "model_id": model_id,
        "corpus_hash": corpus,
        "k": 3,
        "bound": ("create_record", "delete_record", "send_email"),
        "core": ("find_records", "inspect_schema"),
        "hits": (),
        "misses": (),
        "discovered": (),
        "find_tools_calls": 0,
        "vector": tuple(float(x) for x in vector),
    }
    return TurnFeedback(**{**base, **fields})  # type: ignore[arg-type]


async def _seed(url: str) -> None:
    embedder = BundledE5Embedder()
    corpus = crm_catalog().corpus_hash(embedder.model_id, embedder.example_role)
    async with VectorStore.from_url(url) as store:
        feedback = FeedbackStore(store)
        await feedback.record(
            _turn(
                embedder.model_id,
                corpus,
                misses=("create_task",),
                discovered=("create_task",),
                find_tools_calls=1,
                text="remind me to call Omar tomorrow",
            )
        )
        await feedback.record(_turn(embedder.model_id, corpus, hits=("create_record",)))
        await feedback.record(_turn(embedder.model_id, corpus, misses=("create_task",)))


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    return CliRunner()


def test_feedback_shows_misses_confusions_and_find_tools_and_exports_cases(
    cli: CliRunner, database_url: str, tmp_path: Path
) -> None:
    asyncio.run(_seed(database_url))
    out = tmp_path / "cases.jsonl"
    result = cli.invoke(
        app, ["feedback", "--catalog", SPEC, "--export-cases", str(out)], terminal_width=160
    )
    assert result.exit_code == 0, result.output
    assert "3 turn(s)" in result.output
    row = next(line for line in result.output.splitlines() if "create_task" in line)
    assert "create_record ×2" in row  # what was bound first when create_task was missed
    # 2 misses of 3 called tools; 2 of 3 turns had a miss; 1 of 3 called find_tools.
    assert "66.7%" in result.output
    assert "33.3%" in result.output
    cases = [json.loads(line) for line in out.read_text().splitlines()]
    assert cases == [
        {
            "language": None,
            "prompt": "remind me to call Omar tomorrow",
            "tools": ["create_task"],
            "split": None,
        }
    ]

    forgotten = cli.invoke(app, ["feedback", "forget", "--catalog", SPEC, "--tool", "create_task"])
    assert forgotten.exit_code == 0, forgotten.output
    assert "forgot 0 learned vector(s) of create_task" in forgotten.output


def test_feedback_needs_a_catalog(cli: CliRunner) -> None:
    result = cli.invoke(app, ["feedback"])
    assert result.exit_code == 2
    assert "--catalog" in result.output
