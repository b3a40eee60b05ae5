"""Configuration from the environment, through one settings object.

The names an operator already knows stay unprefixed (``GEMINI_API_KEY``, ``AI_EMBEDDINGS_MODEL``,
``DATABASE_URL``, ``REDIS_URL``); everything else is ``TOOLRET_*``. Each unprefixed name may also
be given with the prefix, and the prefixed one wins: an application whose own ``DATABASE_URL``
logs in as its read-write role points toolret at the read-only ``toolret_reader`` role with
``TOOLRET_DATABASE_URL``. Every knob has a default that works locally with nothing installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from toolret.embedders._base import Embedder
from toolret.errors import ConfigurationError

__all__ = ["MODES", "RetrievalMode", "Settings", "make_embedder", "retrieval_mode"]

RetrievalMode = Literal["dense", "bm25", "hybrid"]
MODES: tuple[RetrievalMode, ...] = ("dense", "bm25", "hybrid")
"""``hybrid`` (the default): dense plus BM25 where the message shares informative words with the
catalog; ``dense``: embeddings only; ``bm25``: words only, no embedder. See docs/decisions.md."""


def _env(name: str) -> AliasChoices:
    """``TOOLRET_<name>``, else ``<name>``: the first alias present wins."""
    return AliasChoices(f"TOOLRET_{name}", name)


class Settings(BaseSettings):
    """Every toolret setting; see the README's configuration table."""

    model_config = SettingsConfigDict(env_prefix="TOOLRET_", extra="ignore")

    gemini_api_key: SecretStr | None = Field(None, validation_alias=_env("GEMINI_API_KEY"))
    embeddings_model: str = Field(
        "gemini-embedding-001", validation_alias=_env("AI_EMBEDDINGS_MODEL")
    )
    embedding_dimension: int = Field(768, ge=1, le=3072)
    gemini_base_url: str | None = None
    gemini_timeout: float = Field(10.0, gt=0)
    gemini_max_retries: int = Field(3, ge=0)
    database_url: str | None = Field(None, validation_alias=_env("DATABASE_URL"))
    redis_url: str | None = Field(None, validation_alias=_env("REDIS_URL"))
    catalogs: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias=AliasChoices("TOOLRET_CATALOGS")
    )
    k: int = Field(12, ge=1)
    time_budget_ms: int = Field(1500, ge=1)
    mode: RetrievalMode = "hybrid"
    data_dir: Path = Field(default_factory=lambda: platformdirs.user_data_path("toolret"))
    gc_grace_days: float = Field(7.0, gt=0)
    job_timeout: float = Field(1800.0, ge=1)
    """Seconds a worker's reindex or maintenance run may take (``TOOLRET_JOB_TIMEOUT``). arq
    keeps a running job's in-progress marker this long plus 10 s, so a killed worker's job runs
    again that long after it started."""
    feedback_text: bool = False
    """Keep the message text of reported turns (``TOOLRET_FEEDBACK_TEXT=1``); off by default."""
    learn: bool = False
    """Let the worker promote miss vectors to learned examples (``TOOLRET_LEARN=1``)."""
    companions: bool = True
    """Count the tools reported turns called together, and bind a ranked tool's usual
    companions (``TOOLRET_COMPANIONS=0`` turns both off; ``toolret.retrieval._companions``)."""
    sparse: bool = False
    """Rank with the bundled model's sparse head (``TOOLRET_SPARSE=1``): messages in a language
    the catalog is not in get its signal, for a second encoder pass (``SPARSE_PROFILE``)."""
    feedback_retention_days: float = Field(30.0, gt=0)

    def __init__(self, **values: Any) -> None:
        """Read the environment (``values`` override it); a value that does not parse raises
        ``ConfigurationError`` naming the variable, not pydantic's ``ValidationError``."""
        try:
            super().__init__(**values)
        except ValidationError as error:
            problems = "; ".join(
                f"{_variable(problem['loc'])}: {problem['msg']}" for problem in error.errors()
            )
            raise ConfigurationError(f"invalid setting: {problems}") from error

    @field_validator("catalogs", mode="before")
    @classmethod
    def _split_catalogs(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @property
    def time_budget(self) -> float:
        """The selection time budget in seconds."""
        return self.time_budget_ms / 1000


def retrieval_mode(mode: str) -> RetrievalMode:
    """``mode`` if it is one of ``MODES``; else a ``ConfigurationError`` naming them."""
    for known in MODES:
        if mode == known:
            return known
    raise ConfigurationError(f"unknown retrieval mode {mode!r}; use one of {MODES}")


def _variable(location: tuple[int | str, ...]) -> str:
    """The environment variable a validation error's location names (``k`` → ``TOOLRET_K``)."""
    name = str(location[0]) if location else "?"
    return name if name.isupper() else f"TOOLRET_{name.upper()}"


def make_embedder(settings: Settings | None = None) -> Embedder:
    """Gemini when ``GEMINI_API_KEY`` is set, else the bundled multilingual model (with its
    sparse signal when ``TOOLRET_SPARSE`` says so)."""
    settings = settings or Settings()
    if settings.gemini_api_key is None or not settings.gemini_api_key.get_secret_value():
        from toolret.embedders._e5 import BundledE5Embedder

        return BundledE5Embedder(sparse=settings.sparse)
    from toolret.embedders._gemini import GeminiEmbedder

    try:
        return GeminiEmbedder(
            api_key=settings.gemini_api_key.get_secret_value(),
            model=settings.embeddings_model,
            dimension=settings.embedding_dimension,
            base_url=settings.gemini_base_url,
            timeout=settings.gemini_timeout,
            max_retries=settings.gemini_max_retries,
        )
    except ValueError as error:
        raise ConfigurationError(f"cannot configure Gemini embeddings: {error}") from error
