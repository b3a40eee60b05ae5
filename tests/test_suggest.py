"""``toolret examples suggest``: the real google-genai client against the local fake server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.fake_gemini import FakeGemini
from tests.support.tools import crm_catalog
from toolret import ConfigurationError, EmbedderError
from toolret.adapters._source import load_examples
from toolret.authoring._suggest import TOOLS_PER_REQUEST, suggest_examples, write_examples
from toolret.cli._app import app


@pytest.fixture
def server() -> Iterator[FakeGemini]:
    with FakeGemini() as fake:
        yield fake


async def test_suggestions_cover_every_candidate_in_every_language(server: FakeGemini) -> None:
    catalog = crm_catalog()
    suggested = await suggest_examples(
        catalog, ["en", "ar", "tr"], api_key="test-key", per_tool=2, base_url=server.url
    )
    assert list(suggested) == [tool.name for tool in catalog.candidates]
    assert suggested["create_task"] == (
        "en request 0 for create task",
        "en request 1 for create task",
        "ar request 0 for create task",
        "ar request 1 for create task",
        "tr request 0 for create task",
        "tr request 1 for create task",
    )
    generate = [r for r in server.requests if r.endpoint == "generateContent"]
    batches = -(-len(catalog.candidates) // TOOLS_PER_REQUEST)
    assert len(generate) == batches
    assert generate[0].headers.get("x-goog-api-key") == "test-key"
    assert generate[0].body["generationConfig"]["responseMimeType"] == "application/json"
    # Core tools are bound anyway: nobody needs examples for them.
    assert not {t.name for t in catalog.core} & set(suggested)


async def test_an_answer_that_is_not_json_is_an_error_that_says_so(server: FakeGemini) -> None:
    server.reply_next(
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Sure! Here"}]}}]}
    )
    with pytest.raises(EmbedderError, match="not JSON"):
        await suggest_examples(crm_catalog(), ["en"], api_key="k", base_url=server.url)
    with pytest.raises(ConfigurationError, match="GEMINI_API_KEY"):
        await suggest_examples(crm_catalog(), ["en"], api_key="", base_url=server.url)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_written_suggestions_load_as_a_side_file(tmp_path: Path, suffix: str) -> None:
    examples = {"create_task": ('remind me "tomorrow"', "ذكرني بكرة"), "a.b/c": ("x",)}
    path = write_examples(tmp_path / f"suggested{suffix}", examples)
    assert load_examples(path) == examples


def test_the_command_writes_a_file_for_review(
    server: FakeGemini, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("TOOLRET_GEMINI_BASE_URL", server.url)
    out = tmp_path / "suggested.toml"
    result = CliRunner().invoke(
        app,
        [
            "examples",
            "suggest",
            "--catalog",
            "tests.support.tools:crm_catalog",
            "--languages",
            "en,tr",
            "--per-tool",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    written = load_examples(out)
    assert written["send_email"] == ("en request 0 for send email", "tr request 0 for send email")
    assert "review them" in result.output
