"""Configuration from the environment: ``TOOLRET_<NAME>`` wins over the unprefixed ``<NAME>``.

An application that keeps its own read-write role in ``DATABASE_URL`` runs toolret on the
read-only role through ``TOOLRET_DATABASE_URL``; the migration (Alembic's env.py) reads the
same order.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

from tests.support.fixtures_pg import PgServer
from tests.support.tools import crm_catalog
from toolret import BundledE5Embedder, Catalog, StoreError, ToolRetrievalClient
from toolret._settings import Settings
from toolret.retrieval._selection import Mode
from toolret.store._migrate import head_revision
from toolret.store._schema import READER_ROLE, VERSION_TABLE

REPO = Path(__file__).resolve().parent.parent
UNPREFIXED = {
    "DATABASE_URL": "database_url",
    "REDIS_URL": "redis_url",
    "AI_EMBEDDINGS_MODEL": "embeddings_model",
    "GEMINI_API_KEY": "gemini_api_key",
    "OPENAI_API_KEY": "openai_api_key",
    "OPENAI_BASE_URL": "openai_base_url",
    "AZURE_OPENAI_ENDPOINT": "azure_openai_endpoint",
    "AZURE_OPENAI_API_KEY": "azure_openai_api_key",
    "OPENAI_API_VERSION": "openai_api_version",
}


def _value(settings: Settings, field: str) -> object:
    value = getattr(settings, field)
    return value.get_secret_value() if hasattr(value, "get_secret_value") else value


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in UNPREFIXED:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"TOOLRET_{name}", raising=False)
    return monkeypatch


@pytest.mark.parametrize(("name", "field"), UNPREFIXED.items())
def test_the_prefixed_name_wins_over_the_unprefixed_one(
    clean_env: pytest.MonkeyPatch, name: str, field: str
) -> None:
    clean_env.setenv(name, "plain-value")
    assert _value(Settings(), field) == "plain-value"
    clean_env.setenv(f"TOOLRET_{name}", "toolret-value")
    assert _value(Settings(), field) == "toolret-value"
    clean_env.delenv(name)
    assert _value(Settings(), field) == "toolret-value"


def test_an_argument_wins_over_both(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DATABASE_URL", "postgresql://app@db/app")
    clean_env.setenv("TOOLRET_DATABASE_URL", "postgresql://reader@db/app")
    assert Settings(DATABASE_URL="postgresql://given@db/app").database_url == (
        "postgresql://given@db/app"
    )
    assert Settings().database_url == "postgresql://reader@db/app"


def test_alembic_migrates_the_toolret_database_url_not_the_apps(
    empty_database_url: str,
) -> None:
    """DATABASE_URL points at a port nothing listens on: were it read first, the run fails."""
    environment = {
        **os.environ,
        "TOOLRET_DATABASE_URL": empty_database_url,
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/nothing",
    }
    result = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with psycopg.connect(empty_database_url) as db:
        revision = db.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()
    assert revision == (head_revision(),)


async def test_an_app_runs_toolret_on_the_read_only_role_through_the_environment(
    clean_env: pytest.MonkeyPatch, pg_server: PgServer, database_url: str
) -> None:
    """As the deployment guide shows: the app's DATABASE_URL is its own (here: nothing listens
    there), TOOLRET_DATABASE_URL logs in as a role granted toolret_reader."""
    login = f"app_{uuid.uuid4().hex[:8]}"
    dbname = database_url.split("/")[3].split("?")[0]
    await asyncio.to_thread(pg_server.execute, f"CREATE ROLE {login} LOGIN IN ROLE {READER_ROLE}")
    try:
        async with ToolRetrievalClient(database_url, embedder=BundledE5Embedder()) as owner:
            await owner.index(crm_catalog())
        clean_env.setenv("DATABASE_URL", "postgresql://myapp@127.0.0.1:1/myapp")
        clean_env.setenv("TOOLRET_DATABASE_URL", pg_server.url(dbname, user=login))
        clean_env.setenv("TOOLRET_TIME_BUDGET_MS", "30000")
        async with ToolRetrievalClient(embedder=BundledE5Embedder(), k=3) as client:
            selection = await client.select(crm_catalog(), "Delete the duplicate contact")
            assert selection.mode is Mode.NARROWED, selection.reason
            edited = Catalog([*crm_catalog().tools[:-1]])
            with pytest.raises(StoreError, match="owner's URL"):
                await client.index(edited)
    finally:
        await asyncio.to_thread(pg_server.execute, f"DROP OWNED BY {login}", dbname)
        await asyncio.to_thread(pg_server.execute, f"DROP ROLE {login}")
